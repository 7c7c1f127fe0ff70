"""Lab 02 verdicts: how the lab02 checks run an operation and judge its derivative.

Side: trusted process. Nothing here runs student code: these functions read the plain data a
scenario of `grader.grading.child.scenarios.lab02_ops` returned and raise CheckFailed or NotRun.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from grader.grading.checking.graph_shape import (
    GraphShape,
    expect_graph_results,
    graph_on_failure,
)
from grader.grading.checking.random_graphs.programs import number_text
from grader.grading.checking.verdict import (
    CheckFailed,
    NotRun,
    close,
    expect_close,
    expect_results_close,
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

def built_around(around: str, params: Mapping[str, Any]) -> str:
    """What `apply_op` builds: reused binary operations add back both operands."""
    return "reused-both" if around == "reused" and params.get("y") is not None else around


def run_op(sandboxed: Callable[..., Any], op: str, around: str = "alone", **params: Any) -> Any:
    """Run `apply_op`; reused binary operations add back both operands."""
    return sandboxed(apply_op, op=op, around=built_around(around, params), **params)


def op_shape(op: str, around: str, params: Mapping[str, Any]) -> tuple[GraphShape, dict[str, str]]:
    """The graph `apply_op` builds for `op` `around` its node (not "forward": no backward() is
    called there), and the name each role of its `nodes` facts is drawn under: the operation's
    node is `out` when it is the output, its expression (`a.exp()`) when something is built on it."""
    around = built_around(around, params)
    k = params.get("k")
    expression = OPERATIONS[op].code.format(a="a", b="b", k=k)
    roles = {"a": "a", "b": "b", "c": "c", "op": expression, "op + a": f"({expression}) + a",
             "out": "out"}
    label = OPERATIONS[op].label.format(k=number_text(k) if k is not None else "")
    operand = ("a", "b") if OPERATIONS[op].binary else ("a",)
    node = "out" if around == "alone" else expression
    nodes = [(name, "") for name in operand]
    edges = [(name, node) for name in operand]
    if around == "scaled":
        nodes += [("c", ""), (node, label), ("out", "*")]
        edges += [(node, "out"), ("c", "out")]
    elif around == "reused":
        nodes += [(node, label), ("out", "+")]
        edges += [(node, "out"), ("a", "out")]
    elif around == "reused-both":
        middle = roles["op + a"]
        nodes += [(node, label), (middle, "+"), ("out", "+")]
        edges += [(node, middle), ("a", middle), (middle, "out"), ("b", "out")]
    else:
        nodes.append((node, label))
    shape = GraphShape(nodes=tuple(nodes), edges=tuple(edges), output="out",
                       operations=((node, op, k),))
    return shape, roles


def _drawn(op: str, around: str, params: Mapping[str, Any], result: Any
           ) -> tuple[GraphShape, dict[str, Any], dict[str, float]]:
    """The shape of `op` `around` its node, the student's `nodes` facts under its names, and
    its leaves."""
    shape, roles = op_shape(op, around, params)
    facts = result.get("nodes") if isinstance(result, dict) else None
    drawn = {"nodes": {roles[role]: pair for role, pair in facts.items() if role in roles}
             if isinstance(facts, dict) else None}
    leaves = {name: params[key] for key, name in (("x", "a"), ("y", "b"), ("z", "c"))
              if params.get(key) is not None}
    return shape, drawn, leaves


# The output's own data is quoted as `data`: a failure about it outlines out.
DATA_NODE = {"data": "out"}


@contextmanager
def op_graph_on_failure(op: str, around: str, params: Mapping[str, Any],
                        result: Any) -> Iterator[None]:
    """Draw the graph of `op` `around` its node, with the numbers the student's engine left on
    it, on a failure about its gradients or its output's data raised inside the block."""
    shape, drawn, leaves = _drawn(op, around, params, result)
    with graph_on_failure(shape, drawn, leaves, quantity_nodes=DATA_NODE):
        yield


def expect_op_results(result: Any, expected: Mapping[str, float], *, op: str, around: str,
                      params: Mapping[str, Any], inputs: dict[str, Any], source: str) -> None:
    """expect_results_close on the numbers of `expected` (a reference run's `nodes` facts
    aside); a failure after a backward() draws the expression's graph."""
    if around == "forward":  # no backward(): a value, not a graph, is judged
        expect_results_close(result, dict(expected), inputs=inputs, source=source)
        return
    shape, drawn, leaves = _drawn(op, around, params, result)
    expect_graph_results({**result, **drawn} if isinstance(result, dict) else result, expected,
                         shape=shape, leaves=leaves, inputs=inputs, source=source,
                         quantity_nodes=DATA_NODE)

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
