"""Lab 02 verdicts: how the lab02 checks run an operation and judge its derivative.

Side: trusted process. Nothing here runs student code: these functions read the plain data a
scenario of `grader.grading.child.scenarios.lab02_ops` returned and raise CheckFailed or NotRun.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.grading.checking.verdict import (
    CheckFailed,
    NotRun,
    close,
    expect_close,
    fail,
    field,
)
from grader.grading.child.graph import OPERATIONS
from grader.grading.child.scenarios.lab02_ops import apply_op

# What `apply_op` builds around the operation's node (called `node` there, `op` here).
AROUND = {"forward": "{op}", "alone": "{op}", "scaled": "({op}) * c", "reused": "{op} + a",
          "reused-both": "({op}) + a + b"}

ACCEPTED_ERRORS = "TypeError, AssertionError, NotImplementedError, ValueError"

def written(op: str, around: str = "alone", k: float | None = None) -> str:
    """The expression `apply_op` evaluates, as the student would write it."""
    expression = OPERATIONS[op].code.format(a="a", b="b", k=k)
    if around == "reused" and op in ("sub", "truediv"):
        around = "reused-both"
    return AROUND[around].format(op=expression)

def run_op(sandboxed: Callable[..., Any], op: str, around: str = "alone", **params: Any) -> Any:
    """Run `apply_op`; reused binary operations add back both operands."""
    if around == "reused" and params.get("y") is not None:
        around = "reused-both"
    return sandboxed(apply_op, op=op, around=around, **params)

def run_or_not_run(sandboxed: Callable[..., Any], what: str, op: str, **params: Any) -> Any:
    """run_op, but an exception in the student's code makes the check not run, not fail.

    For checks that look at one particular mistake: an exception belongs to another check.
    """
    try:
        return run_op(sandboxed, op, **params)
    except CheckFailed as exc:
        if exc.detail["kind"] != "exception":
            raise
        detail: Any = exc.detail["params"]
        error = f"{detail.get('type')}: {detail.get('message')}"
        raise NotRun("not-built", what=what, error=error) from None

def expect_gradient(actual: float, expected: float, *, quantity: str, inputs: dict[str, Any],
                    source: str, confused: tuple[float, str, str, str] | None = None) -> None:
    """expect_close; but a value that matches `confused` makes the check not run.

    `confused` is (value, read, instead, check): the gradient a derivative gives when it reads
    `read` where it should read `instead`, and the check that reports exactly that mistake.
    """
    if confused is not None and not close(actual, expected) and close(actual, confused[0]):
        value, read, instead, check = confused
        raise NotRun("derivative-confused", quantity=quantity, inputs=inputs, actual=actual,
                     read=read, instead=instead, checks=[check])
    expect_close(actual, expected, quantity=quantity, inputs=inputs, source=source)

def expect_not_confused(actual: float, expected: float, confused: float, *, quantity: str,
                        inputs: dict[str, Any], source: str) -> None:
    """Fail (mismatch against `expected`) only if `actual` is the confused value."""
    if close(actual, confused) and not close(actual, expected):
        expect_close(actual, expected, quantity=quantity, inputs=inputs, source=source)

def expect_rejected(result: Any, inputs: dict[str, Any]) -> None:
    """Fail unless `pow_value_exponent` saw one of the accepted exceptions."""
    expression = "a ** Value(k)"
    if not field(result, "raised", bool):
        fail("not-rejected", expression=expression, inputs=inputs,
             returned=field(result, "returned", str))
    if not field(result, "accepted", bool):
        fail("unclear-error", expression=expression, inputs=inputs,
             type=field(result, "type", str), message=field(result, "message", str),
             accepted=ACCEPTED_ERRORS)
