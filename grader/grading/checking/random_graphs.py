"""Random expression graphs: drawn, compared with the reference, shrunk, and blamed on a pitfall.

Side: trusted process. A graph travels as plain data, {"leaves": [floats], "nodes": [[op, i,
j, k]]}: node n is `op` applied to value i (and value j, for a two-Value op) or to the plain
number k; values are the leaves, then the nodes, and the last node is the output. The sandbox
builds it with the student's Value (`grader.grading.child.graph.run_expressions`) and the reference
builds it here; both report every node's data and grad.

A check draws the shapes that matter for every seed (`fixed_shapes`: nodes consumed at
different depths, repeated operands, shared subexpressions, numbers on either side, chains,
every operation reused and scaled) with seeded leaf values, plus random graphs from the same
seeded rng (`random_graph`), so a bug these shapes expose fails the check under every seed. A failing graph is shrunk
(bounded rounds and time; each round one sandbox run of every smaller candidate) and the
smallest one is shown as a program the student can paste, with the nodes that differ; the
pitfall is named from what differs (`diagnose`).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from grader.grading.checking.verdict import fail, field
from grader.grading.child.graph import OPERATIONS
from grader.results.score_schema import GRAPH_CAPS

Graph = dict[str, Any]
MAX_DATA = 8.0  # a node that would hold more is drawn as a * 0.5 instead: nothing overflows
REL_TOL = 1e-6
ABS_TOL = 1e-9  # scaled by the graph's largest gradient: contributions may cancel
SHRINK_SECONDS = 1.0
SHRINK_ROUNDS = 12
SHOWN_DIFFERENCES = 6


def _pow_valid(a: float, b: float, k: float) -> bool:
    if float(k).is_integer():
        return abs(a) >= 0.3 if k < 0 else True
    return a >= 0.1


# Where a drawn graph may use an operation (the rest are defined everywhere): away from a
# singularity, a kink or an overflow by a margin, so no check turns on a rounding.
DOMAINS: dict[str, Callable[[float, float, float], bool]] = {
    "truediv": lambda a, b, k: abs(b) >= 0.3,
    "truediv-number-on-left": lambda a, b, k: abs(a) >= 0.3,
    "pow": _pow_valid,
    "exp": lambda a, b, k: abs(a) <= 3,
    "log": lambda a, b, k: a >= 0.1,
    "relu": lambda a, b, k: abs(a) >= 0.05,
}


def _valid(op: str, a: float, b: float, k: float) -> bool:
    return DOMAINS.get(op, lambda a, b, k: True)(a, b, k)


# The operations each lab's random graphs draw from, in the order the rng picks them (part of
# the seeded draw: reordering changes every graph drawn).
LAB01_OPS = ("add", "mul", "add-number-on-right", "add-number-on-left", "mul-number-on-right",
             "mul-number-on-left")
LAB02_OPS = (*LAB01_OPS, "sub", "truediv", "sub-number-on-right", "sub-number-on-left",
             "truediv-number-on-right", "truediv-number-on-left", "neg", "pow",
             "exp", "log", "tanh", "relu", "sigmoid")
UNARY = ("neg", "exp", "log", "tanh", "relu", "sigmoid")
NUMBERS = (2, 3, -2, 0.5, 1.5, 2.5)
EXPONENTS = (2, 3, -1, -2, 0.5, 1.5)


# -- the plain-float model of a graph -----------------------------------------------------------

def forward_values(graph: Graph) -> list[float] | None:
    """Every value of the graph computed on plain floats; None if an op leaves its domain."""
    values = [float(v) for v in graph["leaves"]]
    for op, i, j, k in graph["nodes"]:
        spec = OPERATIONS[op]
        a, b = values[i], values[j] if j is not None else 0.0
        if not _valid(op, a, b, k if k is not None else 0.0):
            return None
        try:
            value = spec.forward(a, b, k if k is not None else 0.0)
        except (OverflowError, ZeroDivisionError, ValueError):
            return None
        if isinstance(value, complex) or not math.isfinite(value) or abs(value) > 1e6:
            return None
        values.append(value)
    return values


def names(graph: Graph) -> list[str]:
    """The names the program gives the values: a, b, ... for leaves, t1, t2, ... then out."""
    leaves = [chr(ord("a") + n) for n in range(len(graph["leaves"]))]
    inner = [f"t{n + 1}" for n in range(len(graph["nodes"]) - 1)]
    return [*leaves, *inner, "out"] if graph["nodes"] else leaves


def _number_text(k: float) -> str:
    return str(int(k)) if float(k).is_integer() else repr(float(k))


def program(graph: Graph) -> str:
    """The graph as one line of Python the student can paste and run."""
    label = names(graph)
    lines = [f"{label[n]} = Value({float(v)!r})" for n, v in enumerate(graph["leaves"])]
    offset = len(graph["leaves"])
    for n, (op, i, j, k) in enumerate(graph["nodes"]):
        expression = OPERATIONS[op].code.format(a=label[i], b=label[j] if j is not None else "",
                                         k=_number_text(k) if k is not None else "")
        lines.append(f"{label[offset + n]} = {expression}")
    lines.append(f"{label[-1]}.backward()")
    return "; ".join(lines)


def consumers(graph: Graph) -> dict[int, list[tuple[int, int]]]:
    """For each value, the (node, operand slot) pairs that use it; a*a uses a in both slots."""
    table: dict[int, list[tuple[int, int]]] = {n: [] for n in range(size(graph))}
    offset = len(graph["leaves"])
    for n, (_op, i, j, _k) in enumerate(graph["nodes"]):
        table[i].append((offset + n, 0))
        if j is not None:
            table[j].append((offset + n, 1))
    return table


def size(graph: Graph) -> int:
    """How many values the graph has."""
    return len(graph["leaves"]) + len(graph["nodes"])


def prune(graph: Graph) -> Graph:
    """The graph without the values its output does not depend on, renumbered."""
    offset = len(graph["leaves"])
    needed = {size(graph) - 1}
    for n in range(len(graph["nodes"]) - 1, -1, -1):
        if offset + n in needed:
            _op, i, j, _k = graph["nodes"][n]
            needed.add(i)
            if j is not None:
                needed.add(j)
    kept = sorted(needed)
    renumber = {old: new for new, old in enumerate(kept)}
    leaves = [graph["leaves"][n] for n in kept if n < offset]
    nodes = [[op, renumber[i], renumber[j] if j is not None else None, k]
             for n, (op, i, j, k) in enumerate(graph["nodes"]) if offset + n in needed]
    return {"leaves": leaves, "nodes": nodes}


def fold_sinks(leaves: list[float], nodes: list[list[Any]]) -> Graph:
    """Add '+' nodes summing every value nobody uses, so the output depends on all of them."""
    used = {i for _, i, _, _ in nodes} | {j for _, _, j, _ in nodes if j is not None}
    sinks = [n for n in range(len(leaves) + len(nodes)) if n not in used]
    total = sinks[0]
    for n in sinks[1:]:
        nodes.append(["add", total, n, None])
        total = len(leaves) + len(nodes) - 1
    return {"leaves": leaves, "nodes": nodes}


# -- drawing -------------------------------------------------------------------------------------

def random_graph(rng: random.Random, ops: Sequence[str], max_nodes: int = 12) -> Graph:
    """A random graph of `ops`: nodes often use recent values, so values get several users at
    different depths, and a two-Value op often takes the same value twice.

    Drawn from a seeded `random.Random`, not by hypothesis's engine: a check draws a few dozen
    graphs per submission, and hypothesis's per-run overhead (tens of milliseconds) would be
    most of the check's cost. The project's own tests draw the seeds with hypothesis.
    """
    leaves = [rng.choice((-1, 1)) * rng.randint(300, 2500) / 1000
              for _ in range(rng.randint(1, 4))]
    values, nodes = list(leaves), []
    for _ in range(rng.randint(1, max_nodes)):
        op = rng.choice(list(ops))
        last = len(values) - 1
        i = rng.randint(max(0, last - 3), last) if rng.random() < 0.5 else rng.randint(0, last)
        j = k = None
        if OPERATIONS[op].binary:
            j = i if rng.random() < 0.3 else rng.randint(0, last)
        if OPERATIONS[op].number:
            k = rng.choice(EXPONENTS if op == "pow" else NUMBERS)
        spec = OPERATIONS[op]
        a, b = values[i], values[j] if j is not None else 0.0
        value = None
        if _valid(op, a, b, k or 0.0):
            try:
                value = spec.forward(a, b, k or 0.0)
            except (OverflowError, ZeroDivisionError, ValueError):
                value = None
        if value is None or isinstance(value, complex) or abs(value) > MAX_DATA:
            op, j, k, value = "mul-number-on-right", None, 0.5, a * 0.5  # |a| <= MAX_DATA: so is a * 0.5
        nodes.append([op, i, j, k])
        values.append(value)
    return fold_sinks(leaves, nodes)


def _leaf_values(rng: random.Random, signs: str) -> list[float]:
    """Leaf values for a fixed shape, one per character of `signs` ('+' positive, '-'
    negative, '?' either, '<' positive below 1, '=' the same as the previous leaf): magnitudes
    in [0.5, 2.5] ('<': [0.3, 0.9]), 3 decimals, away from 1 and from each other, so no bug
    hides behind a coincidence."""
    while True:
        values: list[float] = []
        for sign in signs:
            if sign == "=":
                values.append(values[-1])
                continue
            low, high = (0.3, 0.9) if sign == "<" else (0.5, 2.5)
            magnitude = round(rng.uniform(low, high), 3)
            factor = {"+": 1, "<": 1, "-": -1}.get(sign) or rng.choice((-1, 1))
            values.append(factor * magnitude)
        magnitudes = [abs(v) for s, v in zip(signs, values, strict=True) if s != "="]
        if (all(abs(m - 1) > 0.1 for m in magnitudes) and all(
                abs(x - y) > 0.05 for x, y in itertools.combinations(magnitudes, 2))):
            return values


# Shapes drawn under every seed: (leaf signs, nodes). Operand indices count the leaves first.
SHAPES_LAB01: list[tuple[str, list[list[Any]]]] = [
    # the diamond, both ways round: a*b + a, a + a*b
    ("??", [["mul", 0, 1, None], ["add", 2, 0, None]]),
    ("??", [["mul", 0, 1, None], ["add", 0, 2, None]]),
    # the same value twice: (a + a) * b, (a * a) * b
    ("??", [["add", 0, 0, None], ["mul", 2, 1, None]]),
    ("??", [["mul", 0, 0, None], ["mul", 2, 1, None]]),
    # x = a*b consumed at depths 1 and 2 (y = x*c; out = y + x, and out = x + y) ...
    ("???", [["mul", 0, 1, None], ["mul", 3, 2, None], ["add", 4, 3, None]]),
    ("???", [["mul", 0, 1, None], ["mul", 3, 2, None], ["add", 3, 4, None]]),
    # ... and at depths 1 and 3
    ("???", [["mul", 0, 1, None], ["mul", 3, 2, None], ["mul", 4, 2, None],
             ["add", 5, 3, None]]),
    ("???", [["mul", 0, 1, None], ["add", 3, 2, None], ["mul", 4, 2, None],
             ["add", 3, 5, None]]),
    # siblings: x = a*b; out = x*c + x*d
    ("????", [["mul", 0, 1, None], ["mul", 4, 2, None], ["mul", 4, 3, None],
              ["add", 5, 6, None]]),
    # numbers on either side: (a*2 + 3*a) ... then 1.5 + _, _ + 0.5, 2.5 * _
    ("??", [["mul-number-on-right", 0, None, 2], ["mul-number-on-left", 0, None, 3], ["add", 2, 3, None],
            ["add-number-on-left", 4, None, 1.5], ["add-number-on-right", 5, None, 0.5], ["mul-number-on-left", 6, None, 2.5],
            ["mul", 7, 1, None]]),
    # a chain that reuses its leaves: t = t*b + a, three times
    ("??", [["mul", 0, 1, None], ["add", 2, 0, None], ["mul", 3, 1, None], ["add", 4, 0, None],
            ["mul", 5, 1, None], ["add", 6, 0, None]]),
    # equal data: a*b and b*a are different nodes; two leaves holding the same number
    ("???", [["mul", 0, 1, None], ["mul", 1, 0, None], ["mul", 3, 2, None],
             ["add", 5, 4, None]]),
    ("?=?", [["mul", 0, 1, None], ["add", 3, 2, None]]),
    # a shared square: x = a + b; out = x*x + x*c
    ("???", [["add", 0, 1, None], ["mul", 3, 3, None], ["mul", 3, 2, None],
             ["add", 4, 5, None]]),
]


def _unary_shape(op: str, k: float | None = None, sign: str = "?") -> tuple[str, list[list[Any]]]:
    """x = op(a); out = ((x*b) + x) + a: scaled by b, used twice, its input reused."""
    return (sign + "?", [[op, 0, None, k], ["mul", 2, 1, None], ["add", 3, 2, None],
                         ["add", 4, 0, None]])


def _binary_shape(op: str, sign: str = "??") -> tuple[str, list[list[Any]]]:
    """x = a op b; out = ((x*c) + x) + a + b, and out = b op b."""
    return (sign + "?", [[op, 0, 1, None], ["mul", 3, 2, None], ["add", 4, 3, None],
                         ["add", 5, 0, None], ["add", 6, 1, None]])


def _number_shape(op: str, k: float, sign: str = "?") -> tuple[str, list[list[Any]]]:
    """x = a op k (or k op a); out = (x*b + x) + a."""
    return (sign + "?", [[op, 0, None, k], ["mul", 2, 1, None], ["add", 3, 2, None],
                         ["add", 4, 0, None]])


def _twice_shape(op: str) -> tuple[str, list[list[Any]]]:
    """op(a) * op(b): the same operation twice in one graph."""
    return ("??", [[op, 0, None, None], [op, 1, None, None], ["mul", 2, 3, None]])


SHAPES_LAB02: list[tuple[str, list[list[Any]]]] = [
    *SHAPES_LAB01,
    *(_unary_shape(op) for op in ("neg", "exp", "tanh", "sigmoid")),
    _unary_shape("log", sign="+"),
    _unary_shape("relu", sign="+"), _unary_shape("relu", sign="<"), _unary_shape("relu", sign="-"),
    *(_unary_shape("pow", k) for k in (2, 3, -1, -2)),
    _unary_shape("pow", 0.5, sign="+"), _unary_shape("pow", 1.5, sign="+"),
    _binary_shape("sub"), _binary_shape("truediv"),
    ("??", [["sub", 0, 0, None], ["add", 2, 1, None]]),
    ("??", [["truediv", 0, 1, None], ["truediv", 1, 0, None], ["mul", 2, 3, None]]),
    *(_number_shape(op, k) for op in ("sub-number-on-right", "sub-number-on-left", "truediv-number-on-right", "truediv-number-on-left") for k in (2, 0.5)),
    # the same operation twice in one graph: op(a) * op(b)
    *(_twice_shape(op) for op in ("neg", "exp", "tanh", "sigmoid")),
    ("++", [["log", 0, None, None], ["log", 1, None, None], ["mul", 2, 3, None]]),
    ("+-", [["relu", 0, None, None], ["relu", 1, None, None], ["add", 2, 3, None]]),
    ("??", [["pow", 0, None, 3], ["pow", 1, None, 2], ["mul", 2, 3, None]]),
    # a negative base under an int exponent in every draw: a `**` that fails there (as
    # e^(n log x) does) fails this check under every seed, not under some
    _unary_shape("pow", 3, sign="-"),
]


# Lab 03 walks big graphs: the traversal shapes of lab 01, and a graph where x*x and x + x list
# x twice in _prev while x has other users on both sides of the final sums (a sort that counts
# users per distinct parent runs x too early whichever side it finishes first).
SHAPES_LAB03: list[tuple[str, list[list[Any]]]] = [
    *SHAPES_LAB01,
    ("???", [["mul", 0, 1, None], ["mul", 3, 3, None], ["add", 3, 2, None], ["add", 4, 5, None],
             ["mul", 0, 2, None], ["add", 7, 1, None], ["mul", 7, 7, None], ["add", 8, 9, None],
             ["add", 6, 10, None], ["add", 0, 0, None], ["mul", 12, 11, None]]),
    ("??", [["tanh", 0, None, None], ["sub", 2, 1, None], ["mul", 3, 3, None],
            ["add", 4, 2, None], ["pow", 5, None, 2], ["add", 6, 3, None]]),
    # every operation lab 02 wrote, its node scaled and used twice: lab 03's value.py hands
    # them over complete, but a student's edit can still break one (relu below 1 and below 0:
    # its slope is 1 on (0, 1) as well)
    *(_unary_shape(op) for op in ("neg", "exp", "tanh", "sigmoid")),
    _unary_shape("log", sign="+"),
    _unary_shape("relu", sign="<"), _unary_shape("relu", sign="-"),
    _unary_shape("pow", 3), _binary_shape("sub"), _binary_shape("truediv"),
]


def reused_op_graphs(rng: random.Random) -> list[Graph]:
    """op(a) + a for every operation of lab02 (and (a op b) + a + b for - and /): a node that
    overwrites its input's gradient loses the + a, whatever the op."""
    unary = [("neg", None, "?"), ("exp", None, "?"), ("log", None, "+"), ("tanh", None, "?"),
             ("relu", None, "+"), ("sigmoid", None, "?"), ("pow", 2, "-"), ("pow", 0.5, "+")]
    graphs = [{"leaves": _leaf_values(rng, sign), "nodes": [[op, 0, None, k], ["add", 1, 0, None]]}
              for op, k, sign in unary]
    graphs += [{"leaves": _leaf_values(rng, "??"),
                "nodes": [[op, 0, 1, None], ["add", 2, 0, None], ["add", 3, 1, None]]}
               for op in ("sub", "truediv")]
    return graphs


