"""Feedback rendering: turn score documents into terminal, Markdown and HTML text via templates."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from grader.common.labs import TEMPLATE_DIR
from grader.results.check_view import check_view
from grader.results.first_screen import first_screen
from grader.results.i18n import Catalogue, format_number
from grader.results.messages import (
    attempt_notes,
    localise,
    pitfall_explanation,
    pitfall_section,
    pitfall_title,
    problem_notice,
    problem_where,
    unchecked_note,
)
from grader.results.other_lab_note import other_lab_note
from grader.results.score_document import (
    Document,
    Isolation,
    ScoreDocument,
    as_document,
    to_json,
    to_json_or_none,
)
from grader.results.semester_note import note_lines

FEEDBACK_TEMPLATES: Mapping[str, str] = {
    "terminal": "feedback.terminal.j2",
    "markdown": "feedback.md.j2",
    "html": "feedback.html.j2",
}
NOTEBOOK_TEMPLATE = "feedback.notebook.html.j2"
# A submission's report: its score document and the feedback rendered from it, by file name.
REPORT_FILES = {"scores.json": None, "feedback.md": "markdown", "feedback.html": "html"}
SUMMARY_TEMPLATE = "summary.terminal.j2"
# In a course's folder of template overrides, the sub-folder of templates of its own (macros its
# overrides import), which override nothing.
COURSE_OWN_TEMPLATES = "own"
DASHBOARD_TEMPLATE = "dashboard.html.j2"

# ANSI styles for the terminal, used only when colour is asked for.
_ANSI: Mapping[str, str] = {
    "passed": "32",
    "failed": "31",
    "not-run": "33",
    "error": "35",
    "graded": "1",
    "ungradable": "33",
    "grader-error": "35",
    "heading": "1",
}
# Control characters student output could use to rewrite the terminal (escape sequences).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_MD_SPECIAL = re.compile(r"[\\`*_\[\]<>~|#]")
# Line breaks in prose would let student text start a block of its own (a heading, a table,
# a list, a fence): one paragraph is one line. A run of them is split on (one character class:
# linear); the spaces around it are stripped in plain code (`\s*` before it backtracked over
# every run of spaces from each of its positions: quadratic in student text).
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]+")


def _is_html(template_name: str | None) -> bool:
    """Autoescape only HTML templates (feedback.html.j2 and any *.html)."""
    return template_name is not None and template_name.endswith((".html", ".html.j2"))


def _plain(text: Any) -> str:
    """Replace control characters so student text cannot drive the terminal."""
    return _CONTROL.sub("\ufffd", str(text))


def _html_code(text: Any) -> Markup:
    """Escape text for HTML, then show `code spans` as <code> elements."""
    escaped = str(escape(_plain(text)))
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", escaped))


def _md_escape(text: str) -> str:
    """Backslash-escape Markdown syntax (emphasis, links, raw HTML) in prose."""
    return _MD_SPECIAL.sub(r"\\\g<0>", text.replace("&", "&amp;"))


def one_line(text: str) -> str:
    """text as one line: every run of line breaks, with the white space around it, is one space."""
    pieces = _LINE_BREAKS.split(text)
    if len(pieces) == 1:
        return text
    middle = [piece.strip() for piece in pieces[1:-1]]
    return " ".join([pieces[0].rstrip(), *(piece for piece in middle if piece), pieces[-1].lstrip()])


def _md_text(text: Any) -> str:
    """Escape text for Markdown outside its `code spans`, which are kept as they are."""
    parts = _CODE_SPAN.split(_plain(one_line(str(text))))
    # split() with one group alternates prose, code, prose, ...: odd items are code spans.
    return "".join(f"`{part}`" if index % 2 else _md_escape(part) for index, part in enumerate(parts))


@jinja2.pass_context
def _number(context: jinja2.runtime.Context, value: float) -> str:
    """The `num` filter: a number in the language of the template's context (its `lang`)."""
    return format_number(value, context["lang"])


