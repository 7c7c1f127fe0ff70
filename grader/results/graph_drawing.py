"""Drawing a check's computation graph (`detail["graph"]`): a layered layout and a text tree.

The graph arrives as plain data from a score document (its format is in the score schema and
the README). This module validates it and turns it into positioned boxes and edge curves for
`templates/graph.svg.j2`, and into the rows of an indented tree for the Markdown and terminal
feedback. It draws nothing itself: every mark and every word is in the templates.

The layout is a small layered (Sugiyama-style) one of our own, left to right like the course
chapter's drawings (leaves on the left, the output on the right): longest-path layers,
barycentre ordering against crossings, then a least-squares vertical placement that pulls each
node level with its neighbours. Graphs in feedback have a dozen nodes at most, so plain
quadratic passes are instant, and nothing outside the standard library is needed (graphviz is
not installed on grading platforms).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grader.results.i18n import format_number
from grader.results.score_schema import GRAPH_CAPS

MAX_NODES = GRAPH_CAPS.nodes
MAX_EDGES = GRAPH_CAPS.edges
MAX_CALLS = GRAPH_CAPS.calls
MAX_NAME = GRAPH_CAPS.name
MAX_OP = GRAPH_CAPS.op

# Geometry, in SVG user units (px at natural size). Node text is a 12px monospace font, whose
# characters are 0.6 em wide in every common monospace face, so widths can be measured here.
FONT_SIZE = 12
CHAR_WIDTH = 0.6 * FONT_SIZE
LINE_HEIGHT = 15
PADDING = 6
OP_RADIUS = 11
LAYER_GAP = 40
NODE_GAP = 14
MARGIN = 8
# Node rows, in the order they are drawn; `expected_grad` is drawn only when it is known.
ROW_KEYS = ("data", "grad", "expected_grad")
PLACEMENT_ROUNDS = 4


@dataclass(frozen=True)
class GraphNode:
    """One Value of the drawn graph, with the student's numbers and the expected gradient."""

    name: str
    op: str
    data: float | None
    grad: float | None
    expected_grad: float | None
    wrong: bool


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


def _number(value: Any) -> bool:
    """True for a JSON number (not a bool) or null, the allowed types of data and gradients."""
    return value is None or (type(value) in (int, float) and math.isfinite(value))


def _node(raw: Any) -> GraphNode | None:
    if not isinstance(raw, Mapping):
        return None
    name, op, wrong = raw.get("name"), raw.get("op", ""), raw.get("wrong", False)
    numbers = [raw.get(key) for key in ("data", "grad", "expected_grad")]
    if not (isinstance(name, str) and 0 < len(name) <= MAX_NAME and isinstance(op, str)
            and len(op) <= MAX_OP and type(wrong) is bool and all(map(_number, numbers))):
        return None
    data, grad, expected = (None if n is None else float(n) for n in numbers)
    return GraphNode(name, op, data, grad, expected, wrong)


def parse_graph(raw: Any) -> Graph | None:
    """The Graph in a `detail["graph"]` value, or None when it is missing or malformed.

    A stored document may have been edited by hand, so nothing is assumed: a graph that does
    not follow the format is not drawn (the check's message still says what happened).
    """
    if not isinstance(raw, Mapping):
        return None
    raw_nodes, raw_edges = raw.get("nodes"), raw.get("edges", [])
    if not (isinstance(raw_nodes, list) and 0 < len(raw_nodes) <= MAX_NODES
            and isinstance(raw_edges, list) and len(raw_edges) <= MAX_EDGES):
        return None
    nodes = [_node(item) for item in raw_nodes]
    names = {node.name for node in nodes if node is not None}
    if None in nodes or len(names) != len(nodes):
        return None
    edges = []
    for edge in raw_edges:
        if not (isinstance(edge, Mapping) and edge.get("from") in names
                and edge.get("to") in names):
            return None
        edges.append((edge["from"], edge["to"]))
    calls, output = raw.get("calls"), raw.get("output")
    if calls is not None and not (isinstance(calls, list) and len(calls) <= MAX_CALLS
                                  and all(name in names for name in calls)):
        return None
    if output is not None and output not in names:
        return None
    return Graph(tuple(n for n in nodes if n is not None), tuple(edges),
                 None if calls is None else tuple(calls), output)


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


# -- layers and order ----------------------------------------------------------------------------