def graphs_without(graphs: list[Graph], ops: set[str]) -> list[Graph]:
    """The graphs that use none of `ops`: a cross-operation check judges each operation on its
    own, so an operation whose own checks failed costs those checks, not this one."""
    return [graph for graph in graphs if not {node[0] for node in graph["nodes"]} & ops]


def fixed_shapes(rng: random.Random, shapes: Sequence[tuple[str, list[list[Any]]]]) -> list[Graph]:
    """The shapes that matter, with fresh leaf values from `rng`."""
    return [{"leaves": _leaf_values(rng, signs), "nodes": [list(node) for node in nodes]}
            for signs, nodes in shapes]


def draw_graphs(rng: random.Random, ops: Sequence[str], count: int,
                shapes: Sequence[tuple[str, list[list[Any]]]]) -> list[Graph]:
    """The fixed shapes, then `count` random graphs: the same ones for the same rng."""
    graphs = fixed_shapes(rng, shapes)
    drawn = [random_graph(rng, ops) for _ in range(count)]
    return graphs + [g for g in drawn if forward_values(g) is not None]


# -- comparing ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Difference:
    """One number of one node that is not what the reference gives."""

    node: int
    what: str  # "data" or "grad"
    actual: float | None
    expected: float


def _numbers(entry: Any, key: str, count: int) -> list[float | None]:
    values = field(entry, key, list)
    if len(values) != count:
        fail("bad-result", reason=f"{key!r} does not have one number per node")
    for value in values:
        if value is not None and type(value) not in (int, float):
            fail("bad-result", reason=f"{key!r} holds something that is not a number")
    return [None if v is None else float(v) for v in values]