def _md_fence(text: Any) -> str:
    """Return a backtick fence longer than any backtick run inside text."""
    longest = max((len(run) for run in re.findall(r"`+", str(text))), default=0)
    return "`" * max(3, longest + 1)


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept as Python keeps bytecode: in __pycache__ beside them, checked
    against each template's source, not written when Python writes no bytecode or where the
    folder cannot be written (compiling the feedback template is most of rendering it once)."""

    def __init__(self, directory: str) -> None:
        super().__init__(directory, "%s.jinja2")

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        """Keyed by the template's name alone: a copy of the templates elsewhere (PrairieLearn's
        run.sh copies them) finds the same entries, which the source's checksum still guards."""
        return super().get_cache_key(name)

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - a copy unreadable for any reason is not used
            bucket.reset()  # and the template compiles

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if sys.dont_write_bytecode:
            return
        with contextlib.suppress(OSError):
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)


@functools.lru_cache(maxsize=4)
def environment(course_templates: Path | None = None) -> jinja2.Environment:
    """Return the jinja2 environment for the templates directory, with the feedback filters
    (built once: its compiled templates are reused for every submission); `course_templates`:
    a course's own folder, searched first, so that a template there overrides the grader's of
    the same name (see course_template_problems)."""
    folders = [TEMPLATE_DIR] if course_templates is None else [course_templates, TEMPLATE_DIR]
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(folder) for folder in folders]),
        autoescape=_is_html,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # a course's compiled templates beside its own: the grader's are keyed by name alone
        bytecode_cache=_CompiledTemplates(str(folders[0] / "__pycache__")),
    )
    env.filters["num"] = _number
    env.filters["plain"] = _plain
    env.filters["html_code"] = _html_code
    env.filters["md_text"] = _md_text
    env.filters["md_fence"] = _md_fence
    return env


def course_template_problems(folder: Path) -> list[str]:
    """What is wrong with a course's folder of template overrides, one line each: a template
    that overrides none of the grader's (a misspelt name would be ignored silently; a course's
    own helpers go in its COURSE_OWN_TEMPLATES sub-folder), or one that does not compile."""
    problems = []
    env = environment(folder)
    for path in sorted(folder.rglob("*.j2")):
        name = path.relative_to(folder).as_posix()
        if name.startswith("__pycache__/"):
            continue
        if not name.startswith(f"{COURSE_OWN_TEMPLATES}/") and not (TEMPLATE_DIR / name).is_file():
            problems.append(f"{path}: the grader has no template {name!r} to override "
                            f"(its templates are in {TEMPLATE_DIR}; a template of the course's "
                            f"own goes in {folder / COURSE_OWN_TEMPLATES})")
            continue
        try:
            env.get_template(name)
        except jinja2.TemplateSyntaxError as exc:
            problems.append(f"{path}, line {exc.lineno}: {exc.message}")
    return problems


def render_template(name: str, **context: Any) -> str:
    """The template `name` (a path under templates/) rendered with `context`."""
    return environment().get_template(name).render(**context)


def _painter(color: bool) -> Callable[[str, str], str]:
    """Return paint(text, style): ANSI-coloured text when color is on, the text otherwise."""

    def paint(text: str, style: str) -> str:
        code = _ANSI.get(style)
        return f"\x1b[{code}m{text}\x1b[0m" if color and code else text

    return paint


def pitfall_notes(pitfall_ids: Sequence[str], catalogue: Catalogue) -> list[dict[str, str]]:
    """Return title, explanation and section of each pitfall, for the closing section."""
    notes = []
    for pitfall_id in pitfall_ids:
        known = catalogue.has(f"pitfalls.{pitfall_id}.title")
        notes.append(
            {
                "id": pitfall_id,
                "title": pitfall_title(pitfall_id, catalogue) if known else pitfall_id,
                "explanation": pitfall_explanation(pitfall_id, catalogue) if known else "",
                "section": pitfall_section(pitfall_id, catalogue) if known else "",
            }
        )
    return notes


