"""The HTML reports opened in headless Chromium, as a student or an instructor would see them:
self-contained (no request leaves the page), no console error, no sideways scrolling on a
phone (375 px) or a laptop (1280 px), every SVG titled, and the wrong nodes of every drawn
graph visibly highlighted inside their drawing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import headless
import pytest
from conftest import CLASS_SIZE, LAB01_FIXTURES, LATER_FIXTURES, SPANISH_ID, WIDTHS

PAGES = [p.name for p in LAB01_FIXTURES] + [f"{SPANISH_ID}.es"]
LATER_PAGES = [f"{lab}/{name}" for lab, names in LATER_FIXTURES.items() for name in names]
LATER_PAGES.append(f"{LATER_PAGES[0]}.es")
# The highlight must be visible, not only present: the outline of a wrong node.
HIGHLIGHT_STROKE = "rgb(207, 34, 46)"

SVG_TITLES = """() => Array.from(document.querySelectorAll('svg')).map(svg => {
  const title = Array.from(svg.children).find(child => child.tagName.toLowerCase() === 'title');
  return title ? title.textContent.trim() : '';
})"""
SCROLL = "() => [document.documentElement.scrollWidth, window.innerWidth]"
# For each node marked wrong in one drawing: its name, its box, its outline colour; and the
# drawing's own box (one round trip instead of one per node).
WRONG_NODES = """svg => ({
  svg: svg.getBoundingClientRect().toJSON(),
  nodes: Array.from(svg.querySelectorAll('g.node.wrong')).map(g => {
    const rect = g.querySelector('rect');
    return {name: g.dataset.node, box: rect.getBoundingClientRect().toJSON(),
            stroke: getComputedStyle(rect).stroke};
  })
})"""


def assert_self_contained_and_fits(page: Any, log: headless.PageLog, width: int) -> None:
    assert log.requests == [], f"requests left the page: {log.requests}"
    assert log.console_errors == [] and log.page_errors == [], (log.console_errors,
                                                                log.page_errors)
    scroll_width, inner_width = page.evaluate(SCROLL)
    assert scroll_width <= inner_width == width, f"scrolls sideways: {scroll_width} > {width}"
    titles = page.evaluate(SVG_TITLES)
    assert all(titles), f"an SVG without a title: {titles}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PAGES)
def test_feedback_page_is_self_contained_and_fits(
        viewers: dict[int, headless.Viewer], lab01_pages: dict[str, tuple[Path, dict[str, Any]]],
        name: str, width: int) -> None:
    path, _doc = lab01_pages[name]
    page, log = viewers[width].open(path)
    assert_self_contained_and_fits(page, log, width)


def drawn_checks(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in doc["checks"] if (c.get("detail") or {}).get("graph")]


def assert_wrong_nodes_highlighted(page: Any, doc: dict[str, Any]) -> None:
    """Every drawn graph of the page outlines exactly its wrong nodes, visibly, inside it."""
    assert page.locator("figure.graph svg").count() == len(drawn_checks(doc))
    for check in drawn_checks(doc):
        wrong = {n["name"] for n in check["detail"]["graph"]["nodes"] if n["wrong"]}
        drawn = page.locator(f"#graph-{check['id']} svg").evaluate(WRONG_NODES)
        assert {node["name"] for node in drawn["nodes"]} == wrong, check["id"]
        assert len(drawn["nodes"]) == len(wrong), check["id"]
        svg = drawn["svg"]
        for node in drawn["nodes"]:
            box = node["box"]
            assert box["width"] > 0 and box["height"] > 0, (check["id"], node)
            assert svg["left"] - 0.5 <= box["left"] and box["right"] <= svg["right"] + 0.5, (
                check["id"], node, svg)
            assert svg["top"] - 0.5 <= box["top"] and box["bottom"] <= svg["bottom"] + 0.5, (
                check["id"], node, svg)
            assert node["stroke"] == HIGHLIGHT_STROKE, (check["id"], node)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PAGES)
def test_wrong_nodes_are_highlighted_inside_their_drawing(
        viewers: dict[int, headless.Viewer], lab01_pages: dict[str, tuple[Path, dict[str, Any]]],
        name: str, width: int) -> None:
    path, doc = lab01_pages[name]
    page, _log = viewers[width].open(path)
    assert_wrong_nodes_highlighted(page, doc)


# The checks of the later labs' fixtures that must draw their graph with a wrong node outlined:
# an operation's expression (lab02, public and hidden), the expression tree, the ladder of an
# order check and the shrunk random counterexample (lab03).
LATER_DRAWN = {
    "lab02_ops/sub-overwrites-grad": {"example-sub-reused-input", "sub-accumulates"},
    "lab02_ops/tanh-derivative-sign": {"example-tanh-derivative", "tanh-local-derivative"},
    "lab03_backprop/forward-order": {"example-tree-gradients", "backward-on-expression-tree"},
    "lab03_backprop/kahn-counts-parents-once": {"random-dags-match-reference"},
    "lab03_backprop/preorder-dfs": {"example-ladder-order", "ladder-backward-in-topological-order"},
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", LATER_PAGES)
def test_later_labs_draw_their_failing_graphs_with_the_wrong_node_outlined(
        viewers: dict[int, headless.Viewer],
        later_lab_pages: dict[str, tuple[Path, dict[str, Any]]], name: str, width: int) -> None:
    path, doc = later_lab_pages[name]
    page, log = viewers[width].open(path)
    assert_self_contained_and_fits(page, log, width)
    expected = LATER_DRAWN[name.removesuffix(".es")]
    drawn = {check["id"] for check in drawn_checks(doc)
             if any(node["wrong"] for node in check["detail"]["graph"]["nodes"])}
    assert expected <= drawn, f"{name}: not drawn with a wrong node: {expected - drawn}"
    assert_wrong_nodes_highlighted(page, doc)


def test_some_fixture_pages_draw_graphs(lab01_pages: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    drawn = {name for name, (_path, doc) in lab01_pages.items() if drawn_checks(doc)}
    assert {"grad-overwrite-in-mul", "forward-order", "no-visited-set",
            f"{SPANISH_ID}.es"} <= drawn


def test_the_spanish_page_is_in_spanish(
        viewers: dict[int, headless.Viewer],
        lab01_pages: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    path, _doc = lab01_pages[f"{SPANISH_ID}.es"]
    page, _log = viewers[1280].open(path)
    assert page.evaluate("document.documentElement.lang") == "es"
    assert "esperado" in page.locator("figure.graph").first.inner_text()


@pytest.mark.parametrize("width", WIDTHS)
def test_class_dashboard_of_300_is_self_contained_and_fits(
        viewers: dict[int, headless.Viewer], class_dashboard: Path, width: int) -> None:
    page, log = viewers[width].open(class_dashboard)
    assert_self_contained_and_fits(page, log, width)
    assert page.locator("svg.chart").count() == 2
    assert page.locator("table.students a[href$='/feedback.html']").count() == CLASS_SIZE
    warnings = page.locator("#isolation ~ table.stack").first.locator("tbody tr")
    assert warnings.count() == len(range(0, CLASS_SIZE, 37))


def test_a_page_that_fetches_is_caught(viewers: dict[int, headless.Viewer],
                                       tmp_path: Path) -> None:
    page_path = tmp_path / "fetches.html"
    page_path.write_text('<!DOCTYPE html><html lang="en"><title>x</title>'
                         '<img src="https://example.org/x.png" alt=""></html>', encoding="utf-8")
    _page, log = viewers[375].open(page_path)
    assert log.requests == ["https://example.org/x.png"]