def _close(actual: float | None, expected: float, scale: float) -> bool:
    return actual is not None and math.isclose(actual, expected, rel_tol=REL_TOL,
                                               abs_tol=ABS_TOL * scale)


def differences(graph: Graph, got: Any, want: dict[str, Any]) -> list[Difference] | None:
    """The numbers that differ, data before grads (None when the student's code raised)."""
    if not isinstance(got, dict):
        fail("bad-result", reason="a graph's result is not an object")
    if "error" in got:
        return None
    count = size(graph)
    found = []
    got_data, got_grad = _numbers(got, "data", count), _numbers(got, "grad", count)
    scale = max(1.0, *(abs(g) for g in want["grad"])) * 10
    for what, actual, expected in (("data", got_data, want["data"]),
                                   ("grad", got_grad, want["grad"])):
        for node, (a, e) in enumerate(zip(actual, expected, strict=True)):
            if not _close(a, e, scale if what == "grad" else 1.0):
                found.append(Difference(node, what, a, e))
    return found


def _fails(graph: Graph, got: Any, want: dict[str, Any]) -> bool:
    found = differences(graph, got, want)
    return found is None or bool(found)


# -- shrinking -----------------------------------------------------------------------------------

def _without_node(graph: Graph, node: int, replacement: int) -> Graph:
    """The graph with every use of value `node` replaced by the earlier value `replacement`."""
    offset = len(graph["leaves"])
    nodes = []
    for n, (op, i, j, k) in enumerate(graph["nodes"]):
        if offset + n == node:
            nodes.append(["add", replacement, replacement, None])  # unused once rewired
            continue
        nodes.append([op, replacement if i == node else i,
                      (replacement if j == node else j) if j is not None else None, k])
    return prune({"leaves": list(graph["leaves"]), "nodes": nodes})


