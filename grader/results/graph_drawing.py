"""Drawing a check's computation graph (`detail["graph"]`): what the SVG and the text tree show.

Side: trusted process. The graph arrives as plain data from a score document (its format is in
the score schema and the README). This module validates it (`parse_graph`), measures each
node's box from the rows it will print, has `graph_layout` place the boxes and route the edges,
and turns the placed layout into the plain data `templates/graph.svg.j2` draws (`drawing`); and
it writes the graph as the rows of an indented tree for the Markdown and terminal feedback
(`tree_rows`). It draws nothing itself: every mark and every word is in the templates.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grader.results.graph_layout import OP_RADIUS, Block, Box, Layout, layout
from grader.results.i18n import format_number
from grader.results.score_document import DocumentError, GraphNode, parse_record
from grader.results.score_document import Graph as RecordedGraph
from grader.results.score_schema import GRAPH_CAPS

MAX_NODES = GRAPH_CAPS.nodes
MAX_EDGES = GRAPH_CAPS.edges
MAX_CALLS = GRAPH_CAPS.calls
MAX_NAME = GRAPH_CAPS.name
MAX_OP = GRAPH_CAPS.op

# Text, in SVG user units (px at natural size). Node text is a 12px monospace font, whose
# characters are 0.6 em wide in every common monospace face, so boxes can be measured here.
FONT_SIZE = 12
CHAR_WIDTH = 0.6 * FONT_SIZE
LINE_HEIGHT = 15
PADDING = 6
# Node rows, in the order they are drawn; `expected_grad` is drawn only when it is known.
ROW_KEYS = ("data", "grad", "expected_grad")


@dataclass(frozen=True)
class Graph:
    """A validated `detail["graph"]`: edges run from a parent to the node built from it."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[tuple[str, str], ...]
    calls: tuple[str, ...] | None = None
    output: str | None = None

    def parents(self) -> dict[str, list[str]]:
        """Each node's parents, in edge order (a parent used twice is listed twice)."""
        table: dict[str, list[str]] = {node.name: [] for node in self.nodes}
        for parent, child in self.edges:
            table[child].append(parent)
        return table

    def children(self) -> dict[str, list[str]]:
        """Each node's children (the nodes built from it), in edge order."""
        table: dict[str, list[str]] = {node.name: [] for node in self.nodes}
        for parent, child in self.edges:
            table[parent].append(child)
        return table


def _number(value: float | None) -> bool:
    """True for a finite number (not a bool) or null, the allowed values of data and gradients."""
    return value is None or (type(value) in (int, float) and math.isfinite(value))


def _node(recorded: GraphNode) -> GraphNode | None:
    """The node with its numbers as floats, or None when its name, op or numbers break the caps."""
    numbers = (recorded.data, recorded.grad, recorded.expected_grad)
    if not (0 < len(recorded.name) <= MAX_NAME and len(recorded.op) <= MAX_OP
            and all(map(_number, numbers))):
        return None
    data, grad, expected = (None if n is None else float(n) for n in numbers)
    return dataclasses.replace(recorded, data=data, grad=grad, expected_grad=expected)


def parse_graph(raw: Any) -> Graph | None:
    """The Graph in a `detail["graph"]` value, or None when it is missing or malformed.

    A stored document may have been edited by hand, so nothing is assumed: a graph that does
    not follow the format is not drawn (the check's message still says what happened).
    """
    try:
        recorded = parse_record(RecordedGraph, raw, "graph")
    except DocumentError:
        return None
    return drawable(recorded)


def drawable(recorded: RecordedGraph) -> Graph | None:
    """The Graph of a detail's typed graph, or None when it breaks the format's caps or names a
    node it does not have (nodes, edges, calls and output)."""
    if not (0 < len(recorded.nodes) <= MAX_NODES and len(recorded.edges) <= MAX_EDGES):
        return None
    nodes = [_node(item) for item in recorded.nodes]
    names = {node.name for node in nodes if node is not None}
    if None in nodes or len(names) != len(nodes):
        return None
    if not all(edge.parent in names and edge.to in names for edge in recorded.edges):
        return None
    calls, output = recorded.calls, recorded.output
    if calls is not None and not (len(calls) <= MAX_CALLS and all(name in names for name in calls)):
        return None
    if output is not None and output not in names:
        return None
    return Graph(tuple(n for n in nodes if n is not None),
                 tuple((edge.parent, edge.to) for edge in recorded.edges), calls, output)


def _call_positions(graph: Graph) -> dict[str, list[int]]:
    """For each node, the 1-based positions of its `_backward` calls in the recorded order."""
    positions: dict[str, list[int]] = {node.name: [] for node in graph.nodes}
    for position, name in enumerate(graph.calls or (), start=1):
        positions[name].append(position)
    return positions


def _formatted(value: float | None, lang: str | None) -> str | None:
    return None if value is None else format_number(value, lang)


def wrong_reasons(graph: Graph) -> dict[str, str]:
    """Why each wrong node is marked, read from the graph's own facts: `gradient` (its grad is
    not the expected one), `order` (its last `_backward` call came before the last call of a
    node built from it), `repeated` (its `_backward` ran more than once) or `marked` (the
    check marked it for another reason)."""
    last = {name: positions[-1] for name, positions in _call_positions(graph).items() if positions}
    children = graph.children()
    reasons = {}
    for node in graph.nodes:
        if not node.wrong:
            continue
        if (node.grad is not None and node.expected_grad is not None
                and not math.isclose(node.grad, node.expected_grad, rel_tol=1e-6, abs_tol=1e-9)):
            reasons[node.name] = "gradient"
        elif node.name in last and any(last.get(c, -1) > last[node.name] for c in children[node.name]):
            reasons[node.name] = "order"
        elif (graph.calls or ()).count(node.name) > 1:
            reasons[node.name] = "repeated"
        else:
            reasons[node.name] = "marked"
    return reasons


