"""Public checks for lab 03, on small worked examples with literal numbers.

Run them with `make check LAB=lab03_backprop` (or `python -m grader check lab03_backprop`).
The graded suite runs these and more, with randomized inputs and much larger graphs: passing
these is a good sign, not a guarantee. Like the graded checks, each names one pitfall and
waits for the checks it builds on.
"""

import pytest

from grader.checking.verdict import expect_close, expect_equal, expect_results_close, field
from grader.child.scenarios import lab03_backprop as scenarios
from grader.checking.verdicts import lab03_backprop as verdicts

A, B, C, D = 2.0, 3.0, 1.0, 0.5
LADDER = {"x": 0.75, "y": 0.5, "z": 0.625}  # a, c, d of the ladder
LADDER_SHOWN = {"graph": verdicts.LADDER_GRAPH, "a": 0.75, "c": 0.5, "d": 0.625}
CHAIN = 10_000
NUMERICAL_SHOWN = {**verdicts.NUMERICAL_FUNCTIONS["square-times"], "a": A, "b": B, "h": 0.001,
                   "calls": "numerical_grad(f, [a, b], h)"}


@pytest.mark.check(id="example-output-seeded", todo=1, pitfall="seed-gradient", weight=1)
def test_example_backward_seeds_the_output(sandboxed):
    result = sandboxed(scenarios.seed, x=A, y=B)
    expect_results_close(result, {"out.grad": 1.0}, inputs={"out": "a * b", "a": A, "b": B},
                         source="literal")


@pytest.mark.check(id="example-same-number-nodes", todo=1, pitfall="hash-trap", weight=1,
                   requires=("example-output-seeded",))
def test_example_nodes_holding_the_same_number(sandboxed):
    # judged with a = b = 1.5 against the same graph with b = 2.5
    result = sandboxed(scenarios.equal_data, x=1.5, y=2.5, z=-2.0)
    verdicts.expect_equal_data_told_apart(result, 1.5, 2.5, -2.0)


@pytest.mark.check(id="example-tree-gradients", todo=1, pitfall="topological-order", weight=1,
                   requires=("example-output-seeded",), defers_to=("example-same-number-nodes",))
def test_example_tree_gets_every_gradient(sandboxed):
    result = sandboxed(scenarios.expression_tree, x=A, y=B, z=C, w=D)
    expected = {"a.grad": 30.0, "b.grad": 20.0, "c.grad": -10.0, "d.grad": 0.3932238664829637}
    expect_results_close(result, expected, inputs={"out": verdicts.TREE_GRAPH, "a": A, "b": B,
                                                   "c": C, "d": D}, source="literal")


@pytest.mark.check(id="example-ladder-order", todo=1, pitfall="topological-order", weight=1,
                   requires=("example-tree-gradients",))
def test_example_ladder_runs_in_topological_order(sandboxed):
    result = sandboxed(scenarios.sibling_ladder, depth=3, **LADDER)
    verdicts.expect_topological_calls(result, 3, {**LADDER_SHOWN, "depth": 3})


@pytest.mark.check(id="example-ladder-once", todo=1, pitfall="missing-visited-set", weight=1,
                   requires=("example-tree-gradients",))
def test_example_ladder_runs_each_node_once(sandboxed):
    result = sandboxed(scenarios.sibling_ladder, depth=8, **LADDER)
    verdicts.expect_each_called_once(result, 8, {**LADDER_SHOWN, "depth": 8})


TWICE_SHOWN = {"out": "a * b", "a": A, "b": B, "calls": "out.backward(); out.backward()"}


@pytest.mark.check(id="example-second-backward-reseeds", todo=1, pitfall="seed-gradient", weight=1,
                   requires=("example-tree-gradients",))
def test_example_second_backward_sets_the_seed_again(sandboxed):
    result = sandboxed(scenarios.backward_twice, x=A, y=B)
    expect_results_close(result, {"out.grad": 1.0}, inputs=TWICE_SHOWN, source="literal")


@pytest.mark.check(id="example-backward-twice", todo=1, pitfall="grad-overwrite", weight=1,
                   requires=("example-second-backward-reseeds",))