def candidates(graph: Graph) -> list[Graph]:
    """Smaller graphs to try: the output moved to an inner node, or a node bypassed (its users
    take one of its operands instead); only graphs whose ops stay in their domains."""
    offset = len(graph["leaves"])
    found: list[Graph] = []
    for n in range(len(graph["nodes"]) - 1):
        found.append(prune({"leaves": list(graph["leaves"]), "nodes": graph["nodes"][:n + 1]}))
    for n, (_op, i, j, _k) in enumerate(graph["nodes"][:-1]):
        for operand in dict.fromkeys(x for x in (i, j) if x is not None):
            found.append(_without_node(graph, offset + n, operand))
    unique = {repr(g): g for g in found if g["nodes"] and size(g) < size(graph)}
    return [g for g in unique.values() if forward_values(g) is not None]


def _simpler_leaves(graph: Graph) -> Graph | None:
    """The graph with leaves rounded to one decimal (kept away from 0 and 1), if that changes
    them and the ops stay in their domains."""
    leaves = []
    for v in graph["leaves"]:
        rounded = round(v, 1)
        leaves.append(v if abs(abs(rounded) - 1) < 0.05 or rounded == 0 else rounded)
    if leaves == graph["leaves"]:
        return None
    simpler = {"leaves": leaves, "nodes": graph["nodes"]}
    return simpler if forward_values(simpler) is not None else None


