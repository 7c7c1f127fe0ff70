"""Tests for grader.results.graph_drawing and graph_layout: the detail graph is validated, laid out
and written as a tree."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from grader.results.graph_drawing import (
    MAX_NODES,
    Graph,
    drawing,
    parse_graph,
    tree_rows,
    wrong_reasons,
)
from grader.results.graph_layout import _crossings
from grader.results.render import render_feedback

DATA = Path(__file__).parent / "data"
LABELS = {"data": "data", "grad": "grad", "expected_grad": "expected"}


def sample_graph(check_id: str) -> dict[str, Any]:
    """The detail graph of one check of tests/data/score_graphs.json."""
    doc = json.loads((DATA / "score_graphs.json").read_text(encoding="utf-8"))
    check = next(check for check in doc["checks"] if check["id"] == check_id)
    return copy.deepcopy(check["detail"]["graph"])


def node(name: str, op: str = "", wrong: bool = False, grad: float | None = 1.0,
         expected: float | None = 1.0) -> dict[str, Any]:
    return {"name": name, "op": op, "data": 1.0, "grad": grad, "expected_grad": expected,
            "wrong": wrong}


def edges(*pairs: str) -> list[dict[str, str]]:
    """Edges written 'a>b'."""
    return [{"from": pair.split(">")[0], "to": pair.split(">")[1]} for pair in pairs]


def parsed(raw: dict[str, Any]) -> Graph:
    graph = parse_graph(raw)
    assert graph is not None
    return graph


SIBLING = "backward-runs-in-topological-order"


def test_a_well_formed_graph_parses() -> None:
    graph = parsed(sample_graph(SIBLING))
    assert [n.name for n in graph.nodes][:2] == ["a", "b"]
    assert ("x", "x*c") in graph.edges
    assert graph.calls == ("out", "x*c", "x", "x*d")
    assert graph.output == "out"


MALFORMED = {
    "not a mapping": lambda g: ["nodes"],
    "no nodes": lambda g: {**g, "nodes": []},
    "edge to an unknown node": lambda g: {**g, "edges": g["edges"] + edges("a>zz")},
    "duplicate names": lambda g: {**g, "nodes": g["nodes"] + [node("a")]},
    "boolean gradient": lambda g: {**g, "nodes": [{**g["nodes"][0], "grad": True}]},
    "infinite data": lambda g: {**g, "nodes": [{**g["nodes"][0], "data": float("inf")}]},
    "empty name": lambda g: {**g, "nodes": [node("")]},
    "wrong not a boolean": lambda g: {**g, "nodes": [{**g["nodes"][0], "wrong": 1}]},
    "call of an unknown node": lambda g: {**g, "calls": ["out", "nobody"]},
    "unknown output": lambda g: {**g, "output": "nobody"},
    "too many nodes": lambda g: {"nodes": [node(f"n{k}") for k in range(MAX_NODES + 1)],
                                 "edges": []},
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_graph_is_not_drawn(case: str) -> None:
    assert parse_graph(MALFORMED[case](sample_graph(SIBLING))) is None


@pytest.mark.parametrize("check_id", [SIBLING, "diamond-accumulates", "self-add-accumulates"])
def test_boxes_stay_inside_the_drawing_and_never_overlap(check_id: str) -> None:
    drawn = drawing(parsed(sample_graph(check_id)), LABELS)
    boxes = drawn["nodes"]
    for box in boxes:
        assert box["x"] - (drawn["op_radius"] * 2 if box["op"] else 0) >= 0 and box["y"] >= 0
        assert box["x"] + box["width"] <= drawn["width"]
        assert box["y"] + box["height"] <= drawn["height"]
    for k, one in enumerate(boxes):
        for other in boxes[k + 1:]:
            apart = (one["x"] + one["width"] <= other["x"] or other["x"] + other["width"] <= one["x"]
                     or one["y"] + one["height"] <= other["y"]
                     or other["y"] + other["height"] <= one["y"])
            assert apart, (one["name"], other["name"])


def test_parents_are_drawn_left_of_the_nodes_built_from_them() -> None:
    drawn = drawing(parsed(sample_graph(SIBLING)), LABELS)
    box = {b["name"]: b for b in drawn["nodes"]}
    for edge in drawn["edges"]:
        assert box[edge["from"]]["x"] + box[edge["from"]]["width"] < box[edge["to"]]["x"]
        assert edge["curves"][0]["x1"] == box[edge["from"]]["x"] + box[edge["from"]]["width"]


def test_the_sibling_graph_is_drawn_without_crossings() -> None:
    drawn = drawing(parsed(sample_graph(SIBLING)), LABELS)
    columns: dict[float, list[str]] = {}
    for box in sorted(drawn["nodes"], key=lambda b: b["y"]):
        columns.setdefault(box["x"], []).append(box["name"])
    ordered = [columns[x] for x in sorted(columns)]
    pairs = [(edge["from"], edge["to"]) for edge in drawn["edges"]]
    assert _crossings(ordered, pairs) == 0


def test_a_chain_is_drawn_level() -> None:
    raw = {"nodes": [node("a"), node("b", "+"), node("c", "*")], "edges": edges("a>b", "b>c")}
    drawn = drawing(parsed(raw), LABELS)
    centres = {round(b["y"] + b["height"] / 2, 1) for b in drawn["nodes"]}
    assert len(centres) == 1


def test_a_parent_used_twice_gets_two_separate_edges() -> None:
    drawn = drawing(parsed(sample_graph("self-add-accumulates")), LABELS)
    first, second = drawn["edges"]
    assert (first["from"], first["to"]) == (second["from"], second["to"]) == ("a", "out")
    assert first["curves"][0]["y1"] != second["curves"][0]["y1"]
    assert first["curves"][-1]["y2"] != second["curves"][-1]["y2"]


def test_an_edge_that_skips_a_column_goes_around_its_boxes() -> None:
    drawn = drawing(parsed(sample_graph("diamond-accumulates")), LABELS)
    box = {b["name"]: b for b in drawn["nodes"]}["a*b"]
    skip = next(e for e in drawn["edges"] if (e["from"], e["to"]) == ("a", "out"))
    assert len(skip["curves"]) == 2
    lane = skip["curves"][0]["y2"]
    assert lane == skip["curves"][1]["y1"]
    assert lane < box["y"] or lane > box["y"] + box["height"]
    assert lane >= 0 and lane <= drawn["height"]


def test_a_cycle_is_laid_out_with_a_back_edge() -> None:
    raw = {"nodes": [node("a"), node("b", "*"), node("c", "+"), node("out", "*")],
           "edges": edges("a>b", "b>c", "c>b", "c>out")}
    drawn = drawing(parsed(raw), LABELS)
    assert [(e["from"], e["to"]) for e in drawn["edges"] if e["back"]] == [("c", "b")]
    assert {b["name"] for b in drawn["nodes"]} == {"a", "b", "c", "out"}


def test_the_layout_is_deterministic() -> None:
    graph = parsed(sample_graph(SIBLING))
    assert drawing(graph, LABELS) == drawing(graph, LABELS)


def test_longer_labels_make_wider_boxes() -> None:
    graph = parsed(sample_graph("diamond-accumulates"))
    short = drawing(graph, LABELS)["nodes"][0]["width"]
    long = drawing(graph, {**LABELS, "expected_grad": "expected by the reference"})["nodes"][0]
    assert long["width"] > short


def test_wrong_nodes_say_why_from_the_graph_itself() -> None:
    raw = sample_graph(SIBLING)
    raw["nodes"].append(node("lonely", wrong=True))
    assert wrong_reasons(parsed(raw)) == {"a": "gradient", "b": "gradient", "x": "order",
                                          "lonely": "marked"}


def test_the_tree_writes_a_shared_node_once_then_names_it() -> None:
    rows = tree_rows(parsed(sample_graph(SIBLING)))
    written = [(row["name"], row["repeated"]) for row in rows]
    assert written[0] == ("out", False)
    assert written.count(("x", False)) == 1 and written.count(("x", True)) == 1
    assert {name for name, _ in written} == {"a", "b", "c", "d", "x", "x*c", "x*d", "out"}


def test_the_tree_marks_the_last_parent_and_the_guides() -> None:
    rows = tree_rows(parsed(sample_graph("diamond-accumulates")))
    shape = [(row["name"], row["depth"], row["last"], row["guides"]) for row in rows]
    assert shape == [("out", 0, True, []), ("a*b", 1, False, []), ("a", 2, False, [True]),
                     ("b", 2, True, [True]), ("a", 1, True, [])]


def test_a_long_chain_is_written_without_recursion() -> None:
    count = MAX_NODES
    raw = {"nodes": [node("n0")] + [node(f"n{k}", "+") for k in range(1, count)],
           "edges": edges(*(f"n{k - 1}>n{k}" for k in range(1, count)))}
    rows = tree_rows(parsed(raw))
    assert [row["depth"] for row in rows] == list(range(count))


def load_graphs_doc() -> dict[str, Any]:
    return json.loads((DATA / "score_graphs.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["en", "es"])
def test_html_feedback_draws_one_svg_per_graph_with_the_wrong_nodes_marked(lang: str) -> None:
    doc = load_graphs_doc()
    html = render_feedback(doc, "html", lang)
    graphs = [c["detail"]["graph"] for c in doc["checks"] if (c["detail"] or {}).get("graph")]
    assert html.count("<svg") == len(graphs)
    assert html.count('<title id="graph-') == len(graphs)
    wrong = sum(n["wrong"] for g in graphs for n in g["nodes"])
    assert len(re.findall(r'<g class="node (?:leaf|op) wrong"', html)) == wrong
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")


@pytest.mark.parametrize("fmt", ["markdown", "terminal"])
def test_text_feedback_writes_the_graph_as_a_tree(fmt: str) -> None:
    text = render_feedback(load_graphs_doc(), fmt, "en")
    assert "├── x*c [*]  data -3  grad 1  expected 1  _backward call no. 2" in text.replace("\\", "")
    assert "│   │   ├── a  data 2  grad -1.5  expected 10.5  <-- gradient differs" in text
    assert "└── a  (shown above)" in text
    assert "Order in which the `_backward` calls ran: out, x*c, x, x*d." in text.replace("\\*", "*")


def test_spanish_tree_uses_the_spanish_labels() -> None:
    text = render_feedback(load_graphs_doc(), "terminal", "es")
    assert "esperado -2  <-- el gradiente no coincide con el esperado" in text


def test_a_malformed_graph_leaves_the_rest_of_the_feedback_intact() -> None:
    doc = load_graphs_doc()
    for check in doc["checks"]:
        if (check["detail"] or {}).get("graph"):
            check["detail"]["graph"]["edges"].append({"from": "a", "to": "nowhere"})
    html = render_feedback(doc, "html")
    assert "<svg" not in html
    assert "a.grad is -3; expected -2" in html