def _layers(graph: Graph) -> tuple[dict[str, int], set[tuple[str, str]]]:
    """Longest-path layer of every node, and the edges that close a cycle (drawn backwards).

    Kahn's algorithm; when only nodes on cycles remain, the first of them in document order
    is taken as if its unfinished parents were done, and those edges count as back edges.
    """
    parents, children = graph.parents(), graph.children()
    waiting = {name: len(set(ps)) for name, ps in parents.items()}
    layer: dict[str, int] = {}
    ready = [node.name for node in graph.nodes if waiting[node.name] == 0]
    back: set[tuple[str, str]] = set()
    order = [node.name for node in graph.nodes]
    while len(layer) < len(order):
        if not ready:
            stuck = next(name for name in order if name not in layer)
            back |= {(p, stuck) for p in parents[stuck] if p not in layer}
            ready.append(stuck)
        name = ready.pop(0)
        if name in layer:
            continue
        layer[name] = 1 + max((layer[p] for p in parents[name] if p in layer), default=-1)
        for child in dict.fromkeys(children[name]):
            waiting[child] -= 1
            if waiting[child] == 0 and child not in layer:
                ready.append(child)
    # A leaf sits just left of its first consumer, not in column 0 (shorter edges).
    for name, ps in parents.items():
        forward = [layer[c] for c in children[name] if (name, c) not in back]
        if not ps and forward:
            layer[name] = min(forward) - 1
    return layer, back


def _initial_order(graph: Graph, layer: Mapping[str, int]) -> list[list[str]]:
    """Nodes per layer, in the order a walk from the output through parents first meets them."""
    parents = graph.parents()
    sinks = [graph.output] if graph.output else []
    sinks += [n.name for n in graph.nodes if not graph.children()[n.name] and n.name not in sinks]
    seen: dict[str, None] = {}
    stack = list(reversed(sinks))
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen[name] = None
        stack.extend(reversed(parents[name]))
    for node in graph.nodes:  # nodes on a cycle no sink reaches
        seen.setdefault(node.name, None)
    columns: list[list[str]] = [[] for _ in range(max(layer.values()) + 1)]
    for name in seen:
        columns[layer[name]].append(name)
    return columns


def _crossings(columns: Sequence[Sequence[str]], edges: Sequence[tuple[str, str]]) -> int:
    """Pairs of edges between the same two columns whose ends are in opposite orders."""
    place = {name: (c, i) for c, column in enumerate(columns) for i, name in enumerate(column)}
    spans = [(place[a], place[b]) for a, b in edges]
    count = 0
    for k, ((c1, i1), (d1, j1)) in enumerate(spans):
        for (c2, i2), (d2, j2) in spans[k + 1:]:
            if c1 == c2 and d1 == d2 and (i1 - i2) * (j1 - j2) < 0:
                count += 1
    return count


def _barycentre_order(columns: list[list[str]], graph: Graph) -> list[list[str]]:
    """Reorder each column by the mean position of its neighbours, sweeping both ways;
    keep the order with the fewest crossings."""
    parents, children = graph.parents(), graph.children()
    best = [list(c) for c in columns]
    best_count = _crossings(best, graph.edges)
    current = [list(c) for c in columns]
    for sweep in range(4):
        downward = sweep % 2 == 0
        indices = range(1, len(current)) if downward else range(len(current) - 2, -1, -1)
        neighbours = parents if downward else children
        for c in indices:
            position = {n: i / max(1, len(col)) for col in current for i, n in enumerate(col)}
            keys = {}
            for name in current[c]:  # a node with no neighbours keeps its place
                near = [position[n] for n in neighbours[name]]
                keys[name] = sum(near) / len(near) if near else position[name]
            current[c].sort(key=keys.__getitem__)
        count = _crossings(current, graph.edges)
        if count < best_count:
            best, best_count = [list(col) for col in current], count
    return best


# -- geometry ------------------------------------------------------------------------------------