def shrink(graph: Graph, still_fails: Callable[[list[Graph]], list[bool]]) -> Graph:
    """The smallest failing graph found by greedy rounds of candidates, within the budget."""
    deadline = time.monotonic() + SHRINK_SECONDS
    current = graph
    for _ in range(SHRINK_ROUNDS):
        if time.monotonic() > deadline:
            break
        options = candidates(current)
        simpler = _simpler_leaves(current)
        if simpler is not None:
            options.append(simpler)
        if not options:
            break
        verdicts = still_fails(options)
        failing = [g for g, failed in zip(options, verdicts, strict=True) if failed]
        if not failing:
            break
        current = min(failing, key=lambda g: (size(g), g is not simpler))
    return current


# -- naming the pitfall --------------------------------------------------------------------------

@dataclass(frozen=True)
class Diagnosis:
    """The pitfall a failing graph shows, and the finding (a catalogue detail) that says why."""

    pitfall: str
    finding: dict[str, Any] | None


def _finding(kind: str, **params: Any) -> dict[str, Any]:
    return {"kind": kind, "params": params}


def _subset_sums(parts: list[float]) -> list[float]:
    """Sums of the non-empty strict subsets of parts (at most 2**8 of them)."""
    parts = parts[:8]
    return [sum(combo) for r in range(1, len(parts)) for combo in itertools.combinations(parts, r)]


