"""Naming the pitfall a failing program shows, and the finding that says why.

Side: trusted process. The shrunk program is run once more with `_backward` calls recorded; what
differs from the reference then names the pitfall: the error raised, a wrong data, calls out of
order or repeated, a gradient that is a partial sum of its contributions (overwrite), one not
scaled by the upstream gradient, or else a wrong local derivative.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from grader.grading.checking.random_graphs.comparing import differences, reported_numbers
from grader.grading.checking.random_graphs.programs import (
    Program,
    consumers,
    names,
    node_of,
    program_nodes,
    size,
)
from grader.grading.child.graph import OPERATIONS


@dataclass(frozen=True)
class Diagnosis:
    """The pitfall a failing program shows, and the finding (a catalogue detail) that says why."""

    pitfall: str
    finding: dict[str, Any] | None


def _finding(kind: str, **params: Any) -> dict[str, Any]:
    return {"kind": kind, "params": params}


def _subset_sums(parts: list[float]) -> list[float]:
    """Sums of the non-empty strict subsets of parts (at most 2**8 of them)."""
    parts = parts[:8]
    return [sum(combo) for r in range(1, len(parts)) for combo in itertools.combinations(parts, r)]


def _diagnose_error(program: Program, got: dict[str, Any], default: str) -> Diagnosis:
    error = str(got.get("error", ""))
    finding = _finding("finding-raised", error=error)
    if "unhashable" in error:
        return Diagnosis("hash-trap", finding)
    if "NoneType' object is not callable" in error:
        return Diagnosis("leaf-backward", finding)
    if got.get("stage") == "build":
        number = any(OPERATIONS[node.op].number for node in program_nodes(program))
        return Diagnosis("number-operand" if number else "graph-construction", finding)
    return Diagnosis(default, finding)


def _diagnose_calls(program: Program, calls: list[int], label: list[str],
                    want: dict[str, Any]) -> Diagnosis | None:
    """Order, repeated and missing `_backward` calls of the inner nodes, when they were recorded."""
    offset = len(program["leaves"])
    inner = range(offset, size(program))
    if not calls:
        return None
    for node in inner:
        if calls.count(node) > 1:
            return Diagnosis("missing-visited-set", _finding(
                "finding-repeated", node=label[node], count=calls.count(node)))
    last = {node: position for position, node in enumerate(calls)}
    for node in inner:
        if node not in last:
            twins = [label[n] for n in range(size(program)) if n != node
                     and math.isclose(want["data"][n], want["data"][node], rel_tol=1e-12)]
            pitfall = "hash-trap" if twins else "graph-construction"
            return Diagnosis(pitfall, _finding("finding-not-called", node=label[node]))
        for consumer, _slot in consumers(program)[node]:
            if consumer in last and last[node] < last[consumer]:
                return Diagnosis("topological-order", _finding(
                    "finding-order", node=label[node], consumer=label[consumer]))
    return None


class _Use(NamedTuple):
    """One use of a value by a later node, with the reference's numbers there."""

    user: int  # the node that uses the value
    local: float  # d user / d value: the local derivative at this operand slot
    upstream: float  # the user's gradient (right: only a value whose users are right is blamed)

    @property
    def contribution(self) -> float:
        """This use's share of the value's gradient (the chain rule)."""
        return self.local * self.upstream


def _use(program: Program, want: dict[str, Any], user: int, slot: int) -> _Use:
    node = node_of(program, user)
    partials = OPERATIONS[node.op].partials(*node.operands(want["data"]))
    return _Use(user, partials[slot], want["grad"][user])


def _close(actual: float, expected: float) -> bool:
    return math.isclose(actual, expected, rel_tol=1e-6, abs_tol=1e-9)


def _blame(name: str, actual: float, uses: list[_Use], label: list[str]) -> Diagnosis:
    """The pitfall of a value whose gradient is `actual` while every user's gradient is right."""
    if len(uses) > 1 and any(_close(actual, s)
                             for s in _subset_sums([use.contribution for use in uses])):
        return Diagnosis("grad-overwrite", _finding("finding-partial", node=name, uses=len(uses)))
    scaled = any(not math.isclose(use.upstream, 1.0) for use in uses)
    if scaled and _close(actual, sum(use.local for use in uses)):
        return Diagnosis("ignores-upstream-gradient", _finding("finding-no-upstream", node=name))
    users_shown = sorted({label[use.user] for use in uses})
    return Diagnosis("wrong-local-derivative", _finding(
        "finding-local", node=name, users=", ".join(users_shown)))


def _diagnose_gradient(program: Program, wrong: set[int], got_grad: list[float | None],
                       want: dict[str, Any], label: list[str], default: str) -> Diagnosis:
    """Name the pitfall at the wrong value nearest the output (its users' gradients are right)."""
    output = size(program) - 1
    if output in wrong:
        return Diagnosis("seed-gradient", _finding("finding-seed", node=label[output]))
    users_of = consumers(program)
    for value in sorted(wrong, reverse=True):
        if any(user in wrong for user, _slot in users_of[value]):
            continue  # a user is wrong too: the blame lies nearer the output
        uses = [_use(program, want, user, slot) for user, slot in users_of[value]]
        actual = got_grad[value]
        if actual is None:
            break
        return _blame(label[value], actual, uses, label)
    return Diagnosis(default, None)


def diagnose(program: Program, got: dict[str, Any], want: dict[str, Any],
             default: str) -> Diagnosis:
    """The pitfall a failing program shows: raised, wrong data, `_backward` calls out of order
    or repeated, a partial sum of a node's contributions (overwrite), a contribution not scaled
    by the upstream gradient, or else a wrong local derivative."""
    if "error" in got:
        return _diagnose_error(program, got, default)
    label = names(program)
    found = differences(program, got, want) or []
    data_wrong = [d for d in found if d.what == "data"]
    if data_wrong:
        first = data_wrong[0].node
        op = node_of(program, first).op if first >= len(program["leaves"]) else ""
        pitfall = "number-operand" if op and OPERATIONS[op].number else "graph-construction"
        return Diagnosis(pitfall, _finding("finding-data", node=label[first]))
    calls = got.get("calls")
    if isinstance(calls, list) and all(type(c) is int and 0 <= c < size(program) for c in calls):
        by_calls = _diagnose_calls(program, calls, label, want)
        if by_calls is not None:
            return by_calls
    wrong = {d.node for d in found}
    return _diagnose_gradient(program, wrong, reported_numbers(got, "grad", size(program)),
                              want, label, default)
