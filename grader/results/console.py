"""What `grade` prints while it runs and when it ends, in the instructor's language.

A line per submission as soon as its report exists (count, elapsed time, time left), and the
class summary. On a terminal, rich draws a live progress bar under those lines and the summary
as a table; otherwise (a pipe, a log file, CI) the same lines are printed plain, and the summary
is the plain-text template. Every word comes from the catalogue (`cli.*`, `ui.summary_*`).
"""

from __future__ import annotations

import datetime
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from grader.results.i18n import Catalogue
from grader.results.render import render_summary, summary_context
from grader.results.score_document import Document, ScoreDocument, as_document

# Student text printed on the instructor's terminal: no control characters (escape sequences
# could rewrite the screen), and rich markup never interpreted (Text objects, not strings).
_CONTROL = {code: "\ufffd" for code in (*range(0x00, 0x09), *range(0x0b, 0x20),
                                         *range(0x7f, 0xa0))}


def terminal_safe(text: str) -> str:
    """Replace control characters, so student text cannot drive the terminal."""
    return text.translate(_CONTROL)


def duration(seconds: float) -> str:
    """A duration as H:MM:SS (language-neutral)."""
    return str(datetime.timedelta(seconds=round(max(seconds, 0.0))))


class ProgressLines:
    """The text of one progress line per finished submission, with an estimate of time left.

    The estimate divides the time spent so far by the submissions actually graded (reports
    kept by --resume and unreadable submissions take no time) and multiplies by those left.
    """

    def __init__(self, lang: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.catalogue = Catalogue.load(lang)
        self.clock = clock
        self.started = clock()
        self.graded = 0

    def line(self, done: int, total: int, document: Document, kept: bool) -> str:
        """The line for the done-th finished submission out of total."""
        doc = as_document(document)
        if not kept and doc.status != "ungradable":
            self.graded += 1
        elapsed = self.clock() - self.started
        return self.catalogue.text(
            "cli.progress", done=str(done), total=str(total),
            submission=terminal_safe(doc.submission.id),
            outcome=self._outcome(doc, kept), elapsed=duration(elapsed),
            remaining=self.remaining(done, total, elapsed))

    def remaining(self, done: int, total: int, elapsed: float) -> str:
        """'about 0:00:12 left', or that it is not known yet, or done."""
        if done >= total:
            return self.catalogue.text("cli.remaining_none")
        if self.graded == 0:
            return self.catalogue.text("cli.remaining_unknown")
        return self.catalogue.text("cli.remaining",
                                   eta=duration(elapsed / self.graded * (total - done)))

    def _outcome(self, doc: ScoreDocument, kept: bool) -> str:
        score = {"score": self.catalogue.number(doc.score),
                 "max_score": self.catalogue.number(doc.max_score)}
        if kept:
            return self.catalogue.text("cli.outcome.kept", **score)
        if doc.status == "graded":
            return self.catalogue.text("cli.outcome.graded", **score)
        return self.catalogue.text(f"cli.outcome.{doc.status}")


class PlainProgress:
    """Progress as plain lines, one per submission (for pipes, logs and CI)."""

    def __init__(self, lang: str, stream: TextIO) -> None:
        self.lines = ProgressLines(lang)
        self.stream = stream

    def __call__(self, done: int, total: int, doc: dict[str, Any], kept: bool) -> None:
        print(self.lines.line(done, total, doc, kept), file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing to take down."""


class RichProgress:
    """Progress on a terminal: each submission's line printed above a live rich bar."""

    def __init__(self, lang: str, stream: TextIO) -> None:
        from rich.console import Console  # not in the student kit: `grade` only
        from rich.progress import (  # not in the student kit: `grade` only
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
        )

        self.lines = ProgressLines(lang)
        self.console = Console(file=stream, highlight=False)
        self.bar = Progress(BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[remaining]}"),
                            console=self.console, transient=True)
        self.task = self.bar.add_task("grade", total=None, remaining="")
        self.bar.start()

    def __call__(self, done: int, total: int, doc: dict[str, Any], kept: bool) -> None:
        from rich.text import Text  # not in the student kit: `grade` only

        line = self.lines.line(done, total, doc, kept)
        self.bar.console.print(Text(line))
        elapsed = self.lines.clock() - self.lines.started
        self.bar.update(self.task, completed=done, total=total,
                        remaining=self.lines.remaining(done, total, elapsed))

    def close(self) -> None:
        """Take the live bar down, leaving the printed lines."""
        self.bar.stop()


def progress_display(lang: str, stream: TextIO | None = None) -> PlainProgress | RichProgress:
    """A rich bar on a terminal, plain lines otherwise."""
    stream = stream or sys.stderr
    return RichProgress(lang, stream) if stream.isatty() else PlainProgress(lang, stream)


def print_summary(docs: Sequence[Mapping[str, Any]], lang: str, stream: TextIO | None = None,
                  templates: Path | None = None) -> None:
    """The class summary: a rich table on a terminal, the plain-text template otherwise
    (`templates`: a course's overrides)."""
    stream = stream or sys.stdout
    if not stream.isatty():
        print(render_summary(docs, lang, templates), file=stream)
        return
    from rich.console import Console  # not in the student kit: `grade` only
    from rich.table import Table  # not in the student kit: `grade` only
    from rich.text import Text  # not in the student kit: `grade` only

    context = summary_context(docs, lang)
    headers = context["headers"]
    table = Table(title=context["title"], caption=context["totals_line"], title_justify="left")
    for name in ("submission", "status", "score", "pitfalls"):
        table.add_column(headers[name], justify="right" if name == "score" else "left")
    for row in context["rows"]:
        table.add_row(*(Text(terminal_safe(row[name]))
                        for name in ("submission", "status", "score", "pitfalls")))
    console = Console(file=stream, highlight=False)
    console.print(table)
    for note in context["isolation"]:  # anything below the full jail is a warning
        console.print(Text(note["text"], style="bold yellow" if note["warning"] else ""))


def say(key: str, lang: str, stream: TextIO | None = None, **params: str) -> None:
    """Print one catalogue line (errors and warnings go to stderr, the default)."""
    print(Catalogue.load(lang).text(key, **params), file=stream or sys.stderr, flush=True)