def _diagnose_error(graph: Graph, got: dict[str, Any], default: str) -> Diagnosis:
    error = str(got.get("error", ""))
    finding = _finding("finding-raised", error=error)
    if "unhashable" in error:
        return Diagnosis("hash-trap", finding)
    if "NoneType' object is not callable" in error:
        return Diagnosis("leaf-backward", finding)
    if got.get("stage") == "build":
        number = any(OPERATIONS[op].number for op, *_ in graph["nodes"])
        return Diagnosis("number-operand" if number else "graph-construction", finding)
    return Diagnosis(default, finding)


def _diagnose_calls(graph: Graph, calls: list[int], label: list[str],
                    want: dict[str, Any]) -> Diagnosis | None:
    """Order, repeated and missing `_backward` calls of the inner nodes, when they were recorded."""
    offset = len(graph["leaves"])
    inner = range(offset, size(graph))
    if not calls:
        return None
    for node in inner:
        if calls.count(node) > 1:
            return Diagnosis("missing-visited-set", _finding(
                "finding-repeated", node=label[node], count=calls.count(node)))
    last = {node: position for position, node in enumerate(calls)}
    for node in inner:
        if node not in last:
            twins = [label[n] for n in range(size(graph)) if n != node
                     and math.isclose(want["data"][n], want["data"][node], rel_tol=1e-12)]
            pitfall = "hash-trap" if twins else "graph-construction"
            return Diagnosis(pitfall, _finding("finding-not-called", node=label[node]))
        for consumer, _slot in consumers(graph)[node]:
            if consumer in last and last[node] < last[consumer]:
                return Diagnosis("topological-order", _finding(
                    "finding-order", node=label[node], consumer=label[consumer]))
    return None