def _isotonic(targets: Sequence[float]) -> list[float]:
    """The non-decreasing sequence closest to targets in least squares (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [sum, count]
    for target in targets:
        blocks.append([target, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    return [total / count for total, count in blocks for _ in range(int(count))]


def _pack(desired: Sequence[float], heights: Sequence[float]) -> list[float]:
    """Top of each box of a column (in order) closest to its desired centre, NODE_GAP apart.

    With offsets c_i (the heights and gaps above box i), the constraint top_{i+1} >= top_i +
    height_i + gap is z_{i+1} >= z_i for z_i = top_i - c_i: an isotonic regression.
    """
    offsets, total = [], 0.0
    for height in heights:
        offsets.append(total)
        total += height + NODE_GAP
    targets = [d - h / 2 - c for d, h, c in zip(desired, heights, offsets, strict=True)]
    return [z + c for z, c in zip(_isotonic(targets), offsets, strict=True)]


@dataclass
class _Box:
    name: str
    column: int
    width: float
    height: float
    x: float = 0.0
    top: float = 0.0

    @property
    def centre(self) -> float:
        return self.top + self.height / 2


def _rows(node: GraphNode, lang: str | None = None) -> list[dict[str, str]]:
    """The rows of a node's box that have a value: key (of ROW_KEYS) and formatted number."""
    values = {key: _formatted(getattr(node, key), lang) for key in ROW_KEYS}
    return [{"key": key, "value": value} for key, value in values.items() if value is not None]


def _box_size(node: GraphNode, calls: Sequence[int], labels: Mapping[str, str],
              lang: str | None = None) -> tuple[float, float]:
    rows = _rows(node, lang)
    label_chars = max((len(labels[row["key"]]) for row in rows), default=0)
    title_chars = len(node.name) + (len(" #" + ",".join(map(str, calls))) if calls else 0)
    chars = max([title_chars] + [label_chars + 1 + len(row["value"]) for row in rows])
    return 2 * PADDING + chars * CHAR_WIDTH, 2 * PADDING + LINE_HEIGHT * (1 + len(rows))


def _place(columns: list[list[str]], boxes: dict[str, _Box], graph: Graph) -> None:
    """Vertical positions: alternate passes pull each node level with its parents, then with
    its children, within the order the columns already have."""
    parents, children = graph.parents(), graph.children()
    for column in columns:
        _set_tops(column, boxes, [boxes[n].height / 2 + i * 60.0 for i, n in enumerate(column)])
    for round_ in range(PLACEMENT_ROUNDS):
        rightward = round_ % 2 == 0
        neighbours = parents if rightward else children
        for column in (columns if rightward else list(reversed(columns))):
            desired = []
            for name in column:
                near = [boxes[n].centre for n in neighbours[name]] or [boxes[name].centre]
                desired.append(sum(near) / len(near))
            _set_tops(column, boxes, desired)


def _set_tops(column: Sequence[str], boxes: dict[str, _Box], desired: Sequence[float]) -> None:
    tops = _pack(desired, [boxes[n].height for n in column])
    for name, top in zip(column, tops, strict=True):
        boxes[name].top = top


def _edge(start: tuple[float, float], end: tuple[float, float]) -> dict[str, float]:
    """A cubic curve leaving start rightwards and reaching end from the left."""
    (x1, y1), (x2, y2) = start, end
    reach = max(abs(x2 - x1) / 2, LAYER_GAP / 2)
    return {"x1": x1, "y1": y1, "c1x": x1 + reach, "c1y": y1, "c2x": x2 - reach, "c2y": y2,
            "x2": x2, "y2": y2}


def _round(values: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 1) if isinstance(v, float) else v for k, v in values.items()}


def layout(graph: Graph, labels: Mapping[str, str], lang: str | None = None) -> dict[str, Any]:
    """Positioned nodes and edges of the graph, plus the drawing's size, as plain data.

    `labels` are the row labels the template will print (one per ROW_KEYS entry), used only
    to measure the boxes.
    """
    layer, back = _layers(graph)
    columns = _barycentre_order(_initial_order(graph, layer), graph)
    calls = _call_positions(graph)
    reasons = wrong_reasons(graph)
    by_name = {node.name: node for node in graph.nodes}
    boxes = {}
    for c, column in enumerate(columns):
        for name in column:
            width, height = _box_size(by_name[name], calls[name], labels, lang)
            boxes[name] = _Box(name, c, width, height)
    x = float(MARGIN)
    for column in columns:
        has_op = any(by_name[n].op for n in column)
        for name in column:
            boxes[name].x = x + (2 * OP_RADIUS if has_op else 0)
        x += (2 * OP_RADIUS if has_op else 0) + max(boxes[n].width for n in column) + LAYER_GAP
    _place(columns, boxes, graph)
    shift = MARGIN - min(box.top for box in boxes.values())
    for box in boxes.values():
        box.top += shift
    edges = _edges(graph, boxes, by_name, back)
    # A lane above the top boxes moves the whole drawing down.
    lanes = [curve[key] for edge in edges for curve in edge["curves"] for key in ("y1", "y2")]
    lift = max(0.0, MARGIN - min(lanes, default=MARGIN))
    if lift:
        for box in boxes.values():
            box.top += lift
        edges = _edges(graph, boxes, by_name, back)
    width = max(box.x + box.width for box in boxes.values()) + MARGIN
    height = max([box.top + box.height for box in boxes.values()]
                 + [curve[key] for edge in edges for curve in edge["curves"]
                    for key in ("y1", "y2")]) + MARGIN
    return {
        "width": round(width, 1), "height": round(height, 1),
        "font_size": FONT_SIZE, "line_height": LINE_HEIGHT, "padding": PADDING,
        "op_radius": OP_RADIUS,
        "nodes": [{**_node_view(by_name[n], boxes[n], calls[n], labels, lang), "reason": reasons.get(n)}
                  for c in columns for n in c],
        "edges": edges,
        "calls": list(graph.calls) if graph.calls is not None else None,
        "wrong": [node.name for node in graph.nodes if node.wrong],
    }


