"""Every fixture's score document (each lab's class, graded once per session: tests/graded_classes.py)
rendered in every format, each check from its one view: the terminal feedback (English and
Spanish, whole and as `check`'s first screen), the Markdown and HTML pages, the notebook's, and
the Gradescope and PrairieLearn tests. Grouped with the lab's test_lab_fixtures tests (conftest.py),
so each class is graded once."""

from __future__ import annotations

from typing import Any

import pytest
from check_blocks import check_block
from graded_classes import ALL_FIXTURES, LAB_FOLDERS
from markupsafe import escape

from grader.common.labs import LABS
from grader.grading.checking.todos import public_checks_by_todo
from grader.platforms import gradescope, prairielearn
from grader.results.check_view import CheckView, check_view, check_view_from_record
from grader.results.first_screen import first_screen
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import localise, localise_document
from grader.results.render import environment, render_feedback, render_notebook_feedback
from grader.results.score_document import as_document

# Each lab's fixtures, then its reference solution and its unedited stub.
CASES = [(fixture.folder, fixture.name) for fixture in ALL_FIXTURES if fixture.folder in LABS] \
    + [(lab, name) for lab in LAB_FOLDERS for name in ("solution", "stub")]


def document(graded: Any, lab: str, name: str) -> dict[str, Any]:
    run = graded(lab)
    return {"solution": run.solution, "stub": run.stub}.get(name) or run.fixtures[name]


def todos_of_checks(lab: str) -> dict[str, tuple[int, ...]]:
    """The TODOs each public check judges, as `check` gives them to its first screen."""
    found: dict[str, tuple[int, ...]] = {}
    for todo, ids in public_checks_by_todo(LABS[lab]).items():
        for check_id in ids:
            found[check_id] = (*found.get(check_id, ()), todo)
    return found


def md_text(text: str) -> str:
    return str(environment().filters["md_text"](text))


def passed_views(doc: dict[str, Any], catalogue: Catalogue) -> list[CheckView]:
    return [check_view_from_record(check, catalogue, drawn=False)
            for check in localise_document(doc, catalogue)["checks"] if check["status"] == "passed"]


def shown_in_full(doc: dict[str, Any], catalogue: Catalogue,
                  brief: dict[str, tuple[int, ...]] | None = None) -> list[CheckView]:
    """The views of the checks a feedback page shows in full (first_screen: on `check`'s)."""
    localised = localise(as_document(doc), catalogue)
    if localised.problem:
        return []
    records = [check for check in localised.checks if check.status != "passed"]
    if brief is not None:
        records = list(first_screen(records, brief)[0])
    return [check_view(check, catalogue) for check in records]


@pytest.mark.parametrize(("lab", "name"), CASES, ids=[f"{lab}/{name}" for lab, name in CASES])
def test_every_format_renders_each_check_from_its_view(graded: Any, lab: str, name: str) -> None:
    doc = document(graded, lab, name)
    for lang in LANGUAGES:
        catalogue = Catalogue.load(lang)
        views = shown_in_full(doc, catalogue)
        for fmt in ("terminal", "markdown", "html"):
            page = render_feedback(doc, fmt, lang)
            assert all(check_block(view, fmt, lang) in page for view in views), (fmt, lang)
            if fmt == "markdown":  # the passed checks, listed by their views' titles
                assert all(f"- {md_text(view.title)} (" in page
                           for view in passed_views(doc, catalogue)), lang
        html = render_feedback(doc, "html", lang)
        assert str(escape(html)) in render_notebook_feedback(doc, [], lang)
        brief = todos_of_checks(lab)
        screen = render_feedback(doc, "terminal", lang, brief=brief)
        assert all(check_block(view, "terminal", lang) in screen
                   for view in shown_in_full(doc, catalogue, brief)), lang


@pytest.mark.parametrize(("lab", "name"), CASES, ids=[f"{lab}/{name}" for lab, name in CASES])
def test_the_platforms_tests_are_each_checks_view(graded: Any, lab: str, name: str) -> None:
    doc = document(graded, lab, name)
    lang = doc["lang"]
    catalogue = Catalogue.load(lang)
    localised = localise_document(doc, catalogue)
    views = [check_view_from_record(check, catalogue, drawn=False)
             for check in localised["checks"]]
    tests = gradescope.results(doc, "visible")["tests"]
    assert [test["output"] for test in tests] == [
        "" if view.status == "passed" else
        check_block(view, "markdown", lang, in_page=False).strip() for view in views]
    found = prairielearn.results(doc)
    if found["gradable"]:
        notice = catalogue.text("platforms.prairielearn.hidden_check")
        withheld = prairielearn.withhold_hidden(localised).checks
        expected = [check_view(check, catalogue, drawn=False) for check in withheld]
        assert [test["message"] for test in found["tests"]] == [
            "" if view.status == "passed" else
            check_block(view, "text", lang, withheld_notice=notice).strip()
            for view in expected]