def _diagnose_gradient(graph: Graph, wrong: set[int], got_grad: list[float | None],
                       want: dict[str, Any], label: list[str], default: str) -> Diagnosis:
    """Name the pitfall at the wrong node nearest the output (its users' gradients are right)."""
    output = size(graph) - 1
    if output in wrong:
        return Diagnosis("seed-gradient", _finding("finding-seed", node=label[output]))
    data = want["data"]
    table = consumers(graph)
    offset = len(graph["leaves"])
    for node in sorted(wrong, reverse=True):
        users = table[node]
        if any(user in wrong for user, _ in users):
            continue
        local, parts = [], []
        for user, slot in users:
            op, i, j, k = graph["nodes"][user - offset]
            partial = OPERATIONS[op].partials(data[i], data[j] if j is not None else 0.0,
                                       k if k is not None else 0.0)[slot]
            local.append(partial)
            parts.append(partial * want["grad"][user])
        actual = got_grad[node]
        if actual is None:
            break
        if len(parts) > 1 and any(math.isclose(actual, s, rel_tol=1e-6, abs_tol=1e-9)
                                  for s in _subset_sums(parts)):
            return Diagnosis("grad-overwrite", _finding(
                "finding-partial", node=label[node], uses=len(parts)))
        upstream = [want["grad"][user] for user, _ in users]
        if any(not math.isclose(g, 1.0) for g in upstream) and math.isclose(
                actual, sum(local), rel_tol=1e-6, abs_tol=1e-9):
            return Diagnosis("ignores-upstream-gradient", _finding(
                "finding-no-upstream", node=label[node]))
        users_shown = sorted({label[user] for user, _ in users})
        return Diagnosis("wrong-local-derivative", _finding(
            "finding-local", node=label[node], users=", ".join(users_shown)))
    return Diagnosis(default, None)


def diagnose(graph: Graph, got: dict[str, Any], want: dict[str, Any], default: str) -> Diagnosis:
    """The pitfall a failing graph shows: raised, wrong data, `_backward` calls out of order or
    repeated, a partial sum of a node's contributions (overwrite), a contribution not scaled by
    the upstream gradient, or else a wrong local derivative."""
    if "error" in got:
        return _diagnose_error(graph, got, default)
    label = names(graph)
    found = differences(graph, got, want) or []
    data_wrong = [d for d in found if d.what == "data"]
    if data_wrong:
        first = data_wrong[0].node
        op = graph["nodes"][first - len(graph["leaves"])][0] if first >= len(graph["leaves"]) else ""
        pitfall = "number-operand" if op and OPERATIONS[op].number else "graph-construction"
        return Diagnosis(pitfall, _finding("finding-data", node=label[first]))
    calls = got.get("calls")
    if isinstance(calls, list) and all(type(c) is int and 0 <= c < size(graph) for c in calls):
        by_calls = _diagnose_calls(graph, calls, label, want)
        if by_calls is not None:
            return by_calls
    wrong = {d.node for d in found}
    return _diagnose_gradient(graph, wrong, _numbers(got, "grad", size(graph)), want, label,
                              default)


# -- the feedback ---------------------------------------------------------------------------------

