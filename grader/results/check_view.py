"""One check as every feedback format shows it: the view the check macros render (templates/check/).

Side: trusted process (results). A check record of the score document (localised: its texts in
the reader's language, see grader.results.messages.localise_document), read as its typed record
(grader.results.score_document.Check), becomes one `CheckView`, built once by `check_view`
(`check_view_from_record` from the record's JSON); the terminal, Markdown, HTML and notebook feedback and the
platforms' test outputs all render that view, each through the one macro of its format
(templates/check/block.terminal.j2, block.md.j2, block.html.j2, block.txt.j2). What a check shows is decided
here, once: the hint (`shows_hint`), where to read, the grader's apology, the output with its
cut note in the reader's language, the graph. The templates only lay it out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grader.results.i18n import Catalogue
from grader.results.messages import format_pair
from grader.results.score_document import Check, Detail, Graph, parse_record

# How the sandbox and the plugin end output they capped (grader/grading/sandbox/sandbox.py,
# grader/grading/plugin.py); the view shows that note in the reader's language.
_OUTPUT_CUT = re.compile(r"\n\[\.\.\. (\d+) more bytes not shown\]$")


def shows_hint(status: str) -> bool:
    """The hint rule: a check carries its hint only when the student's code failed it (not when
    it did not run, nor when the grader failed, nor when it passed)."""
    return status == "failed"


@dataclass(frozen=True)
class GraphView:
    """A check's computation graph, ready to draw: the positioned SVG data, the rows of its text
    tree, and the order `_backward` was called in (None: not recorded)."""

    drawing: Mapping[str, Any]
    tree: list[dict[str, Any]]
    calls: list[str] | None


@dataclass(frozen=True)
class CheckView:
    """One check as the student reads it, in one language; an empty text is not shown."""

    id: str
    title: str
    status: str  # passed, failed, not-run, error
    score: float
    max_score: float
    hidden: bool  # a hidden check (the graded suite's), not one of the student's public checks
    what_happened: str  # the sentence of the detail (inputs, expected, actual), or why it did not run
    expected: str | None  # the detail's expected value, formatted (None: it has none)
    actual: str | None  # the value the student's code gave, formatted against `expected`
    graph: GraphView | None
    grader_error_notice: str  # "not a problem with your code", unless the message says it
    hint: str  # why it matters and where to look (shows_hint)
    where_to_read: str  # the course section (README) that explains it, for a failure
    output: str  # what the student's code printed, its cut note in the reader's language


def graph_view(recorded: Graph | None, catalogue: Catalogue) -> GraphView | None:
    """The drawing (positioned SVG data) and text-tree rows of a detail's graph, if it has one
    that is well formed (graph_drawing.parse_graph: nodes the edges name, within its caps);
    None otherwise."""
    if recorded is None:
        return None
    # Imported here: most feedback draws no graph, and a student's check should not pay for it.
    from grader.results.graph_drawing import ROW_KEYS, drawable, drawing, tree_rows

    graph = drawable(recorded)
    if graph is None:
        return None
    labels = {key: catalogue.text(f"ui.graph.label_{key}") for key in ROW_KEYS}
    return GraphView(drawing(graph, labels, catalogue.lang), tree_rows(graph, catalogue.lang),
                     list(graph.calls) if graph.calls is not None else None)


def output_text(output: str, catalogue: Catalogue) -> str:
    """A check's captured output, its cut note (if capped) in the catalogue's language."""
    cut = _OUTPUT_CUT.search(output)
    if cut is None:
        return output
    return output[: cut.start()] + "\n" + catalogue.text("ui.output_cut", omitted=cut.group(1))


def _expected_actual(detail: Detail | None,
                     catalogue: Catalogue) -> tuple[str | None, str | None]:
    params = detail.params if detail is not None else {}
    if "expected" not in params or "actual" not in params:
        return None, None
    actual, expected = format_pair(params["actual"], params["expected"], lang=catalogue.lang)
    return expected, actual


def _what_happened(check: Check, catalogue: Catalogue) -> str:
    """The detail's sentence; for a check that did not run, what to do first."""
    if not check.message and check.status == "not-run":
        return catalogue.text("ui.not_run_notice")
    return check.message


def check_view(check: Check, catalogue: Catalogue, drawn: bool = True) -> CheckView:
    """The view of one localised check (`drawn`: with its graph drawn, when it has one: only
    the checks shown in full need it)."""
    notice = catalogue.text("ui.grader_error_notice")
    detail = check.detail
    expected, actual = _expected_actual(detail, catalogue)
    return CheckView(
        id=check.id,
        title=check.title,
        status=check.status,
        score=float(check.score),
        max_score=float(check.max_score),
        hidden=check.visibility == "hidden",
        what_happened=_what_happened(check, catalogue),
        expected=expected,
        actual=actual,
        graph=graph_view(detail.graph, catalogue) if drawn and detail is not None else None,
        grader_error_notice=notice if check.status == "error" and notice not in check.message
        else "",
        hint=check.hint if shows_hint(check.status) else "",
        where_to_read=check.section if check.status == "failed" else "",
        output=output_text(check.output, catalogue) if check.output else "",
    )


def check_view_from_record(record: Mapping[str, Any], catalogue: Catalogue,
                           drawn: bool = True) -> CheckView:
    """The view of one localised check record of a score document's JSON (read as its typed
    record, grader.results.score_document.Check: a record not shaped so is a DocumentError)."""
    return check_view(parse_record(Check, record, "check"), catalogue, drawn)