def feedback_view(doc: Mapping[str, Any], catalogue: Catalogue,
                  brief: Mapping[str, tuple[int, ...]] | None = None) -> dict[str, Any]:
    """Return the template context for one score document in the catalogue's language;
    `brief` (each check's TODOs): the short first screen (grader.results.first_screen)."""
    typed = localise(as_document(doc), catalogue)
    localised = to_json(typed)
    checks = typed.checks
    problem = to_json_or_none(typed.problem)
    other_lab = other_lab_note(typed, catalogue)
    # a submission that cannot be loaded, or is another lab's file, says so once, not once per
    # check
    attention = [] if problem or other_lab else [check for check in checks
                                                 if check.status != "passed"]
    waiting: list[Any] = []
    if brief is not None:
        attention, waiting = first_screen(attention, brief)
    return {
        "doc": localised,
        "problem": problem,
        "problem_where": problem_where(typed.problem, catalogue) if typed.problem else "",
        "problem_notice": problem_notice(typed, catalogue) if problem else "",
        "unchecked": unchecked_note(typed, catalogue),
        "other_lab": other_lab,
        "attempt_notes": attempt_notes(typed, catalogue),
        "semester_note": note_lines(typed.semester, catalogue),
        "attention": [check_view(check, catalogue) for check in attention],
        "waiting": waiting,
        "passed": [check_view(check, catalogue, drawn=False)
                   for check in checks if check.status == "passed"],
        "all_passed": bool(checks) and all(check.status == "passed" for check in checks),
        # only public checks ran (`make check`): a clean result there is not the grade
        "public_only": bool(checks) and all(check.visibility == "public" for check in checks),
        "pitfall_notes": pitfall_notes(list(typed.pitfalls), catalogue),
        "grader_error_notice": catalogue.text("ui.grader_error_notice"),
        "lang": catalogue.lang,
        "t": catalogue.text,
    }


def render_feedback(
    doc: Mapping[str, Any], fmt: str, lang: str | None = None, color: bool = False,
    brief: Mapping[str, tuple[int, ...]] | None = None, templates: Path | None = None,
) -> str:
    """Render one score document as terminal text, Markdown or HTML, in lang or the doc's own
    (`brief`: the short first screen, see feedback_view; `templates`: a course's overrides)."""
    [text] = render_feedback_formats(doc, (fmt,), lang, color, brief, templates)
    return text


def render_feedback_formats(
    doc: Mapping[str, Any], fmts: Sequence[str], lang: str | None = None, color: bool = False,
    brief: Mapping[str, tuple[int, ...]] | None = None, templates: Path | None = None,
) -> list[str]:
    """Render one score document in each of `fmts` from one view of it (the localised
    document, its drawn graphs and notes are built once, whatever the number of formats)."""
    unknown = [fmt for fmt in fmts if fmt not in FEEDBACK_TEMPLATES]
    if unknown:
        raise ValueError(f"unknown format {unknown[0]!r}; choose one of: "
                         f"{', '.join(FEEDBACK_TEMPLATES)}")
    context = feedback_view(doc, Catalogue.load(lang or as_document(doc).lang), brief)
    return [environment(templates).get_template(FEEDBACK_TEMPLATES[fmt]).render(
                context, paint=_painter(color and fmt == "terminal")) for fmt in fmts]


