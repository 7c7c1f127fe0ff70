"""The similarity report (templates/similarity.html.j2) opened in headless Chromium, as the
dashboard is: self-contained, no console error, no sideways scrolling on a phone (375 px) or a
laptop (1280 px); shared lines visibly marked and given lines greyed; the two sides of a region
beside each other on a laptop and one above the other on a phone."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import headless
import pytest
from conftest import WIDTHS
from test_pages_in_chromium import assert_self_contained_and_fits

from grader.common.labs import LABS
from grader.intake.collect import Submission
from grader.similarity.command import SimilarityRun, write_similarity
from grader.similarity.report import ReportOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "similarity"))
from corpus import independent_engines  # noqa: E402 - the corpus helpers live beside their tests
from disguises import SOURCE_DISGUISES  # noqa: E402

LAB = "lab01_graph"
LINE_STYLE = """kind => { const line = document.querySelector('.line.' + kind);
  const style = getComputedStyle(line);
  return {background: style.backgroundColor, color: style.color}; }"""
FIRST_REGION = """() => Array.from(document.querySelector('.sides').querySelectorAll('figure.side'))
  .map(figure => figure.getBoundingClientRect().toJSON())"""


@pytest.fixture(scope="module")
def report_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The report of a class of the lab01 engines and a disguised copy of each of four, in
    English and in Spanish with pseudonyms."""
    folder = tmp_path_factory.mktemp("similarity-class")
    submissions = []
    engines = independent_engines(LAB)
    for index, engine in enumerate(engines):
        (folder / f"s{index:02d}").mkdir()
        (folder / f"s{index:02d}" / "value.py").write_text(engine.source, encoding="utf-8")
        submissions.append(Submission(f"s{index:02d}", folder / f"s{index:02d}"))
    for index, disguise in enumerate(("all-at-once", "renamed", "helper-extracted", "recommented")):
        engine = engines[index + 5]
        copy = folder / f"copy-{disguise}"
        copy.mkdir()
        (copy / "value.py").write_text(SOURCE_DISGUISES[disguise](engine.source), encoding="utf-8")
        submissions.append(Submission(copy.name, copy))
    pages = {}
    for lang, pseudonyms in (("en", False), ("es", True)):
        out = folder / f"report-{lang}"
        written = write_similarity(LABS[LAB], submissions, out,
                                   SimilarityRun(lang, ReportOptions(), pseudonyms=pseudonyms))
        pages[lang] = written.html
    return pages


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_similarity_report_is_self_contained_and_fits(
        viewers: dict[int, headless.Viewer], report_pages: dict[str, Path], lang: str,
        width: int, tmp_path: Path) -> None:
    page, log = viewers[width].open(report_pages[lang])
    assert_self_contained_and_fits(page, log, width)
    assert page.locator("section.pair").count() >= 4
    shot = tmp_path / f"similarity-{lang}-{width}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000, "an empty screenshot"


def test_shared_lines_are_marked_and_given_lines_greyed(
        viewers: dict[int, headless.Viewer], report_pages: dict[str, Path]) -> None:
    page, _log = viewers[1280].open(report_pages["en"])
    shared, given, own = (page.evaluate(LINE_STYLE, kind) for kind in ("shared", "given", "own"))
    assert shared["background"] not in (own["background"], "rgba(0, 0, 0, 0)"), (shared, own)
    assert given["color"] != own["color"], (given, own)


def test_the_two_sides_stand_beside_each_other_on_a_laptop_and_stack_on_a_phone(
        viewers: dict[int, headless.Viewer], report_pages: dict[str, Path]) -> None:
    boxes: dict[int, list[dict[str, Any]]] = {}
    for width in WIDTHS:
        page, _log = viewers[width].open(report_pages["en"])
        boxes[width] = page.evaluate(FIRST_REGION)
    laptop, phone = boxes[1280], boxes[375]
    assert laptop[0]["top"] == laptop[1]["top"] and laptop[1]["left"] > laptop[0]["right"]
    assert phone[1]["top"] >= phone[0]["bottom"] and phone[0]["right"] <= 375