# -- the drawing ---------------------------------------------------------------------------------


def drawing(graph: Graph, labels: Mapping[str, str], lang: str | None = None) -> dict[str, Any]:
    """Positioned nodes and edges of the graph, plus the drawing's size, as plain data for
    `templates/graph.svg.j2`.

    `labels` are the row labels the template will print (one per ROW_KEYS entry), used only
    to measure the boxes.
    """
    calls = _call_positions(graph)
    blocks = [_block(node, calls[node.name], labels, lang) for node in graph.nodes]
    placed = layout(blocks, graph.edges, graph.output)
    return _drawing_view(graph, placed, calls, labels, lang)


def _rows(node: GraphNode, lang: str | None = None) -> list[dict[str, str]]:
    """The rows of a node's box that have a value: key (of ROW_KEYS) and formatted number."""
    values = {key: _formatted(getattr(node, key), lang) for key in ROW_KEYS}
    return [{"key": key, "value": value} for key, value in values.items() if value is not None]


def _label_chars(rows: Sequence[Mapping[str, str]], labels: Mapping[str, str]) -> int:
    """The width of the widest row label of a box, in characters."""
    return max((len(labels[row["key"]]) for row in rows), default=0)


def _block(node: GraphNode, calls: Sequence[int], labels: Mapping[str, str],
           lang: str | None = None) -> Block:
    """The node's box, measured: its title (name and `_backward` call numbers) and its rows."""
    rows = _rows(node, lang)
    title_chars = len(node.name) + (len(" #" + ",".join(map(str, calls))) if calls else 0)
    chars = max([title_chars] + [_label_chars(rows, labels) + 1 + len(row["value"]) for row in rows])
    return Block(node.name, 2 * PADDING + chars * CHAR_WIDTH,
                 2 * PADDING + LINE_HEIGHT * (1 + len(rows)), bool(node.op))


def _round(values: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 1) if isinstance(v, float) else v for k, v in values.items()}


def _drawing_view(graph: Graph, placed: Layout, calls: Mapping[str, list[int]],
                  labels: Mapping[str, str], lang: str | None) -> dict[str, Any]:
    by_name = {node.name: node for node in graph.nodes}
    reasons = wrong_reasons(graph)
    return {
        "width": round(placed.width, 1), "height": round(placed.height, 1),
        "font_size": FONT_SIZE, "line_height": LINE_HEIGHT, "padding": PADDING,
        "op_radius": OP_RADIUS,
        "nodes": [{**_node_view(by_name[box.name], box, calls[box.name], labels, lang),
                   "reason": reasons.get(box.name)} for box in placed.boxes],
        "edges": [{"curves": list(path.curves), "from": path.parent, "to": path.child,
                   "back": path.back} for path in placed.paths],
        "calls": list(graph.calls) if graph.calls is not None else None,
        "wrong": [node.name for node in graph.nodes if node.wrong],
    }


def _node_view(node: GraphNode, box: Box, calls: Sequence[int],
               labels: Mapping[str, str], lang: str | None = None) -> dict[str, Any]:
    rows = _rows(node, lang)
    return {
        **_round({"x": box.x, "y": box.top, "width": box.width, "height": box.height,
                  "cx": box.x - OP_RADIUS, "cy": box.centre,
                  "value_x": box.x + PADDING + (_label_chars(rows, labels) + 1) * CHAR_WIDTH}),
        "name": node.name, "op": node.op, "leaf": not node.op, "wrong": node.wrong,
        "rows": rows, "calls": list(calls),
        "data": _formatted(node.data, lang), "grad": _formatted(node.grad, lang),
        "expected_grad": _formatted(node.expected_grad, lang),
    }


# -- text tree -----------------------------------------------------------------------------------


def tree_rows(graph: Graph, lang: str | None = None) -> list[dict[str, Any]]:
    """The graph as an indented tree from the output back to the leaves, one row per line.

    Each row has `guides` (for every enclosing level below the root, whether a vertical line
    continues there), `last` (the last parent of its node) and `repeated` (the node was
    already written out above: a shared node is written once, then only named).
    """
    parents, calls, reasons = graph.parents(), _call_positions(graph), wrong_reasons(graph)
    by_name = {node.name: node for node in graph.nodes}
    roots = [graph.output] if graph.output else []
    roots += [n.name for n in graph.nodes if not graph.children()[n.name] and n.name not in roots]
    rows: list[dict[str, Any]] = []
    written: set[str] = set()
    # Explicit stack of (name, guides, last, depth): no recursion, whatever the graph's depth.
    stack: list[tuple[str, tuple[bool, ...], bool, int]] = []
    for root in [*roots, *(n.name for n in graph.nodes)]:
        if root in written:
            continue
        stack.append((root, (), True, 0))
        while stack:
            name, guides, last, depth = stack.pop()
            node = by_name[name]
            rows.append({"name": name, "op": node.op, "wrong": node.wrong,
                         "reason": reasons.get(name), "guides": list(guides),
                         "last": last, "depth": depth, "repeated": name in written,
                         "rows": _rows(node, lang), "calls": calls[name]})
            if name in written:
                continue
            written.add(name)
            below = guides + (not last,) if depth else guides
            ps = parents[name]
            for i in reversed(range(len(ps))):
                stack.append((ps[i], below, i == len(ps) - 1, depth + 1))
    return rows
