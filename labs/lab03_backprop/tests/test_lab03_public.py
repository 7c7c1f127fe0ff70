"""Public checks for lab 03, on small worked examples with literal numbers.

Run them with `make check LAB=lab03_backprop` (or `python -m grader check lab03_backprop`).
The graded suite runs these and more, with randomized inputs and much larger graphs: passing
these is a good sign, not a guarantee. Like the graded checks, each names one pitfall and
waits for the checks it builds on.
"""

import random

import pytest

from grader.checking import (
    check_case,
    contract_grid,
    expect_close,
    expect_equal,
    expect_results_close,
    field,
    random_graphs,
)
from grader.checking.lab03_backprop import scenarios, verdicts

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
    leaves = {"a": A, "b": B, "c": C, "d": D}
    shown = {"graph": verdicts.TREE_GRAPH, **leaves}
    verdicts.expect_tree_gradients(result, expected, leaves, shown, source="literal")


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


TWICE_PROGRAMS = random_graphs.draw_programs(random.Random(contract_grid.PUBLIC_SEED),
                                             random_graphs.LAB01_OPS, 2,
                                             random_graphs.SHAPES_LAB01)
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
    verdicts.expect_second_walk(result, TWICE_SHOWN)
    expect_results_close(result, {"a.grad": 2 * B, "b.grad": 2 * A}, inputs=TWICE_SHOWN,
                         source="literal")
    # then the fixed shapes of lab 01's random check (+ and *) and two more graphs, leaves
    # drawn by random.Random(32), walked twice: intermediate nodes pass on the first call's
    # gradient again. Judged on the graphs one pass gets right; the expected numbers are the
    # operations' maths on plain floats (contract_grid.model), each graph printed in full.
    contract_grid.judge_repeated(sandboxed, None, scenarios.random_graphs,
                                 scenarios.backward_twice_graphs, TWICE_PROGRAMS,
                                 "grad-overwrite")


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


def _expect_cycle_reported(sandboxed, shape):
    # made before any backward(), then after a first backward() on the same output
    for after_backward, graphs in ((False, verdicts.CYCLE_GRAPHS),
                                   (True, verdicts.CYCLES_AFTER_BACKWARD)):
        shown = {"graph": graphs[shape], "a": A, "b": B}
        result = verdicts.run_explaining_timeout(sandboxed, scenarios.cycle, "cycle-loops",
                                                  {"inputs": shown}, shape=shape,
                                                  after_backward=after_backward, x=A, y=B)
        verdicts.expect_clear_cycle_error(result, shown)


@pytest.mark.check(id="example-cycle", todo=1, pitfall="cycle-detection", weight=1,
                   requires=("example-ladder-order", "example-ladder-once"),
                   defers_to=("example-backward-twice",), timeout=1)
def test_example_cycle_is_reported(sandboxed):
    _expect_cycle_reported(sandboxed, "below-output")


@pytest.mark.check(id="example-numerical-grad-restores", todo=3,
                   pitfall="mid-flight-mutation", weight=1)
def test_example_numerical_grad_restores_the_inputs(sandboxed):
    # 1 and -1: numbers that x + h - 2h + h does not give back exactly
    point = list(verdicts.RESTORE_TRAPS)
    shown = {**NUMERICAL_SHOWN, "a": point[0], "b": point[1]}
    result = verdicts.run_numerical(sandboxed, "square-times", 0.001, point)
    data = verdicts.floats(result, "data", "[a.data, b.data]", 2, shown)
    for name, actual, expected in zip("ab", data, point, strict=True):
        expect_equal(actual, expected, quantity=f"{name}.data", inputs=shown)


@pytest.mark.check(id="example-numerical-grad", todo=3, pitfall="finite-difference", weight=1,
                   requires=("example-numerical-grad-restores",))
def test_example_numerical_grad_is_central(sandboxed):
    result = verdicts.run_numerical(sandboxed, "square-times", 0.001, [A, B])
    grads = verdicts.numerical_grads(result, "numerical_grad(f, [a, b], h)", 2,
                                     NUMERICAL_SHOWN)
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


# -- more of each clause: a stale seed, zero_grad deep and shared, a cycle through the output ------

@pytest.mark.check(id="example-stale-output-seeded", todo=1, pitfall="seed-gradient", weight=1,
                   requires=("example-output-seeded",))
def test_example_backward_seeds_over_a_stale_output_gradient(sandboxed):
    result = sandboxed(scenarios.seed, x=A, y=B, stale=verdicts.STALE_GRAD)
    verdicts.expect_seeded(result, {"out": "a * b", "a": A, "b": B,
                                    "out.grad": verdicts.STALE_GRAD, "calls": "out.backward()"})


@pytest.mark.check(id="example-deep-chain-zero-grad", todo=2, pitfall="deep-recursion", weight=1,
                   requires=("example-zero-grad",))
