"""Comparing a program's run by the student's engine with the reference's, number by number.

Side: trusted process. Each entry a run reports holds every value's `data` and `grad`; a number
differs when it is not close to the reference's (relative tolerance, and an absolute one scaled
by the program's largest gradient, since contributions may cancel).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from grader.grading.checking.random_graphs.programs import Program, size
from grader.grading.checking.verdict import fail, field

REL_TOL = 1e-6
ABS_TOL = 1e-9  # scaled by the program's largest gradient: contributions may cancel
# Exact data (the contract's edge programs: one operation, a number with many significant
# digits or a tiny one): what IEEE arithmetic gives, up to a few ulps and the subnormal range.
# tanh's value is left to REL_TOL: its textbook forms lose a tiny input's digits.
EXACT_REL_TOL, EXACT_ABS_TOL = 1e-9, 1e-310
INEXACT_OPS = frozenset({"tanh"})


@dataclass(frozen=True)
class Difference:
    """One number of one value that is not what the reference gives."""

    node: int
    what: str  # "data" or "grad"
    actual: float | None
    expected: float


def reported_numbers(entry: Any, key: str, count: int) -> list[float | None]:
    """The `key` numbers ("data" or "grad") of a run's entry, one per value (None: not a number
    the student's engine left); a malformed entry fails as a bad result."""
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


def _exact_data(program: Program) -> list[bool]:
    """Per value: True when its data is compared exactly (a leaf, or a node whose operation
    is not in INEXACT_OPS and whose operands are compared exactly)."""
    exact = [True] * len(program["leaves"])
    for op, i, j, _k in program["nodes"]:
        exact.append(op not in INEXACT_OPS and exact[i] and (j is None or exact[j]))
    return exact


def differences(program: Program, got: Any, want: dict[str, Any],
                exact: bool = False) -> list[Difference] | None:
    """The numbers that differ, data before grads (None when the student's code raised); with
    `exact`, data is compared within EXACT_REL_TOL (a number rounded or flushed to 0 differs)."""
    if not isinstance(got, dict):
        fail("bad-result", reason="a graph's result is not an object")
    if "error" in got:
        return None
    count = size(program)
    found = []
    got_data, got_grad = reported_numbers(got, "data", count), reported_numbers(got, "grad", count)
    scale = max(1.0, *(abs(g) for g in want["grad"])) * 10
    tight = _exact_data(program) if exact else [False] * count
    for node, (a, e) in enumerate(zip(got_data, want["data"], strict=True)):
        close = (a is not None and math.isclose(a, e, rel_tol=EXACT_REL_TOL,
                                                abs_tol=EXACT_ABS_TOL)
                 if tight[node] else _close(a, e, 1.0))
        if not close:
            found.append(Difference(node, "data", a, e))
    for node, (a, e) in enumerate(zip(got_grad, want["grad"], strict=True)):
        if not _close(a, e, scale):
            found.append(Difference(node, "grad", a, e))
    return found


def fails(program: Program, got: Any, want: dict[str, Any], exact: bool = False) -> bool:
    """True when the student's run raised or differs from the reference's anywhere."""
    found = differences(program, got, want, exact)
    return found is None or bool(found)
