"""Public checks for lab 01, on the worked examples of the course chapter (a = 2, b = 3, c = 10).

Run them with `make check` (or `python -m grader check lab01_graph`). The graded suite runs
these and more, with randomized inputs: passing these is a good sign, not a guarantee.
Like the graded checks, each names one pitfall and waits for the checks it builds on.
"""

import pytest

from grader.checking.verdict import expect_equal, expect_results_close, field
from grader.child.scenarios import lab01_graph as scenarios
from grader.checking.verdicts import lab01_graph as verdicts

A, B, C, D = 2.0, 3.0, 10.0, -4.0


@pytest.mark.check(id="example-values-hashable", pitfall="hash-trap", weight=1)
def test_example_values_can_be_hashed(sandboxed):
    result = sandboxed(scenarios.hash_nodes, x=A, y=B)
    verdicts.expect_hashable_nodes(result, {"a": A, "b": B})


@pytest.mark.check(id="example-leaf-backward", pitfall="leaf-backward", weight=1)
def test_example_leaf_backward_does_nothing(sandboxed):
    result = sandboxed(scenarios.leaf_backward, x=A)
    expect_equal(field(result, "callable", bool), True, quantity="callable(a._backward)",
                 inputs={"a": A})
    expect_results_close(result, {"grad_after": 0.0}, inputs={"a": A}, source="literal")


@pytest.mark.check(id="course-example-graph", pitfall="graph-construction", weight=1,
                   requires=("example-values-hashable",))
def test_course_example_builds_the_graph(sandboxed):
    shown = {"d": "a*b + c", "a": A, "b": B, "c": C}
    result = sandboxed(scenarios.course_graph, x=A, y=B, z=C)
    expect_results_close(result, {"ab.data": 6.0, "out.data": 16.0}, inputs=shown,
                         source="literal")
    expect_equal(field(result, "ab._op", str), "*", quantity="(a*b)._op", inputs=shown)
    expect_equal(field(result, "out._op", str), "+", quantity="d._op", inputs=shown)
    expect_equal(field(result, "ab._prev", list), ["a", "b"], quantity="(a*b)._prev", inputs=shown)
    expect_equal(field(result, "out._prev", list), ["ab", "c"], quantity="d._prev", inputs=shown)


@pytest.mark.check(id="example-seed", pitfall="seed-gradient", weight=1,
                   requires=("example-leaf-backward", "course-example-graph"))
def test_example_backward_seeds_the_output(sandboxed):
    result = sandboxed(scenarios.seed, x=A, y=B)
    verdicts.expect_gradients(result, {"out.grad": 1.0}, shape=verdicts.one_op_shape("*"),
                              leaves={"a": A, "b": B}, inputs={"out": "a * b", "a": A, "b": B},
                              source="literal")


@pytest.mark.check(id="example-local-derivatives", pitfall="wrong-local-derivative", weight=1,
                   requires=("example-seed",))
def test_example_local_derivatives(sandboxed):
    for op, expected in (("+", {"a.grad": 1.0, "b.grad": 1.0}), ("*", {"a.grad": B, "b.grad": A})):
        result = sandboxed(scenarios.one_op, op=op, x=A, y=B)
        verdicts.expect_gradients(result, expected, shape=verdicts.one_op_shape(op),
                                  leaves={"a": A, "b": B},
                                  inputs={"out": f"a {op} b", "a": A, "b": B}, source="literal")


@pytest.mark.check(id="example-topological-order", pitfall="topological-order", weight=1,
                   requires=("example-local-derivatives",))
def test_example_backward_runs_in_topological_order(sandboxed):
    result = sandboxed(scenarios.sibling_calls, x=A, y=B, z=C, w=D)
    leaves = {"a": A, "b": B, "c": C, "d": D}
    verdicts.expect_topological_calls(result, leaves, {"graph": verdicts.SIBLING_GRAPH, **leaves})


@pytest.mark.check(id="course-diamond-example", pitfall="grad-overwrite", weight=1,
                   requires=("example-topological-order",))
def test_course_diamond_accumulates(sandboxed):
    result = sandboxed(scenarios.diamond, x=A, y=B)
    verdicts.expect_gradients(result, {"a.grad": B + 1, "b.grad": A},
                              shape=verdicts.DIAMOND_SHAPE, leaves={"a": A, "b": B},
                              inputs={"d": "a*b + a", "a": A, "b": B}, source="literal")


@pytest.mark.check(id="course-number-operands", pitfall="number-operand", weight=1,
                   requires=("example-local-derivatives",))
def test_course_numbers_on_either_side(sandboxed):
    for side in ("right", "left"):
        result = sandboxed(scenarios.number_operand, side=side, op="*", x=A, k=3)
        written = "a * 3" if side == "right" else "3 * a"
        expect_results_close(result, {"data": 3 * A, "a.grad": 3.0},
                             inputs={"out": written, "a": A}, source="literal")