def test_example_zero_grad_through_a_deep_chain(sandboxed):
    result = verdicts.run_patiently(sandboxed, scenarios.deep_chain_zero_grad, n=CHAIN, x=A, y=B)
    shown = {"graph": verdicts.CHAIN_GRAPH, "n": CHAIN, "v.grad (every v)": 1.0,
             "calls": "zero_grad(out)"}
    expect_equal(field(result, "not_reset", int), 0,
                 quantity="sum(1 for v in graph if v.grad != 0)", inputs=shown)


ZERO_GRAD_LADDER = 24  # levels: 2**24 paths to a, 75 nodes


@pytest.mark.check(id="example-ladder-zero-grad", todo=2, pitfall="missing-visited-set", weight=1,
                   requires=("example-zero-grad",), timeout=1)
def test_example_zero_grad_visits_each_node_of_a_ladder_once(sandboxed):
    shown = {**LADDER_SHOWN, "depth": ZERO_GRAD_LADDER, "calls": "zero_grad(out)"}
    result = verdicts.run_explaining_timeout(
        sandboxed, scenarios.wide_shared_zero_grad, "slow-zero-grad",
        {"inputs": shown, "nodes": 3 + 3 * ZERO_GRAD_LADDER}, depth=ZERO_GRAD_LADDER, **LADDER)
    expect_equal(field(result, "not_reset", int), 0,
                 quantity="sum(1 for v in graph if v.grad != 0)", inputs=shown)


@pytest.mark.check(id="example-cycle-through-output", todo=1, pitfall="cycle-detection", weight=1,
                   requires=("example-ladder-order", "example-ladder-once"),
                   defers_to=("example-backward-twice",), timeout=1)
def test_example_cycle_through_the_output_is_reported(sandboxed):
    _expect_cycle_reported(sandboxed, "through-output")


# -- check_grad, one row per way it can go wrong ---------------------------------------------------
# (kind of f, its inputs, what the inputs hold before): a wrong gradient on the last input only,
# gradients near 1e11 that only a relative tolerance accepts, a gradient off by 1.5e-4 where
# the tolerance is 1e-4, and inputs that hold gradients from an earlier backward().
CHECK_GRAD_POINT = {"x": 0.5, "y": -1.5, "z": 0.25}
CHECK_GRAD_ROWS = [
    check_case("wrong-last", CHECK_GRAD_POINT, None, id="example-check-grad-every-input", todo=4,
               pitfall="finite-difference", weight=1, requires=("example-check-grad",)),
    check_case("large", {"x": 1.75, "y": 1.5, "z": 2.0}, None,
               id="example-check-grad-large-gradients", todo=4, pitfall="finite-difference", weight=1,
               requires=("example-check-grad",)),
    check_case("just-outside", {"x": 1.25, "y": 0.5, "z": -0.75}, None,
               id="example-check-grad-tolerance", todo=4, pitfall="finite-difference", weight=1,
               requires=("example-check-grad",)),
    check_case("correct", CHECK_GRAD_POINT, verdicts.STALE_CHECK_GRAD,
               id="example-check-grad-zeroes-first", todo=4, pitfall="missing-zero-grad", weight=1,
               requires=("example-check-grad",)),
]


@pytest.mark.parametrize(("kind", "point", "stale"), CHECK_GRAD_ROWS)
def test_example_check_grad_case(sandboxed, kind, point, stale):
    result = sandboxed(scenarios.check_grad_verdict, kind=kind, stale=stale,
                       offset=verdicts.JUST_OUTSIDE, **point)
    verdicts.expect_check_grad_verdict(result, kind, stale, point)


BACKWARD_LADDER = 24  # levels: 2**24 paths to a, 75 nodes


@pytest.mark.check(id="example-ladder-backward-in-time", todo=1, pitfall="missing-visited-set", weight=1,
                   requires=("example-ladder-once",), timeout=1)
def test_example_backward_on_a_deep_ladder_finishes_quickly(sandboxed):
    # each _backward once is not enough: a walk that re-expands a node on every path to it
    # takes time that doubles with each level
    shown = {**LADDER_SHOWN, "depth": BACKWARD_LADDER}
    result = verdicts.run_explaining_timeout(
        sandboxed, scenarios.sibling_ladder, "slow-walk",
        {"inputs": shown, "nodes": 3 + 3 * BACKWARD_LADDER}, depth=BACKWARD_LADDER, **LADDER)
    verdicts.expect_each_called_once(result, BACKWARD_LADDER, shown)


# -- the formulas of numerical_grad, check_grad and zero_grad, on fixed cases of the hidden
# suite's dimensions: magnitudes from 0 to 1e100, h and tol given or left to their defaults ------

