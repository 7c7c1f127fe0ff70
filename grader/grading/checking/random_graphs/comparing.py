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
EXACT_REL_TOL, EXACT_ABS_TOL = 1e-9, 1e-310
# tanh's value to the README's relative 1e-6, down to an absolute 1e-14 near 0: tanh(x) is about
# x there, so x itself for small x (off by x**3/3, 4e-8 at 0.005) differs, while the lecture's
# forms ((1 - e)/(1 + e) with e = exp(-2|x|)), whose error near 0 is a few 1e-16 absolute, pass:
# they cancel at tiny inputs (tanh(1e-300) is 0) as every formula through exp(-2|x|) does.
INEXACT_OPS = {"tanh": (1e-6, 1e-14)}
# Operations whose result's relative error is at most their operands' (a product, a quotient,
# a sign): a tanh's data scaled by a number is still compared relatively.
RELATIVE_OPS = frozenset({"mul", "truediv", "neg", "mul-number-on-right", "mul-number-on-left",
                          "truediv-number-on-right", "truediv-number-on-left"})


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


def _exact_data(program: Program) -> list[tuple[float, float] | None]:
    """Per value: the (relative, absolute) tolerances its data is compared to, or None (REL_TOL
    and the scaled absolute one): EXACT_REL_TOL and EXACT_ABS_TOL for a leaf and for a node
    whose operands are exact, INEXACT_OPS' own for those operations on exact operands, the
    largest of its operands' for a RELATIVE_OPS node."""
    exact = (EXACT_REL_TOL, EXACT_ABS_TOL)
    tols: list[tuple[float, float] | None] = [exact] * len(program["leaves"])
    for op, i, j, k in program["nodes"]:
        operands = [tols[i]] + ([] if j is None else [tols[j]])
        known = [t for t in operands if t is not None]
        scale = abs(k) if isinstance(k, (int, float)) and op in RELATIVE_OPS else 1.0
        if len(known) < len(operands):
            tols.append(None)
        elif op in INEXACT_OPS:
            tols.append((max(INEXACT_OPS[op][0], *(t[0] for t in known)),
                         max(INEXACT_OPS[op][1], *(t[1] for t in known))))
        elif all(t == exact for t in known):
            tols.append(exact)
        elif op in RELATIVE_OPS:
            tols.append((max(t[0] for t in known), max(t[1] for t in known) * max(1.0, scale)))
        else:
            tols.append(None)
    return tols


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
    tight = _exact_data(program) if exact else [None] * count
    for node, (a, e) in enumerate(zip(got_data, want["data"], strict=True)):
        tol = tight[node]
        close = (a is not None and math.isclose(a, e, rel_tol=tol[0], abs_tol=tol[1])
                 if tol is not None else _close(a, e, 1.0))
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
