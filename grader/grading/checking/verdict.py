"""What a check raises: student failures carry a catalogue detail, never prose.

Side: trusted process: verdicts judge plain data that came back from the sandbox.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

REL_TOL = 1e-6
ABS_TOL = 1e-9


class CheckFailed(AssertionError):
    """The student's code did not do what the check expects; `detail` says what happened.

    `pitfall`, when given, names the pitfall this failure shows instead of the check's own
    (a random-graph check diagnoses it from what differs); `graph` is the failing graph in the
    shape the feedback draws (`detail["graph"]`: nodes, edges, output, calls).
    """

    def __init__(self, kind: str, output: str = "", *, pitfall: str | None = None,
                 graph: dict[str, Any] | None = None, **params: Any) -> None:
        super().__init__(f"{kind}: {params}")
        self.detail: dict[str, Any] = {"kind": kind, "params": params}
        if graph is not None:
            self.detail["graph"] = graph
        self.output = output
        self.pitfall = pitfall


class StructureFailed(CheckFailed):
    """A failure about the graph's attribute names or labels alone (a `_op`, a `_prev`): the
    check fails, and the checks that wait for it still run, since their numbers go through
    `data`, `grad` and `backward()` only (`structure_only`)."""


@contextmanager
def structure_only() -> Iterator[None]:
    """Judge a structural attribute: a CheckFailed raised inside becomes a StructureFailed."""
    try:
        yield
    except StructureFailed:
        raise
    except CheckFailed as exc:
        raise StructureFailed(exc.detail["kind"], exc.output, pitfall=exc.pitfall,
                              graph=exc.detail.get("graph"), **exc.detail["params"]) from None


class NotRun(Exception):
    """The check could not be run on this submission; `detail` says why."""

    def __init__(self, kind: str, **params: Any) -> None:
        super().__init__(f"{kind}: {params}")
        self.detail = {"kind": kind, "params": params}


# A quantity is code (`a.grad`) or, when it takes words to say, a detail the catalogue renders.
Quantity = str | dict[str, Any]


def said(kind: str, **params: Any) -> dict[str, Any]:
    """A quantity or input that takes words to say: the catalogue's details.<kind>.text, so it
    reads in the student's language (`said("quantity-after-call", code=..., call=...)`)."""
    return {"kind": kind, "params": params}


def fail(kind: str, **params: Any) -> NoReturn:
    """Fail the current check with a catalogue detail."""
    raise CheckFailed(kind, **params)


def close(actual: float, expected: float) -> bool:
    """Relative closeness, with a small absolute floor near zero."""
    return math.isclose(actual, expected, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def expect_close(
    actual: float, expected: float, *, quantity: Quantity, inputs: dict[str, Any], source: str
) -> None:
    """Fail with a `mismatch` detail unless actual is close to expected."""
    if not close(actual, expected):
        fail("mismatch", quantity=quantity, inputs=inputs, expected=expected, actual=actual,
             source=source)


def expect_equal(
    actual: Any, expected: Any, *, quantity: Quantity, inputs: dict[str, Any], source: str = "literal"
) -> None:
    """Fail with a `mismatch` detail unless actual == expected (for labels, names and counts)."""
    if actual != expected:
        fail("mismatch", quantity=quantity, inputs=inputs, expected=expected, actual=actual,
             source=source)


def field(result: Any, key: str, kind: type | tuple[type, ...]) -> Any:
    """result[key] if result is a dict holding a value of `kind`; a failed check otherwise.

    Results come from the student's process, so their shape is checked, never assumed.
    """
    if not isinstance(result, dict) or key not in result:
        fail("bad-result", reason=f"the result has no {key!r}")
    value = result[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if float in kinds and type(value) is int:
        try:
            value = float(value)
        except OverflowError:  # the protocol refuses such integers; a forged reply still fails
            fail("bad-result", reason=f"{key!r} is an integer too large for a float")
    if type(value) not in kinds:  # exact types: True is not an int here, nor 1 a float
        fail("bad-result", reason=f"{key!r} has the wrong type")
    return value


def expect_results_close(
    result: Any, expected: dict[str, float], *, inputs: dict[str, Any], source: str
) -> None:
    """expect_close for every quantity of `expected` against the same key of the student result."""
    for quantity, value in expected.items():
        actual = field(result, quantity, float)
        expect_close(actual, value, quantity=quantity, inputs=inputs, source=source)