NUMERICAL_CASES = [
    {"function": "square-times", "point": [0.0, 1.5], "h": None},
    {"function": "square-times", "point": [1e-300, -0.75], "h": 1e-3},
    {"function": "cubic-mix", "point": [1000.0, 0.5, -2.0], "h": 0.1},
    {"function": "square-times", "point": [1e100, 1.5], "h": 1e-3},
    {"function": "square-times", "point": [1.5, -0.75], "h": 1e-3, "call": "keyword"},
    {"function": "square-times", "point": [1.5, -0.75], "h": None, "call": "keyword"},
    # one Value at two positions, f(u, u, v): nudged at both, each gets the derivative along u
    {"function": "cubic-mix", "point": [0.5, -1.25], "inputs": [0, 0, 1], "h": 1e-3},
]


@pytest.mark.check(id="example-numerical-grad-formula", todo=3, pitfall="finite-difference",
                   weight=1, requires=("example-numerical-grad-restores",))
def test_example_numerical_grad_follows_the_formula(sandboxed):
    got = field(sandboxed(scenarios.numerical_cases, cases=NUMERICAL_CASES), "results", list)
    verdicts.expect_numerical_cases(NUMERICAL_CASES, got,
                                    verdicts.numerical_model(NUMERICAL_CASES))


# check_grad's answers under the README's formula: the steep exp(1000·a) is accepted at the
# default tol; a gradient off by 0.005 is rejected at tol 1e-4 and 1e-3, accepted at 1e-2; a
# gradient of the wrong sign is rejected, and so is b's off by 0.005 beside a's of 1000 (each
# input has its own max(1, |numeric|)); f=, xs=, tol= by name as the README writes them
CHECK_GRAD_CASES = [
    {"function": "steep", "point": [0.002], "tol": None},
    {"function": "off-by", "point": [1.5, 0.5], "tol": None, "offset": verdicts.OFF_BY},
    {"function": "off-by", "point": [1.5, 0.5], "tol": 1e-3, "offset": verdicts.OFF_BY},
    {"function": "off-by", "point": [1.5, 0.5], "tol": 1e-2, "offset": verdicts.OFF_BY},
    {"function": "sign-flipped", "point": [1.5, -0.5], "tol": 1e-2},
    {"function": "off-by-second", "point": [0.5, 1000.0], "tol": None, "offset": verdicts.OFF_BY},
    {"function": "off-by", "point": [1.5, 0.5], "tol": 1e-2, "offset": verdicts.OFF_BY,
     "call": "keyword"},
    {"function": "steep", "point": [0.002], "tol": None, "call": "keyword"},
    # large and negative: exp(-20a) at a = -1, right (a part in 1e10 off, a few units in size)
    # and 0.5% too large, judged at tol 1e-2 (each judged relative to abs(numeric))
    {"function": "exp-of-multiple", "point": [-1.0], "scale": -20.0, "tol": None},
    {"function": "exp-of-multiple", "point": [-1.0], "scale": -20.0, "tol": 1e-2,
     "offset": verdicts.RELATIVE_OFF},
    # one Value at two positions, f(u, u, v): right, and accepted
    {"function": "cubic-mix", "point": [0.5, -1.25], "inputs": [0, 0, 1], "tol": None},
]


@pytest.mark.check(id="example-check-grad-formula", todo=4, pitfall="finite-difference",
                   weight=1, requires=("example-check-grad", "example-numerical-grad-formula"))
def test_example_check_grad_follows_the_formula(sandboxed):
    got = field(sandboxed(scenarios.check_grad_cases, cases=CHECK_GRAD_CASES), "answers", list)
    verdicts.expect_check_grad_cases(CHECK_GRAD_CASES, got,
                                     [True, False, False, True, False, False, True, True,
                                      True, True, True])


# a = 1.5, b = -0.5; t1 = a*b; t2 = tanh(t1); t3 = t2*a; out = t3 + b: t3 holds 0 (as a node
# built after the last backward() does) above t2 and t1, which hold old gradients
ZERO_GRAD_PROGRAM = {"leaves": [1.5, -0.5], "nodes": [["mul", 0, 1, None], ["tanh", 2, None, None],
                                                      ["mul", 3, 0, None], ["add", 4, 1, None]]}


@pytest.mark.check(id="example-zero-grad-below-a-zero", todo=2, pitfall="missing-zero-grad",
                   weight=1, requires=("example-zero-grad",))
def test_example_zero_grad_goes_below_a_node_that_holds_zero(sandboxed):
    [entry] = field(sandboxed(scenarios.zero_grad_graphs, graphs=[ZERO_GRAD_PROGRAM],
                              record=False), "results", list)
    shown = {"graph": "t1 = a*b; t2 = tanh(t1); t3 = t2*a; out = t3 + b", "a": 1.5, "b": -0.5,
             "before": "a.grad = 0.5, b.grad = 0, t1.grad = 2.5, t2.grad = 3.5, t3.grad = 0, "
                       "out.grad = 5.5", "calls": verdicts.ZERO_GRAD_CALLS}
    verdicts.expect_every_grad_zero(entry, ["a", "b", "t1", "t2", "t3", "out"], shown)
