"""grader.results.check_view: one view of a check, the hint rule stated once, and every format's
block rendered from it (the feedback pages, the notebook's, Gradescope's and PrairieLearn's)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from check_blocks import check_block
from markupsafe import escape

from grader.platforms import gradescope, prairielearn
from grader.results.check_view import CheckView, check_view, check_view_from_record, shows_hint
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import localise_document
from grader.results.render import render_feedback, render_notebook_feedback

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLES = sorted(DATA.glob("score_*.json"))
STATUSES = ("passed", "failed", "not-run", "error")
CUT = "\n[... 4096 more bytes not shown]"  # how the sandbox ends output it capped


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def record(status: str, **fields: Any) -> dict[str, Any]:
    """A check record of a score document, every text filled in."""
    return {"id": "diamond-accumulates", "title": "A node used twice accumulates.",
            "pitfall": "grad-overwrite", "status": status, "score": 0.0, "max_score": 2.0,
            "visibility": "hidden", "message": "a.grad is 3 (expected 6.5)",
            "hint": "Look at `+=`.", "section": "README, Pitfall 1",
            "detail": {"kind": "wrong-value", "params": {"actual": 3.0, "expected": 6.5}},
            "output": None, **fields}


@pytest.mark.parametrize("status", STATUSES)
def test_the_hint_shows_only_when_the_students_code_failed(status: str) -> None:
    view = check_view_from_record(record(status), Catalogue.load("en"))
    assert shows_hint(status) is (status == "failed")
    assert view.hint == ("Look at `+=`." if status == "failed" else "")
    # where to read goes with the hint: a failure of the student's code
    assert view.where_to_read == ("README, Pitfall 1" if status == "failed" else "")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_check_that_did_not_run_says_what_to_do_first(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    view = check_view_from_record(record("not-run", message=""), catalogue)
    assert view.what_happened == catalogue.text("ui.not_run_notice")


@pytest.mark.parametrize(("message", "apologises"), [("", True), ("boom", True),
                                                      ("boom. {notice}", False)])
def test_a_grader_error_says_it_is_not_the_students_fault_once(message: str,
                                                               apologises: bool) -> None:
    catalogue = Catalogue.load("en")
    notice = catalogue.text("ui.grader_error_notice")
    view = check_view_from_record(record("error", message=message.format(notice=notice)),
                                  catalogue)
    assert view.grader_error_notice == (notice if apologises else "")


def test_expected_and_actual_are_formatted_to_read_differently() -> None:
    detail = {"kind": "wrong-value", "params": {"actual": -0.9999999999999999, "expected": -1}}
    view = check_view_from_record(record("failed", detail=detail), Catalogue.load("es"))
    assert view.expected is not None and view.actual is not None
    assert view.expected != view.actual
    assert "," in view.actual  # the Spanish decimal mark
    no_values = check_view_from_record(record("failed", detail=None), Catalogue.load("en"))
    assert (no_values.expected, no_values.actual) == (None, None)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_capped_output_ends_with_the_cut_note_in_the_readers_language(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    view = check_view_from_record(record("failed", output="x" * 10 + CUT), catalogue)
    assert view.output == "x" * 10 + "\n" + catalogue.text("ui.output_cut", omitted="4096")


def test_a_graph_is_drawn_only_when_asked() -> None:
    doc = load(DATA / "score_graphs.json")
    with_graph = next(check for check in doc["checks"] if (check.get("detail") or {}).get("graph"))
    catalogue = Catalogue.load("en")
    assert check_view_from_record(with_graph, catalogue).graph is not None
    assert check_view_from_record(with_graph, catalogue, drawn=False).graph is None


def _views(doc: dict[str, Any], lang: str, drawn: bool = True) -> list[CheckView]:
    catalogue = Catalogue.load(lang)
    return [check_view_from_record(check, catalogue, drawn)
            for check in localise_document(doc, catalogue)["checks"]]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", SAMPLES, ids=lambda path: path.stem)
def test_every_feedback_page_shows_each_check_as_its_views_block(path: Path, lang: str) -> None:
    doc = load(path)
    shown = [] if doc.get("problem") else [v for v in _views(doc, lang) if v.status != "passed"]
    for fmt in ("terminal", "markdown", "html"):
        page = render_feedback(doc, fmt, lang)
        for view in shown:
            assert check_block(view, fmt, lang) in page, (fmt, view.id)
        if fmt == "html":
            assert str(escape(page)) in render_notebook_feedback(doc, [], lang)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda path: path.stem)
def test_the_platforms_tests_are_their_views_blocks(path: Path) -> None:
    doc = load(path)
    lang = doc["lang"]
    views = _views(doc, lang, drawn=False)
    tests = gradescope.results(doc, "visible")["tests"] if doc["status"] == "graded" else []
    for view, test in zip(views, tests, strict=True):
        expected = "" if view.status == "passed" else \
            check_block(view, "markdown", lang, in_page=False).strip()
        assert test["output"] == expected, view.id
    withheld = prairielearn.withhold_hidden(localise_document(doc, Catalogue.load(lang)))
    notice = Catalogue.load(lang).text("platforms.prairielearn.hidden_check")
    found = prairielearn.results(doc).get("tests", [])
    for check, test in zip(withheld.checks, found, strict=True):
        view = check_view(check, Catalogue.load(lang), drawn=False)
        expected = "" if view.status == "passed" else \
            check_block(view, "text", lang, withheld_notice=notice).strip()
        assert test["message"] == expected, view.id


def test_a_not_run_check_never_shows_a_hint_in_any_format() -> None:
    """The hand-written sample gives a not-run check a hint (the builder never writes one): no
    format shows it, the feedback pages as the platforms."""
    doc = load(DATA / "score_mixed.json")
    not_run = next(check for check in doc["checks"] if check["status"] == "not-run")
    assert not_run["hint"], "the sample's not-run check lost its hint; pick another case"
    texts = [render_feedback(doc, fmt) for fmt in ("terminal", "markdown", "html")]
    texts.append(json.dumps(gradescope.results(doc, "visible"), ensure_ascii=False))
    texts.append(json.dumps(prairielearn.results(doc), ensure_ascii=False))
    first_words = " ".join(not_run["hint"].split()[:6])
    for text in texts:
        assert first_words not in " ".join(text.split())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_platforms_show_a_capped_output_with_the_localised_cut_note(lang: str) -> None:
    doc = copy.deepcopy(load(DATA / "score_mixed.json"))
    doc["lang"] = lang
    failed = next(check for check in doc["checks"]
                  if check["status"] == "failed" and check["visibility"] == "public")
    failed["output"] = "printed" + CUT
    shown = "printed\n" + Catalogue.load(lang).text("ui.output_cut", omitted="4096")
    [output] = [test["output"] for test in gradescope.results(doc, "visible")["tests"]
                if test["extra_data"]["check"] == failed["id"]]
    assert shown in output
    assert [test["output"] for test in prairielearn.results(doc)["tests"]
            if test["output"]] == [shown]
