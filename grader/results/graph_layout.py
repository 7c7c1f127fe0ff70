"""Where each box and edge of a graph's drawing goes: a layered layout, positions only.

Side: trusted process. The layout is a small layered (Sugiyama-style) one of our own, left to
right like the course chapter's drawings (leaves on the left, the output on the right):
longest-path layers, barycentre ordering against crossings, then a least-squares vertical
placement that pulls each node level with its neighbours, and edges routed around the boxes of
the columns they skip. It knows each node only as a box of a given size (`Block`): what the
boxes hold, and in which language, is `graph_drawing`'s business. Graphs in feedback have a
dozen nodes at most, so plain quadratic passes are instant, and nothing outside the standard
library is needed (graphviz is not installed on grading platforms).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Geometry, in SVG user units (px at natural size).
OP_RADIUS = 11  # the operation circle left of a node's box
LAYER_GAP = 40
NODE_GAP = 14
MARGIN = 8
PLACEMENT_ROUNDS = 4


@dataclass(frozen=True)
class Block:
    """A node as the layout sees it: a box of a given size, with an operation circle on its
    left (`has_op`) or not (a leaf)."""

    name: str
    width: float
    height: float
    has_op: bool


@dataclass
class Box:
    """A node's box, placed: its column, its left side `x` and its `top`."""

    name: str
    column: int
    width: float
    height: float
    x: float = 0.0
    top: float = 0.0

    @property
    def centre(self) -> float:
        """The height of the box's middle."""
        return self.top + self.height / 2


@dataclass(frozen=True)
class Path:
    """One edge, parent to child, as one cubic curve or two (around a lane); `back` when it
    closes a cycle. Curve points are rounded to 0.1, as they are drawn."""

    parent: str
    child: str
    curves: tuple[dict[str, float], ...]
    back: bool


@dataclass(frozen=True)
class Layout:
    """The drawing's size, the boxes in column order (top to bottom in each) and the edges."""

    width: float
    height: float
    boxes: tuple[Box, ...]
    paths: tuple[Path, ...]


@dataclass(frozen=True)
class _Wiring:
    """The graph as the layout passes read it: names in document order, edges, the output."""

    names: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    output: str | None
    has_op: frozenset[str]

    @property
    def parents(self) -> dict[str, list[str]]:
        """Each node's parents, in edge order (a parent used twice is listed twice)."""
        table: dict[str, list[str]] = {name: [] for name in self.names}
        for parent, child in self.edges:
            table[child].append(parent)
        return table

    @property
    def children(self) -> dict[str, list[str]]:
        """Each node's children (the nodes built from it), in edge order."""
        table: dict[str, list[str]] = {name: [] for name in self.names}
        for parent, child in self.edges:
            table[parent].append(child)
        return table


def layout(blocks: Sequence[Block], edges: Sequence[tuple[str, str]],
           output: str | None) -> Layout:
    """Place the blocks (in document order) and route the edges (parent, child) between them."""
    wiring = _Wiring(tuple(b.name for b in blocks), tuple(edges), output,
                     frozenset(b.name for b in blocks if b.has_op))
    layer, back = _layers(wiring)
    columns = _barycentre_order(_initial_order(wiring, layer), wiring)
    boxes = _boxes_in_columns(columns, {b.name: b for b in blocks})
    _place(columns, boxes, wiring)
    _move_by(boxes, MARGIN - min(box.top for box in boxes.values()))
    paths = _paths(wiring, boxes, back)
    # A lane above the top boxes moves the whole drawing down.
    lift = max(0.0, MARGIN - min(_lane_heights(paths), default=MARGIN))
    if lift:
        _move_by(boxes, lift)
        paths = _paths(wiring, boxes, back)
    width = max(box.x + box.width for box in boxes.values()) + MARGIN
    height = max([box.top + box.height for box in boxes.values()] + _lane_heights(paths)) + MARGIN
    return Layout(width, height, tuple(boxes[n] for column in columns for n in column),
                  tuple(paths))


# -- layers and order ----------------------------------------------------------------------------


def _layers(wiring: _Wiring) -> tuple[dict[str, int], set[tuple[str, str]]]:
    """Longest-path layer of every node, and the edges that close a cycle (drawn backwards).

    Kahn's algorithm; when only nodes on cycles remain, the first of them in document order
    is taken as if its unfinished parents were done, and those edges count as back edges.
    """
    parents, children = wiring.parents, wiring.children
    waiting = {name: len(set(ps)) for name, ps in parents.items()}
    layer: dict[str, int] = {}
    ready = [name for name in wiring.names if waiting[name] == 0]
    back: set[tuple[str, str]] = set()
    order = list(wiring.names)
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