def drawn_graph(graph: Graph, got: dict[str, Any], want: dict[str, Any],
                found: list[Difference]) -> dict[str, Any]:
    """The graph in the shape the feedback draws (`detail["graph"]`)."""
    label = names(graph)
    offset = len(graph["leaves"])
    wrong = {d.node for d in found}
    student_data = got.get("data") if isinstance(got.get("data"), list) else None
    student_grad = got.get("grad") if isinstance(got.get("grad"), list) else None
    nodes = []
    for n in range(size(graph)):
        op = ""
        if n >= offset:
            spec_op, _i, _j, k = graph["nodes"][n - offset]
            op = OPERATIONS[spec_op].label.format(k=_number_text(k) if k is not None else "")[:GRAPH_CAPS.op]
        nodes.append({"name": label[n], "op": op,
                      "data": student_data[n] if student_data else want["data"][n],
                      "grad": student_grad[n] if student_grad else None,
                      "expected_grad": want["grad"][n], "wrong": n in wrong})
    edges = []
    for n, (_op, i, j, _k) in enumerate(graph["nodes"]):
        edges.append({"from": label[i], "to": label[offset + n]})
        if j is not None:
            edges.append({"from": label[j], "to": label[offset + n]})
    drawn: dict[str, Any] = {"nodes": nodes, "edges": edges, "output": label[-1]}
    calls = got.get("calls")
    if isinstance(calls, list) and all(type(c) is int and 0 <= c < size(graph) for c in calls):
        drawn["calls"] = [label[c] for c in calls if c >= offset]
    return drawn


def _shown_differences(graph: Graph, found: list[Difference]) -> list[dict[str, Any]]:
    label = names(graph)
    return [{"quantity": f"{label[d.node]}.{d.what}", "actual": d.actual, "expected": d.expected}
            for d in found[:SHOWN_DIFFERENCES]]


# -- the check ------------------------------------------------------------------------------------

def _run(runner: Callable[..., Any], scen: Any, graphs: list[Graph], record: bool) -> list[Any]:
    result = runner(scen, graphs=graphs, record=record)
    entries = field(result, "results", list)
    if len(entries) != len(graphs):
        fail("bad-result", reason="the results do not have one entry per graph")
    return entries


class ReferenceFailed(RuntimeError):
    """The reference solution raised on a drawn graph: a grader bug."""


def _reference(reference: Callable[..., Any], scen: Any, graphs: list[Graph]) -> list[Any]:
    entries = _run(reference, scen, graphs, record=False)
    for graph, entry in zip(graphs, entries, strict=True):
        if "error" in entry:
            raise ReferenceFailed(f"{program(graph)}: {entry['error']}")
    return entries


def judge(sandboxed: Callable[..., Any], reference: Callable[..., Any], scen: Any,
          graphs: list[Graph], default_pitfall: str, diagnosed: bool = True,
          explain: bool = True) -> None:
    """Fail with a shrunk, diagnosed counterexample unless the student's engine gives the
    reference's data and gradients on every node of every graph (`diagnosed=False`: the
    failure keeps the check's own pitfall; `explain=False`: the smallest drawn graph, neither
    shrunk nor diagnosed, for a failure that another check's blame will stand for)."""
    got = _run(sandboxed, scen, graphs, record=False)
    want = _reference(reference, scen, graphs)
    failing = [g for g, a, e in zip(graphs, got, want, strict=True) if _fails(g, a, e)]
    if not failing:
        return
    smallest = min(failing, key=size)
    raised = "error" in got[graphs.index(smallest)]

    def still_fails(options: list[Graph]) -> list[bool]:
        try:
            results = _run(sandboxed, scen, options, record=False)
        except AssertionError:  # the run itself failed: keep what we have
            return [False] * len(options)
        expected = _reference(reference, scen, options)
        return [_fails(g, a, e) and (("error" in a) == raised)
                for g, a, e in zip(options, results, expected, strict=True)]

    shrunk = shrink(smallest, still_fails) if explain else smallest
    [student] = _run(sandboxed, scen, [shrunk], record=True)
    [expected] = _reference(reference, scen, [shrunk])
    if not _fails(shrunk, student, expected):  # recording changed the outcome: no calls
        [student] = _run(sandboxed, scen, [shrunk], record=False)
    diagnosis = (diagnose(shrunk, student, expected, default_pitfall) if diagnosed and explain
                 else Diagnosis(default_pitfall, None))
    extra = {"finding": diagnosis.finding} if diagnosis.finding else {}
    if "error" in student:
        fail("graph-raised", pitfall=diagnosis.pitfall, program=program(shrunk),
             error=str(student["error"]))
    found = differences(shrunk, student, expected) or []
    fail("graph-mismatch", pitfall=diagnosis.pitfall,
         graph=drawn_graph(shrunk, student, expected, found), program=program(shrunk),
         differences=_shown_differences(shrunk, found), source="reference", **extra)
