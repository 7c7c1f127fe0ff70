"""Tests for grader.results.graph_layout: boxes of given sizes placed, edges routed, positions only."""

from __future__ import annotations

import itertools

from grader.results.graph_layout import NODE_GAP, Block, _isotonic, layout

EDGES = [("a", "x"), ("b", "x"), ("x", "out"), ("a", "out")]  # a also feeds the output: a skip


def blocks(*names: str, width: float = 60.0, height: float = 40.0) -> list[Block]:
    return [Block(name, width, height, has_op=name not in ("a", "b")) for name in names]


def test_pooling_adjacent_violators_gives_the_closest_non_decreasing_sequence() -> None:
    assert _isotonic([3.0, 1.0, 2.0]) == [2.0, 2.0, 2.0]
    assert _isotonic([1.0, 3.0, 2.0, 4.0]) == [1.0, 2.5, 2.5, 4.0]


def test_boxes_keep_their_sizes_and_a_column_keeps_them_apart() -> None:
    placed = layout(blocks("a", "b", "x", "out"), EDGES, "out")
    assert {(box.width, box.height) for box in placed.boxes} == {(60.0, 40.0)}
    for one, other in itertools.combinations(placed.boxes, 2):
        if one.column == other.column:
            upper, lower = sorted((one, other), key=lambda box: box.top)
            assert lower.top - (upper.top + upper.height) >= NODE_GAP - 1e-9


def test_parents_sit_in_columns_left_of_their_children_and_the_drawing_holds_every_box() -> None:
    placed = layout(blocks("a", "b", "x", "out"), EDGES, "out")
    column = {box.name: box.column for box in placed.boxes}
    assert all(column[parent] < column[child] for parent, child in EDGES)
    assert all(box.x + box.width < placed.width and box.top + box.height < placed.height
               for box in placed.boxes)


def test_an_edge_that_skips_a_column_is_routed_around_its_boxes() -> None:
    placed = layout(blocks("a", "b", "x", "out"), EDGES, "out")
    [skip] = [path for path in placed.paths if (path.parent, path.child) == ("a", "out")]
    lane = skip.curves[0]["y2"]
    [x] = [box for box in placed.boxes if box.name == "x"]
    assert len(skip.curves) == 2 and not x.top < lane < x.top + x.height


def test_a_cycle_is_laid_out_with_its_closing_edge_marked_back() -> None:
    placed = layout(blocks("a", "x", "out"), [("a", "x"), ("x", "out"), ("out", "x")], "out")
    assert [(p.parent, p.child) for p in placed.paths if p.back] == [("out", "x")]
