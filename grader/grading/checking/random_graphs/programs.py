"""A program, the data a random-graph check runs: what it computes on plain floats, and its text.

Side: trusted process. A program travels as plain data, {"leaves": [floats], "nodes": [[op, i,
j, k]]}: node n is `op` applied to value i (and value j, for a two-Value op) or to the plain
number k; values are the leaves, then the nodes, and the last node is the output. Run with a
Value class (`grader.grading.child.graph.run_expressions`), a program builds the graph whose
data and gradients a check compares.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from grader.grading.child.graph import OPERATIONS

Program = dict[str, Any]


class Node(NamedTuple):
    """One node of a program, named: `op` of the value `first` (and the value `second`, for a
    two-Value op) or of the plain number `number`."""

    op: str
    first: int
    second: int | None
    number: float | None

    def operands(self, values: list[float]) -> tuple[float, float, float]:
        """(a, b, k) as the operation table's functions take them, 0.0 for one the op lacks."""
        return (values[self.first], values[self.second] if self.second is not None else 0.0,
                self.number if self.number is not None else 0.0)


def program_nodes(program: Program) -> list[Node]:
    """The program's nodes, in the order they are built."""
    return [Node(*node) for node in program["nodes"]]


def node_of(program: Program, value: int) -> Node:
    """The node that computes value number `value` (which is not a leaf)."""
    return Node(*program["nodes"][value - len(program["leaves"])])


def _pow_valid(a: float, b: float, k: float) -> bool:
    if float(k).is_integer():
        return abs(a) >= 0.3 if k < 0 else True
    return a >= 0.1


# Where a drawn program may use an operation (the rest are defined everywhere): away from a
# singularity, a kink or an overflow by a margin, so no check turns on a rounding.
DOMAINS: dict[str, Callable[[float, float, float], bool]] = {
    "truediv": lambda a, b, k: abs(b) >= 0.3,
    "truediv-number-on-left": lambda a, b, k: abs(a) >= 0.3,
    "pow": _pow_valid,
    "exp": lambda a, b, k: abs(a) <= 3,
    "log": lambda a, b, k: a >= 0.1,
    "relu": lambda a, b, k: abs(a) >= 0.05,
}


def in_domain(op: str, a: float, b: float, k: float) -> bool:
    """True when `op` at (a, b, k) is inside its domain (`DOMAINS`)."""
    return DOMAINS.get(op, lambda a, b, k: True)(a, b, k)


def forward_values(program: Program) -> list[float] | None:
    """Every value of the program computed on plain floats; None if an op leaves its domain."""
    values = [float(v) for v in program["leaves"]]
    for node in program_nodes(program):
        if not in_domain(node.op, *node.operands(values)):
            return None
        try:
            value = OPERATIONS[node.op].forward(*node.operands(values))
        except (OverflowError, ZeroDivisionError, ValueError):
            return None
        if isinstance(value, complex) or not math.isfinite(value) or abs(value) > 1e6:
            return None
        values.append(value)
    return values


def names(program: Program) -> list[str]:
    """The names the program gives the values: a, b, ... for leaves, t1, t2, ... then out."""
    leaves = [chr(ord("a") + n) for n in range(len(program["leaves"]))]
    inner = [f"t{n + 1}" for n in range(len(program["nodes"]) - 1)]
    return [*leaves, *inner, "out"] if program["nodes"] else leaves


def number_text(k: float) -> str:
    """A plain number as the program writes it: 2, not 2.0."""
    return str(int(k)) if float(k).is_integer() else repr(float(k))


def as_python(program: Program) -> str:
    """The program as one line of Python the student can paste and run."""
    label = names(program)
    lines = [f"{label[n]} = Value({v if type(v) is int else float(v)!r})"  # int data stays int
             for n, v in enumerate(program["leaves"])]
    offset = len(program["leaves"])
    for n, node in enumerate(program_nodes(program)):
        expression = OPERATIONS[node.op].code.format(
            a=label[node.first], b=label[node.second] if node.second is not None else "",
            k=number_text(node.number) if node.number is not None else "")
        lines.append(f"{label[offset + n]} = {expression}")
    lines.append(f"{label[-1]}.backward()")
    return "; ".join(lines)


def consumers(program: Program) -> dict[int, list[tuple[int, int]]]:
    """For each value, the (node, operand slot) pairs that use it; a*a uses a in both slots."""
    table: dict[int, list[tuple[int, int]]] = {n: [] for n in range(size(program))}
    offset = len(program["leaves"])
    for n, node in enumerate(program_nodes(program)):
        table[node.first].append((offset + n, 0))
        if node.second is not None:
            table[node.second].append((offset + n, 1))
    return table


def size(program: Program) -> int:
    """How many values the program has."""
    return len(program["leaves"]) + len(program["nodes"])


def prune(program: Program) -> Program:
    """The program without the values its output does not depend on, renumbered."""
    offset = len(program["leaves"])
    needed = {size(program) - 1}
    for n in range(len(program["nodes"]) - 1, -1, -1):
        if offset + n in needed:
            node = Node(*program["nodes"][n])
            needed.add(node.first)
            if node.second is not None:
                needed.add(node.second)
    kept = sorted(needed)
    renumber = {old: new for new, old in enumerate(kept)}
    leaves = [program["leaves"][n] for n in kept if n < offset]
    kept_nodes = [[op, renumber[i], renumber[j] if j is not None else None, k]
                  for n, (op, i, j, k) in enumerate(program["nodes"]) if offset + n in needed]
    return {"leaves": leaves, "nodes": kept_nodes}


def fold_sinks(leaves: list[float], nodes: list[list[Any]]) -> Program:
    """Add '+' nodes summing every value nobody uses, so the output depends on all of them."""
    used = {i for _, i, _, _ in nodes} | {j for _, _, j, _ in nodes if j is not None}
    sinks = [n for n in range(len(leaves) + len(nodes)) if n not in used]
    total = sinks[0]
    for n in sinks[1:]:
        nodes.append(["add", total, n, None])
        total = len(leaves) + len(nodes) - 1
    return {"leaves": leaves, "nodes": nodes}