def json_text(value: Any) -> str:
    """JSON as the grader's files hold it (scores.json, Gradescope's results.json): indented,
    non-ASCII kept, a final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def report_texts(doc: Mapping[str, Any], templates: Path | None = None) -> dict[str, str]:
    """The files of a submission's report (REPORT_FILES), by name: the document and its
    feedback, every format rendered from one view of it (`templates`: a course's overrides)."""
    formats = {name: fmt for name, fmt in REPORT_FILES.items() if fmt}
    feedback = dict(zip(formats, render_feedback_formats(doc, tuple(formats.values()),
                                                         templates=templates), strict=True))
    return {name: feedback[name] if fmt else json_text(doc) for name, fmt in REPORT_FILES.items()}


def render_notebook_feedback(doc: Mapping[str, Any], notices: Sequence[str], lang: str) -> str:
    """Render the feedback shown under a notebook's check cell: notices, then the HTML feedback."""
    catalogue = Catalogue.load(lang)
    return environment().get_template(NOTEBOOK_TEMPLATE).render(
        notices=notices, page=render_feedback(doc, "html", lang=lang), lang=lang,
        title=catalogue.text("ui.feedback_title", lab=as_document(doc).lab))


def _summary_row(doc: ScoreDocument, catalogue: Catalogue) -> dict[str, str]:
    """Return the cells of one summary row as strings."""
    graded = doc.status == "graded"
    score = catalogue.text(
        "ui.score_value", score=catalogue.number(doc.score),
        max_score=catalogue.number(doc.max_score))
    return {
        "submission": _plain(doc.submission.id),
        "status": catalogue.text(f"ui.status.{doc.status}"),
        "status_id": doc.status,
        "score": score if graded else catalogue.text("ui.summary_no_score"),
        "pitfalls": ", ".join(doc.pitfalls) or catalogue.text("ui.summary_no_pitfalls"),
    }


def isolation_notes(docs: Sequence[Document], catalogue: Catalogue) -> list[dict[str, Any]]:
    """One line per distinct isolation the documents ran under: the full jail as a plain
    line, anything weaker as a warning (documents older than schema 1.1 say nothing)."""
    notes: list[dict[str, Any]] = []
    seen: list[Isolation] = []
    for doc in map(as_document, docs):
        isolation = doc.isolation
        if not isolation or isolation in seen:
            continue
        seen.append(isolation)
        names = {key: catalogue.text(f"ui.isolation_{key}.{value}") for key, value in
                 (("level", isolation.level), ("how", isolation.how), ("memory", isolation.memory))}
        warning = isolation.level != "jail"
        notes.append({"warning": warning, "text": catalogue.text(
            "ui.isolation_warning" if warning else "ui.isolation_line", **names)})
    return notes


def summary_context(documents: Sequence[Document], lang: str) -> dict[str, Any]:
    """Return the class summary as data: headers, one row of strings per document, totals."""
    docs = [as_document(document) for document in documents]
    catalogue = Catalogue.load(lang)
    rows = [_summary_row(doc, catalogue) for doc in docs]
    columns = ("submission", "status", "score")
    headers = {name: catalogue.text(f"ui.summary_{name}") for name in (*columns, "pitfalls")}
    widths = {name: max([len(headers[name])] + [len(row[name]) for row in rows]) for name in columns}
    statuses = [doc.status for doc in docs]
    totals = {"graded": statuses.count("graded"), "ungradable": statuses.count("ungradable"),
              "errors": statuses.count("grader-error")}
    return {
        "rows": rows,
        "headers": headers,
        "widths": widths,
        "count": len(docs),
        "totals": totals,
        "lang": lang,
        "isolation": isolation_notes(docs, catalogue),
        "title": catalogue.text("ui.summary_title", count=str(len(docs))),
        "totals_line": catalogue.text("ui.summary_totals",
                                      **{key: str(value) for key, value in totals.items()}),
        "t": catalogue.text,
    }


def render_summary(docs: Sequence[Document], lang: str,
                   templates: Path | None = None) -> str:
    """Render a plain-text table of submissions: status, score and pitfalls of each."""
    return environment(templates).get_template(SUMMARY_TEMPLATE).render(
        summary_context(docs, lang))


def render_dashboard(docs: Sequence[Document], lang: str,
                     templates: Path | None = None) -> str:
    """Render the class dashboard (HTML): what to reteach, charts, pass rates, submissions
    that need a look of their own, and links to every submission's feedback."""
    from grader.results.dashboard import class_view  # a class's view: `check` never draws one

    catalogue = Catalogue.load(lang)
    context = {**class_view(docs, catalogue), "t": catalogue.text, "lang": catalogue.lang}
    return environment(templates).get_template(DASHBOARD_TEMPLATE).render(context)

