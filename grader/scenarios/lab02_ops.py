"""Lab 02 scenarios: apply one operation to the student's Values and report plain numbers.

Each function decorated with @scenario runs in the sandbox child (and, for hidden checks, on
the reference solution in the trusted process); it may use only its parameters and the helpers
of grader.sandbox.kit. The plain functions below them run in the trusted process only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.expect import CheckFailed, NotRun, close, expect_close, fail, field
from grader.sandbox import scenario
from grader.sandbox.kit import data_of, grad_of

# How each operation of `apply_op` is written, with a for the first Value, b for the second
# and {k} for the plain number.
WRITTEN = {
    "neg": "-a", "sub": "a - b", "truediv": "a / b", "pow": "a ** {k}",
    "exp": "a.exp()", "log": "a.log()", "tanh": "a.tanh()", "relu": "a.relu()",
    "sigmoid": "a.sigmoid()",
    "sub-number-on-right": "a - {k}", "sub-number-on-left": "{k} - a",
    "truediv-number-on-right": "a / {k}", "truediv-number-on-left": "{k} / a",
}
# What `apply_op` builds around the operation's node (called `node` there, `op` here).
AROUND = {"forward": "{op}", "alone": "{op}", "scaled": "({op}) * c", "reused": "{op} + a",
          "reused-both": "({op}) + a + b"}
ACCEPTED_ERRORS = "TypeError, AssertionError, NotImplementedError, ValueError"


@scenario
def apply_op(Value, op, x, y=None, k=None, around="alone", z=None):
    a = Value(x)
    b = Value(y) if y is not None else None
    if op == "neg":
        node = -a
    elif op == "sub":
        node = a - b
    elif op == "truediv":
        node = a / b
    elif op == "pow":
        node = a ** k
    elif op == "sub-number-on-right":
        node = a - k
    elif op == "sub-number-on-left":
        node = k - a
    elif op == "truediv-number-on-right":
        node = a / k
    elif op == "truediv-number-on-left":
        node = k / a
    else:
        node = getattr(a, op)()
    result = {"data": data_of(node, "out")}
    if around == "forward":
        return result
    if around == "scaled":
        out = node * Value(z)
    elif around == "reused":
        out = node + a
    elif around == "reused-both":
        out = node + a + b
    else:
        out = node
    out.backward()
    result["a.grad"] = grad_of(a, "a")
    if b is not None:
        result["b.grad"] = grad_of(b, "b")
    return result


@scenario
def pow_value_exponent(Value, x, k):
    a = Value(x)
    try:
        out = a ** Value(k)
    except Exception as exc:
        accepted = isinstance(exc, (TypeError, AssertionError, NotImplementedError, ValueError))
        return {"raised": True, "accepted": accepted, "type": type(exc).__name__,
                "message": str(exc)[:200]}
    return {"raised": False, "returned": type(out).__name__}


def written(op: str, around: str = "alone", k: float | None = None) -> str:
    """The expression `apply_op` evaluates, as the student would write it."""
    expression = WRITTEN[op].format(k=k)
    if around == "reused" and op in ("sub", "truediv"):
        around = "reused-both"
    return AROUND[around].format(op=expression)


def run_op(run: Callable[..., Any], op: str, around: str = "alone", **params: Any) -> Any:
    """Run `apply_op`; reused binary operations add back both operands."""
    if around == "reused" and params.get("y") is not None:
        around = "reused-both"
    return run(apply_op, op=op, around=around, **params)


def run_or_not_run(run: Callable[..., Any], what: str, op: str, **params: Any) -> Any:
    """run_op, but an exception in the student's code makes the check not run, not fail.

    For checks that look at one particular mistake: an exception belongs to another check.
    """
    try:
        return run_op(run, op, **params)
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
