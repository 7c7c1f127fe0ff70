"""Student text never changes the structure of what the grader writes: Markdown feedback, HTML
feedback and dashboard, the class CSV, the terminal (feedback, progress lines, summary)."""

from __future__ import annotations

import copy
import csv
import io
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from grader.results.console import ProgressLines, print_summary
from grader.results.gradebook import class_csv
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import describe_detail
from grader.results.render import render_dashboard, render_feedback, render_summary

DATA = Path(__file__).parent / "data"
# A heading, a table, raw HTML, a link, an image, a fence, a spreadsheet formula, terminal
# escapes (clear screen, set the window title, bell), each on a line of its own.
HOSTILE = ("boom\n# Injected heading\n| a | b |\n|---|---|\n<script>alert(1)</script>\n"
           "[link](http://evil.example) ![img](http://evil.example/x.png)\n```\n"
           "=HYPERLINK(\"http://evil.example\")\n\x1b[2J\x1b]0;owned\x07 end")
TERMINAL_ESCAPES = ("\x1b[2J", "\x1b]0;", "\x07")


def document(text: str, lang: str = "en") -> dict[str, Any]:
    """The mixed sample with `text` as a failed check's exception message and output, a flag
    parameter, and the submission id."""
    doc = copy.deepcopy(json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8")))
    catalogue = Catalogue.load(lang)
    doc["lang"] = lang
    check = next(c for c in doc["checks"] if c["status"] == "failed")
    check["detail"] = {"kind": "exception",
                       "params": {"type": "ValueError", "message": text, "where": ""}}
    check["message"] = describe_detail(check["detail"], catalogue)
    check["output"] = text
    doc["flags"] = [{"id": "forbidden-import", "params": {"module": text},
                     "text": catalogue.text("flags.forbidden-import.text", module=text)}]
    doc["submission"]["id"] = text
    return doc


def markdown_structure(text: str) -> dict[str, int]:
    """How many of each block and inline element a Markdown text has."""
    counts: dict[str, int] = {}
    parser = MarkdownIt("commonmark").enable("table")
    for token in parser.parse(text):
        for item in [token, *(token.children or [])]:
            counts[item.type] = counts.get(item.type, 0) + 1
    return counts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_student_text_adds_no_markdown_structure(lang: str) -> None:
    plain = markdown_structure(render_feedback(document("boom", lang), "markdown"))
    hostile = markdown_structure(render_feedback(document(HOSTILE, lang), "markdown"))
    for kind in ("heading_open", "table_open", "html_block", "html_inline", "link_open",
                 "image", "fence", "bullet_list_open", "hr"):
        assert hostile.get(kind, 0) == plain.get(kind, 0), (kind, plain, hostile)


class Tags(HTMLParser):
    """Collects the start tags of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def tags(html: str) -> list[str]:
    parser = Tags()
    parser.feed(html)
    return sorted(parser.tags)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_student_text_adds_no_html_element(lang: str) -> None:
    assert tags(render_feedback(document(HOSTILE, lang), "html")) == tags(
        render_feedback(document("boom", lang), "html"))
    assert tags(render_dashboard([document(HOSTILE, lang)], lang)) == tags(
        render_dashboard([document("boom", lang)], lang))


def test_class_csv_cells_that_a_spreadsheet_would_run_are_quoted() -> None:
    docs = []
    for name in ("=1+1", "+cmd", "-2", "@SUM(A1)", "\t=x", "ana"):
        doc = document("boom")
        doc["submission"]["id"] = name
        docs.append(doc)
    rows = list(csv.reader(io.StringIO(class_csv(docs))))
    cells = [cell for row in rows[1:] for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t")], rows
    assert [row[0] for row in rows[1:]] == ["'=1+1", "'+cmd", "'-2", "'@SUM(A1)", "'=x", "ana"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_terminal_feedback_and_summary_carry_no_escape_sequence(lang: str) -> None:
    doc = document(HOSTILE, lang)
    for text in (render_feedback(doc, "terminal"), render_summary([doc], lang)):
        assert not [e for e in TERMINAL_ESCAPES if e in text], repr(text[:300])


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_rich_summary_and_progress_lines_carry_no_escape_sequence_from_students() -> None:
    doc = document(HOSTILE)
    screen = FakeTerminal()
    print_summary([doc], "en", stream=screen)
    line = ProgressLines("en").line(1, 2, doc, kept=False)
    for text in (screen.getvalue(), line):
        assert not [e for e in TERMINAL_ESCAPES if e in text], repr(text[:300])