def _node_view(node: GraphNode, box: _Box, calls: Sequence[int],
               labels: Mapping[str, str], lang: str | None = None) -> dict[str, Any]:
    rows = _rows(node, lang)
    label_chars = max((len(labels[row["key"]]) for row in rows), default=0)
    return {
        **_round({"x": box.x, "y": box.top, "width": box.width, "height": box.height,
                  "cx": box.x - OP_RADIUS, "cy": box.centre,
                  "value_x": box.x + PADDING + (label_chars + 1) * CHAR_WIDTH}),
        "name": node.name, "op": node.op, "leaf": not node.op, "wrong": node.wrong,
        "rows": rows, "calls": list(calls),
        "data": _formatted(node.data, lang), "grad": _formatted(node.grad, lang),
        "expected_grad": _formatted(node.expected_grad, lang),
    }


def _lane(source: _Box, target: _Box, start: tuple[float, float], end: tuple[float, float],
          boxes: Mapping[str, _Box]) -> tuple[float, float, float] | None:
    """For an edge that skips columns: the height of a lane above or below the boxes of the
    columns it crosses (the nearer one) and where that lane starts and ends; None when a plain
    curve passes those columns without touching a box."""
    between = [b for b in boxes.values() if source.column < b.column < target.column]
    low, high = min(start[1], end[1]) - 4, max(start[1], end[1]) + 4
    if not any(b.top < high and b.top + b.height > low for b in between):
        return None
    above = min(b.top for b in between) - NODE_GAP / 2
    below = max(b.top + b.height for b in between) + NODE_GAP / 2
    middle = (start[1] + end[1]) / 2
    lane = above if abs(above - middle) <= abs(below - middle) else below
    return lane, min(b.x for b in between) - 2 * OP_RADIUS - 4, max(b.x + b.width for b in between) + 4


def _edges(graph: Graph, boxes: Mapping[str, _Box], by_name: Mapping[str, GraphNode],
           back: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """Edge paths from each parent's right side to its child's operation circle (or left side),
    fanned out where several edges meet one node; an edge that skips columns runs in a lane
    above or below their boxes instead of through them."""
    arrivals: dict[str, list[int]] = {}
    for index, (_parent, child) in enumerate(graph.edges):
        arrivals.setdefault(child, []).append(index)
    departures: dict[str, list[int]] = {}
    for index, (parent, _child) in enumerate(graph.edges):
        departures.setdefault(parent, []).append(index)
    views = []
    for index, (parent, child) in enumerate(graph.edges):
        source, target = boxes[parent], boxes[child]
        out_rank = departures[parent].index(index) - (len(departures[parent]) - 1) / 2
        start = (source.x + source.width, source.centre + out_rank * 6)
        incoming = sorted(arrivals[child], key=lambda i: (boxes[graph.edges[i][0]].centre, i))
        in_rank = incoming.index(index) - (len(incoming) - 1) / 2
        if by_name[child].op:
            angle = math.pi + in_rank * 0.55
            end = (target.x - OP_RADIUS + OP_RADIUS * math.cos(angle),
                   target.centre + OP_RADIUS * math.sin(angle))
        else:
            end = (target.x, target.centre + in_rank * 6)
        lane = None if (parent, child) in back else _lane(source, target, start, end, boxes)
        if lane is None:
            curves = [_edge(start, end)]
        else:
            y, lane_start, lane_end = lane
            curves = [_edge(start, (lane_start, y)), _edge((lane_end, y), end)]
        views.append({"curves": [_round(curve) for curve in curves], "from": parent,
                      "to": child, "back": (parent, child) in back})
    return views


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