def test_example_second_backward_accumulates(sandboxed):
    result = sandboxed(scenarios.backward_twice, x=A, y=B)
    expect_results_close(result, {"a.grad": 2 * B, "b.grad": 2 * A}, inputs=TWICE_SHOWN,
                         source="literal")


@pytest.mark.check(id="example-zero-grad", todo=2, pitfall="missing-zero-grad", weight=1)
def test_example_zero_grad_resets_the_graph(sandboxed):
    result = sandboxed(scenarios.zero_grad_graph, form="output", stale=verdicts.STALE_GRAD, x=A, y=B,
                 z=C)
    verdicts.expect_zero_grads(result, "output", {"a": A, "b": B, "c": C})


@pytest.mark.check(id="example-deep-chain", todo=1, pitfall="deep-recursion", weight=1,
                   requires=("example-tree-gradients",))
def test_example_deep_chain(sandboxed):
    shown = {"graph": verdicts.CHAIN_GRAPH, "n": CHAIN, "a": A, "b": B}
    result = verdicts.run_deep_chain(sandboxed, CHAIN, {"x": A, "y": B}, shown)
    expect_results_close(result, {"out.grad": 1.0, "a.grad": 1.0, "b.grad": float(CHAIN)},
                         inputs=shown, source="literal")


@pytest.mark.check(id="example-cycle", todo=1, pitfall="cycle-detection", weight=1,
                   requires=("example-ladder-order", "example-ladder-once"), timeout=1)
def test_example_cycle_is_reported(sandboxed):
    shown = {"graph": verdicts.CYCLE_GRAPHS["below-output"], "a": A, "b": B}
    result = verdicts.run_explaining_timeout(sandboxed, scenarios.cycle, "cycle-loops",
                                              {"inputs": shown}, shape="below-output", x=A, y=B)
    verdicts.expect_clear_cycle_error(result, shown)


@pytest.mark.check(id="example-numerical-grad-restores", todo=3,
                   pitfall="mid-flight-mutation", weight=1)
def test_example_numerical_grad_restores_the_inputs(sandboxed):
    result = sandboxed(scenarios.numerical, function="square-times", h=0.001, point=[A, B])
    data = verdicts.floats(result, "data", "[a.data, b.data]", 2, NUMERICAL_SHOWN)
    for name, actual, expected in zip("ab", data, (A, B), strict=True):
        expect_close(actual, expected, quantity=f"{name}.data", inputs=NUMERICAL_SHOWN,
                     source="literal")


@pytest.mark.check(id="example-numerical-grad", todo=3, pitfall="finite-difference", weight=1,
                   requires=("example-numerical-grad-restores",))
def test_example_numerical_grad_is_central(sandboxed):
    result = sandboxed(scenarios.numerical, function="square-times", h=0.001, point=[A, B])
    grads = verdicts.floats(result, "grads", "numerical_grad(f, [a, b], h)", 2, NUMERICAL_SHOWN)
    for k, (actual, expected) in enumerate(zip(grads, (2 * A * B, A * A), strict=True)):
        expect_close(actual, expected, quantity=f"numerical_grad(f, [a, b], h)[{k}]",
                     inputs=NUMERICAL_SHOWN, source="central-difference")


@pytest.mark.check(id="example-check-grad", todo=4, pitfall="finite-difference", weight=1,
                   requires=("example-ladder-order", "example-ladder-once", "example-zero-grad",
                             "example-numerical-grad"))
def test_example_check_grad_tells_right_from_wrong(sandboxed):
    point = {"x": 0.5, "y": -1.5, "z": 0.25}
    for kind in ("correct", "wrong"):
        result = sandboxed(scenarios.check_grad_verdict, kind=kind, stale=None, **point)
        shown = {**verdicts.CHECKED_FUNCTIONS[kind], "a": 0.5, "b": -1.5, "c": 0.25}
        expect_equal(field(result, "first", bool), kind == "correct",
                     quantity="check_grad(f, [a, b, c])", inputs=shown)