def _initial_order(wiring: _Wiring, layer: Mapping[str, int]) -> list[list[str]]:
    """Nodes per layer, in the order a walk from the output through parents first meets them."""
    parents, children = wiring.parents, wiring.children
    sinks = [wiring.output] if wiring.output else []
    sinks += [name for name in wiring.names if not children[name] and name not in sinks]
    seen: dict[str, None] = {}
    stack = list(reversed(sinks))
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen[name] = None
        stack.extend(reversed(parents[name]))
    for name in wiring.names:  # nodes on a cycle no sink reaches
        seen.setdefault(name, None)
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


def _barycentre_order(columns: list[list[str]], wiring: _Wiring) -> list[list[str]]:
    """Reorder each column by the mean position of its neighbours, sweeping both ways;
    keep the order with the fewest crossings."""
    parents, children = wiring.parents, wiring.children
    best = [list(c) for c in columns]
    best_count = _crossings(best, wiring.edges)
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
        count = _crossings(current, wiring.edges)
        if count < best_count:
            best, best_count = [list(col) for col in current], count
    return best


# -- boxes ---------------------------------------------------------------------------------------


def _boxes_in_columns(columns: list[list[str]], blocks: Mapping[str, Block]) -> dict[str, Box]:
    """A box per node, left to right by column: a column is as wide as its widest box, after
    room for the operation circles when one of its nodes has one."""
    boxes = {}
    x = float(MARGIN)
    for c, column in enumerate(columns):
        circles = 2 * OP_RADIUS if any(blocks[n].has_op for n in column) else 0
        for name in column:
            boxes[name] = Box(name, c, blocks[name].width, blocks[name].height, x=x + circles)
        x += circles + max(boxes[n].width for n in column) + LAYER_GAP
    return boxes


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


def _place(columns: list[list[str]], boxes: dict[str, Box], wiring: _Wiring) -> None:
    """Vertical positions: alternate passes pull each node level with its parents, then with
    its children, within the order the columns already have."""
    parents, children = wiring.parents, wiring.children
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


def _set_tops(column: Sequence[str], boxes: dict[str, Box], desired: Sequence[float]) -> None:
    tops = _pack(desired, [boxes[n].height for n in column])
    for name, top in zip(column, tops, strict=True):
        boxes[name].top = top


def _move_by(boxes: Mapping[str, Box], shift: float) -> None:
    for box in boxes.values():
        box.top += shift


# -- edges ---------------------------------------------------------------------------------------


def _curve(start: tuple[float, float], end: tuple[float, float]) -> dict[str, float]:
    """A cubic curve leaving start rightwards and reaching end from the left, rounded to 0.1."""
    (x1, y1), (x2, y2) = start, end
    reach = max(abs(x2 - x1) / 2, LAYER_GAP / 2)
    points = {"x1": x1, "y1": y1, "c1x": x1 + reach, "c1y": y1, "c2x": x2 - reach, "c2y": y2,
              "x2": x2, "y2": y2}
    return {key: round(value, 1) for key, value in points.items()}


def _lane_heights(paths: Sequence[Path]) -> list[float]:
    """The heights every curve starts and ends at: the lanes and the boxes' edge ends."""
    return [curve[key] for path in paths for curve in path.curves for key in ("y1", "y2")]


def _lane(source: Box, target: Box, start: tuple[float, float], end: tuple[float, float],
          boxes: Mapping[str, Box]) -> tuple[float, float, float] | None:
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


def _paths(wiring: _Wiring, boxes: Mapping[str, Box], back: set[tuple[str, str]]) -> list[Path]:
    """Edge paths from each parent's right side to its child's operation circle (or left side),
    fanned out where several edges meet one node; an edge that skips columns runs in a lane
    above or below their boxes instead of through them."""
    edges = wiring.edges
    arrivals: dict[str, list[int]] = {}
    for index, (_parent, child) in enumerate(edges):
        arrivals.setdefault(child, []).append(index)
    departures: dict[str, list[int]] = {}
    for index, (parent, _child) in enumerate(edges):
        departures.setdefault(parent, []).append(index)
    paths = []
    for index, (parent, child) in enumerate(edges):
        source, target = boxes[parent], boxes[child]
        out_rank = departures[parent].index(index) - (len(departures[parent]) - 1) / 2
        start = (source.x + source.width, source.centre + out_rank * 6)
        incoming = sorted(arrivals[child], key=lambda i: (boxes[edges[i][0]].centre, i))
        in_rank = incoming.index(index) - (len(incoming) - 1) / 2
        if child in wiring.has_op:
            angle = math.pi + in_rank * 0.55
            end = (target.x - OP_RADIUS + OP_RADIUS * math.cos(angle),
                   target.centre + OP_RADIUS * math.sin(angle))
        else:
            end = (target.x, target.centre + in_rank * 6)
        lane = None if (parent, child) in back else _lane(source, target, start, end, boxes)
        curves: tuple[dict[str, float], ...]
        if lane is None:
            curves = (_curve(start, end),)
        else:
            y, lane_start, lane_end = lane
            curves = (_curve(start, (lane_start, y)), _curve((lane_end, y), end))
        paths.append(Path(parent, child, curves, (parent, child) in back))
    return paths
