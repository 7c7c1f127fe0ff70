"""Fixtures for the browser tests: a headless Chromium, the graded lab01 fixtures' feedback
pages (the session's lab01 class: tests/conftest.py) and the dashboard of a 300-submission
class, written once per session.

Without Chromium (or Playwright) these tests skip with a message; with CI set they fail.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import headless
import pytest

from grader.common.labs import LABS
from grader.grading.batch import BatchOptions, grade_class, write_reports
from grader.grading.shard import GradingPlan, suites_for
from grader.results.render import render_dashboard

ROOT = Path(__file__).resolve().parents[2]
LAB01_FIXTURES = sorted(p for p in (ROOT / "tests" / "fixtures" / "lab01_graph").iterdir()
                        if p.is_dir())
SPANISH_ID = "grad-overwrite-in-mul"  # its feedback is also rendered in Spanish
CLASS_SIZE = 300
WIDTHS = (375, 1280)
# Fixtures of the later labs whose failures draw a graph: an operation's small graph (lab02),
# the expression tree, an order check's ladder and a shrunk random counterexample (lab03).
LATER_FIXTURES = {"lab02_ops": ("sub-overwrites-grad", "tanh-derivative-sign"),
                  "lab03_backprop": ("forward-order", "kahn-counts-parents-once", "preorder-dfs")}


# Module scope: the browser is gone before the rest of the suite runs, whose sandbox tests
# sweep leftover processes and would take the browser's driver with them.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium; the test skips (or, with CI set, fails) when there is none."""
    reason = headless.unavailable_reason()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run in CI: {reason}", pytrace=False)
        pytest.skip(f"browser tests skipped: {reason}")
    with headless.launched() as launched:
        yield launched


@pytest.fixture(scope="module")
def viewers(browser: Any) -> Iterator[dict[int, headless.Viewer]]:
    """A phone-sized (375 px) and a laptop-sized (1280 px) viewer, reused by every test."""
    opened = {width: headless.Viewer(browser, width) for width in WIDTHS}
    yield opened
    for viewer in opened.values():
        viewer.close()


@pytest.fixture(scope="session")
def lab01_pages(graded: Callable[[str], Any]) -> dict[str, tuple[Path, dict[str, Any]]]:
    """{page name: (feedback.html, its score document)} for every lab01 fixture graded with the
    hidden suite (the batch test_lab_fixtures.py reads, graded once: tests/conftest.py), plus
    one Spanish page (`<id>.es`)."""
    run = graded("lab01_graph")
    pages = {name: (run.out_dir / doc["submission"]["id"] / "feedback.html", doc)
             for name, doc in run.fixtures.items()}
    assert sorted(pages) == [p.name for p in LAB01_FIXTURES], "a lab01 fixture without its page"
    spanish = copy.deepcopy(pages[SPANISH_ID][1])
    spanish["lang"], spanish["submission"]["id"] = "es", f"{SPANISH_ID}.es"
    folder = write_reports(_rerendered_in_spanish(spanish), run.out_dir)
    pages[f"{SPANISH_ID}.es"] = (folder / "feedback.html", spanish)
    return pages


def _rerendered_in_spanish(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as `render --lang es` would show it: texts rebuilt in Spanish."""
    from grader.results.i18n import Catalogue
    from grader.results.messages import localise_document

    english = {**doc, "lang": "en"}
    return localise_document(english, Catalogue.load("es"))


@pytest.fixture(scope="session")
def class_dashboard(lab01_pages: dict[str, tuple[Path, dict[str, Any]]],
                    tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dashboard.html of a 300-submission class made of the graded fixtures' documents under
    new ids, with some not gradable and some graded below the full isolation."""
    graded = [doc for name, (_path, doc) in sorted(lab01_pages.items()) if not name.endswith(".es")]
    docs = []
    for index in range(CLASS_SIZE):
        doc = copy.deepcopy(graded[index % len(graded)])
        doc["submission"]["id"] = f"student-{index:03d}"
        doc["isolation"] = ({"level": "uid", "how": "setuid", "memory": "per-process"}
                            if index % 37 == 0
                            else {"level": "jail", "how": "root", "memory": "cgroup"})
        if index % 53 == 0:
            doc.update(status="ungradable", score=0.0, max_score=0.0, checks=[], pitfalls=[],
                       reason={"kind": "missing-file", "params": {"file": "value.py"},
                               "text": "The submission has no value.py."})
        docs.append(doc)
    out = tmp_path_factory.mktemp("class-300")
    path = out / "dashboard.html"
    path.write_text(render_dashboard(docs, "en"), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def later_lab_pages(tmp_path_factory: pytest.TempPathFactory
                    ) -> dict[str, tuple[Path, dict[str, Any]]]:
    """{"<lab>/<fixture>": (feedback.html, its score document)} for LATER_FIXTURES, graded with
    the hidden suite (a few submissions: the lab's whole class is test_lab_fixtures.py's), plus
    the first lab02 page in Spanish (`<lab>/<fixture>.es`)."""
    pages: dict[str, tuple[Path, dict[str, Any]]] = {}
    for folder, names in LATER_FIXTURES.items():
        lab = LABS[folder]
        out = tmp_path_factory.mktemp(folder)
        paths = [ROOT / "tests" / "fixtures" / folder / name for name in names]
        docs = grade_class(GradingPlan(lab, suites_for(lab, hidden=True), "fixtures", "en"),
                           paths, BatchOptions(out_dir=out, workers=1), lambda *_: None)
        for name, doc in zip(names, docs, strict=True):
            pages[f"{folder}/{name}"] = (out / doc["submission"]["id"] / "feedback.html", doc)
    first = f"lab02_ops/{LATER_FIXTURES['lab02_ops'][0]}"
    spanish = copy.deepcopy(pages[first][1])
    spanish["lang"], spanish["submission"]["id"] = "es", f"{spanish['submission']['id']}.es"
    folder = write_reports(_rerendered_in_spanish(spanish), pages[first][0].parents[1])
    pages[f"{first}.es"] = (folder / "feedback.html", spanish)
    return pages
