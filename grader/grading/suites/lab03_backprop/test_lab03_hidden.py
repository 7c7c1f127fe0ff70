"""Hidden checks for lab 03 (backprop on larger graphs): one pitfall per check, randomized inputs.

Prerequisites keep a failure from being blamed on the wrong pitfall: a check that cannot
mean anything until another passes declares it in `requires` and is otherwise not run.
The random-DAG check at the end (`random=True`) defers to the checks marked
`random_defers=True`: one backward pass on a fresh graph. Its DAGs call `backward()` once,
on outputs that hold no gradient, and use no `zero_grad`, `numerical_grad`, `check_grad`,
cycle or deep chain, so the checks of those are not marked.
"""

import pytest

from grader.checking import (
    contract_grid,
    distinct_values,
    expect_close,
    expect_equal,
    expect_results_close,
    field,
    random_graphs,
    said,
)
from grader.checking.lab03_backprop import scenarios, verdicts

TRAVERSAL = ("ladder-backward-in-topological-order", "ladder-backward-once-per-node")
# A walk that keys its visited set by data merges nodes holding the same number: a constant
# such as the -1 of a - b is enough. Checks on such graphs defer to the check that says so.
EQUAL_DATA = "backward-tells-equal-data-apart"
ORDER_DEPTH, COUNT_DEPTH = 3, 12
WIDE_DEPTH, WIDE_WIDTH = 40, 500
WIDE_NODES = 3 + 3 * WIDE_DEPTH + 3 * WIDE_WIDTH  # a, c, d; 3 per level; 3 per weight
CHAIN_LENGTH = 100_000
FINITE_STEP = 1e-3  # large enough that a one-sided difference is visibly off


def _ladder_inputs(rng):
    inputs = distinct_values(rng, "x y z")
    return inputs, {"graph": verdicts.LADDER_GRAPH, "a": inputs["x"], "c": inputs["y"],
                    "d": inputs["z"]}


@pytest.mark.check(id="backward-seeds-output-with-one", pitfall="seed-gradient", weight=1,
                   random_defers=True, clause="seed")
def test_backward_seeds_the_output_with_one(sandboxed, rng):
    inputs = distinct_values(rng, "x y")
    result = verdicts.run_backward(sandboxed, scenarios.seed, **inputs)
    verdicts.expect_seeded(result, {"out": "a * b", "a": inputs["x"], "b": inputs["y"]})


@pytest.mark.check(id="backward-seeds-over-a-stale-output-gradient", pitfall="seed-gradient",
                   weight=1, requires=("backward-seeds-output-with-one",), clause="seed")
def test_backward_sets_the_seed_whatever_the_output_held(sandboxed, reference, rng):
    inputs = distinct_values(rng, "x y")
    result = sandboxed(scenarios.seed, stale=verdicts.STALE_GRAD, **inputs)
    expected = reference(scenarios.seed, stale=verdicts.STALE_GRAD, **inputs)
    shown = {"out": "a * b", "a": inputs["x"], "b": inputs["y"], "out.grad": verdicts.STALE_GRAD,
             "calls": "out.backward()"}
    verdicts.expect_seeded(result, shown)
    del expected["seen"]
    expect_results_close(result, expected, inputs=shown, source="reference")


@pytest.mark.check(id="backward-tells-equal-data-apart", pitfall="hash-trap", weight=8,
                   requires=("backward-seeds-output-with-one",), random_defers=True,
                   clause="identity")
def test_nodes_holding_the_same_number_stay_different_nodes(sandboxed, rng):
    inputs = distinct_values(rng, "x y z")
    result = sandboxed(scenarios.equal_data, **inputs)
    verdicts.expect_equal_data_told_apart(result, inputs["x"], inputs["y"], inputs["z"])


@pytest.mark.check(id="backward-on-expression-tree", pitfall="topological-order", weight=1,
                   requires=("backward-seeds-output-with-one",),
                   defers_to=(EQUAL_DATA,), random_defers=True, clause="every-node")
def test_backward_fills_every_gradient_of_a_tree(sandboxed, reference, rng):
    inputs = distinct_values(rng, "x y z w")
    result = sandboxed(scenarios.expression_tree, **inputs)
    expected = reference(scenarios.expression_tree, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"], "c": inputs["z"], "d": inputs["w"]}
    shown = {"graph": verdicts.TREE_GRAPH, **leaves}
    verdicts.expect_tree_gradients(result, expected, leaves, shown, source="reference")


@pytest.mark.check(id="ladder-backward-in-topological-order", pitfall="topological-order",
                   weight=2, requires=("backward-on-expression-tree",),
                   defers_to=(EQUAL_DATA,), random_defers=True, clause="order")
def test_each_backward_waits_for_its_consumers(sandboxed, rng):
    inputs, shown = _ladder_inputs(rng)
    result = sandboxed(scenarios.sibling_ladder, depth=ORDER_DEPTH, **inputs)
    verdicts.expect_topological_calls(result, ORDER_DEPTH, {**shown, "depth": ORDER_DEPTH})


@pytest.mark.check(id="ladder-backward-once-per-node", pitfall="missing-visited-set", weight=2,
                   requires=("backward-on-expression-tree",),
                   defers_to=(EQUAL_DATA,), random_defers=True, clause="once")
def test_shared_nodes_run_backward_once(sandboxed, rng):
    inputs, shown = _ladder_inputs(rng)
    result = sandboxed(scenarios.sibling_ladder, depth=COUNT_DEPTH, **inputs)
    verdicts.expect_each_called_once(result, COUNT_DEPTH, {**shown, "depth": COUNT_DEPTH})


@pytest.mark.check(id="shared-graph-in-linear-time", pitfall="missing-visited-set", weight=1,
                   requires=("ladder-backward-in-topological-order",), timeout=1.5,
                   defers_to=(EQUAL_DATA,), clause="once")
def test_wide_shared_graph_runs_in_linear_time(sandboxed, reference, rng):
    # c + d between 0.85 and 1.15, so (c + d)**40 stays a moderate number
    c = round(rng.uniform(0.2, 0.4), 3)
    d = round(1 - c + rng.uniform(-0.15, 0.15), 3)
    inputs = {"x": distinct_values(rng, "x")["x"], "y": c, "z": d}
    weights = [round(rng.uniform(-1, 1), 3) for _ in range(WIDE_WIDTH)]
    shown = {"graph": verdicts.WIDE_GRAPH, "depth": WIDE_DEPTH, "width": WIDE_WIDTH,
             "a": inputs["x"], "c": inputs["y"], "d": inputs["z"]}
    result = verdicts.run_explaining_timeout(
        sandboxed, scenarios.wide_shared_graph, "slow-walk", {"inputs": shown, "nodes": WIDE_NODES},
        depth=WIDE_DEPTH, weights=weights, **inputs)
    expected = reference(scenarios.wide_shared_graph, depth=WIDE_DEPTH, weights=weights, **inputs)
    expect_results_close(result, expected, inputs=shown, source="reference")


@pytest.mark.check(id="second-backward-reaches-walked-nodes", pitfall="missing-visited-set",
                   weight=1, requires=("backward-on-expression-tree",), defers_to=(EQUAL_DATA,),
                   clause="once")
def test_a_second_backward_walks_nodes_an_earlier_one_walked(sandboxed, reference, rng):
    inputs = distinct_values(rng, "x y z w")
    result = sandboxed(scenarios.second_backward, **inputs)
    expected = reference(scenarios.second_backward, **inputs)
    del expected["replaced"]
    shown = {"calls": verdicts.SECOND_BACKWARD_GRAPH, "a": inputs["x"], "b": inputs["y"],
             "c": inputs["z"], "d": inputs["w"]}
    verdicts.expect_backward_kept(result, shown)
    expect_results_close(result, expected, inputs=shown, source="reference")


TWICE_GRAPHS = 6  # drawn after the fixed shapes of lab 01 (random_graphs.SHAPES_LAB01)


def _backward_twice(sandboxed, rng):
    inputs = distinct_values(rng, "x y")
    result = sandboxed(scenarios.backward_twice, **inputs)
    shown = {"out": "a * b", "a": inputs["x"], "b": inputs["y"],
             "calls": "out.backward(); out.backward()"}
    return inputs, result, shown


@pytest.mark.check(id="second-backward-reseeds-output", pitfall="seed-gradient", weight=1,
                   requires=("backward-on-expression-tree",), clause="seed")
def test_second_backward_sets_the_seed_again(sandboxed, rng):
    _, result, shown = _backward_twice(sandboxed, rng)
    expect_results_close(result, {"out.grad": 1.0}, inputs=shown, source="literal")


@pytest.mark.check(id="backward-twice-accumulates", pitfall="grad-overwrite", weight=9,
                   requires=("second-backward-reseeds-output",), clause=("once", "adds-again"))
def test_second_backward_adds_to_the_first(sandboxed, reference, rng):
    inputs, result, shown = _backward_twice(sandboxed, rng)
    verdicts.expect_second_walk(result, shown)
    expected = reference(scenarios.backward_twice, **inputs)
    del expected["out.grad"], expected["walks"], expected["replaced"]
    expect_results_close(result, expected, inputs=shown, source="reference")
    # every graph shape (the contract's repetition dimension): intermediate nodes keep the
    # first pass's gradients and pass them on again. + and * only: every engine makes each of
    # them one node, while -, / and the functions may be built from others, whose inner nodes
    # a second pass walks too (a - b as a + (-b)). Judged on the graphs one pass gets right.
    programs = random_graphs.draw_programs(rng, random_graphs.LAB01_OPS, TWICE_GRAPHS,
                                           random_graphs.SHAPES_LAB01)
    contract_grid.judge_repeated(sandboxed, reference, scenarios.random_graphs,
                                 scenarios.backward_twice_graphs, programs, "grad-overwrite")


def _check_zero_grad_graph(sandboxed, rng, form):
    inputs = distinct_values(rng, "x y z")
    result = sandboxed(scenarios.zero_grad_graph, form=form, stale=verdicts.STALE_GRAD, **inputs)
    verdicts.expect_zero_grads(result, form, {"a": inputs["x"], "b": inputs["y"],
                                               "c": inputs["z"]})


@pytest.mark.check(id="zero-grad-resets-whole-graph", pitfall="missing-zero-grad", weight=3,
                   clause=("zero-grad-argument", "zero-grad-resets"))
def test_zero_grad_resets_every_node_of_the_graph(sandboxed, rng):
    _check_zero_grad_graph(sandboxed, rng, "output")


@pytest.mark.check(id="zero-grad-accepts-a-list", pitfall="missing-zero-grad", weight=10,
                   clause="zero-grad-argument")
def test_zero_grad_resets_a_list_of_values(sandboxed, rng):
    _check_zero_grad_graph(sandboxed, rng, "list")


@pytest.mark.check(id="zero-grad-then-backward-matches-one-pass", pitfall="missing-zero-grad",
                   weight=2, requires=TRAVERSAL,
                   defers_to=("second-backward-reaches-walked-nodes",), clause="zero-grad-resets")
def test_backward_after_zero_grad_gives_one_pass_gradients(sandboxed, reference, rng):
    inputs = distinct_values(rng, "x y z")
    result = sandboxed(scenarios.zero_grad_then_backward, **inputs)
    expected = reference(scenarios.zero_grad_then_backward, **inputs)
    shown = {"p": "a*b", "out": "(tanh(p) + c) * p", "a": inputs["x"], "b": inputs["y"],
             "c": inputs["z"], "calls": "out.backward(); zero_grad(out); out.backward()"}
    # what the first pass showed names a failure that is not zero_grad's: a _backward replaced
    # by the walk, or one run twice in a pass
    verdicts.expect_backward_kept(result, shown)
    verdicts.expect_each_run_once(field(result, "first_calls", list),
                                  {**shown, "calls": "out.backward()"})
    for key in ("first", "first_calls", "replaced"):
        del expected[key]
    expect_results_close(result, expected, inputs=shown, source="reference")


@pytest.mark.check(id="deep-chain-backward", pitfall="deep-recursion", weight=2,
                   requires=("backward-on-expression-tree",), timeout=5, clause="deep")
def test_backward_through_a_chain_of_100000_nodes(sandboxed, rng):
    inputs = distinct_values(rng, "x y")
    shown = {"graph": verdicts.CHAIN_GRAPH, "n": CHAIN_LENGTH, "a": inputs["x"],
             "b": inputs["y"]}
    result = verdicts.run_deep_chain(sandboxed, CHAIN_LENGTH, inputs, shown)
    expect_results_close(result, {"out.grad": 1.0, "a.grad": 1.0, "b.grad": float(CHAIN_LENGTH)},
                         inputs=shown, source="literal")


@pytest.mark.check(id="deep-chain-zero-grad", pitfall="deep-recursion", weight=1,
                   requires=("zero-grad-resets-whole-graph",), timeout=5, clause="zero-grad-deep")
def test_zero_grad_through_a_chain_of_100000_nodes(sandboxed, rng):
    inputs = distinct_values(rng, "x y")
    result = verdicts.run_patiently(sandboxed, scenarios.deep_chain_zero_grad, n=CHAIN_LENGTH,
                                    **inputs)
    shown = {"graph": verdicts.CHAIN_GRAPH, "n": CHAIN_LENGTH, "grads": said("input-every-grad", code="v.grad", value=1.0, node="v"),
             "calls": "zero_grad(out)"}
    expect_equal(field(result, "not_reset", int), 0,
                 quantity="sum(1 for v in graph if v.grad != 0)", inputs=shown)


@pytest.mark.check(id="zero-grad-in-linear-time", pitfall="missing-visited-set", weight=2,
                   requires=("zero-grad-resets-whole-graph",), timeout=1.5,
                   defers_to=(EQUAL_DATA,), clause="zero-grad-once")
def test_zero_grad_on_a_wide_shared_graph_runs_in_linear_time(sandboxed, rng):
    c = round(rng.uniform(0.2, 0.4), 3)
    inputs = {"x": distinct_values(rng, "x")["x"], "y": c, "z": round(1 - c, 3)}
    shown = {"graph": verdicts.LADDER_GRAPH, "depth": WIDE_DEPTH, "a": inputs["x"],
             "c": inputs["y"], "d": inputs["z"], "calls": "zero_grad(out)"}
    result = verdicts.run_explaining_timeout(
        sandboxed, scenarios.wide_shared_zero_grad, "slow-zero-grad",
        {"inputs": shown, "nodes": 3 + 3 * WIDE_DEPTH}, depth=WIDE_DEPTH, **inputs)
    expect_equal(field(result, "not_reset", int), 0,
                 quantity="sum(1 for v in graph if v.grad != 0)", inputs=shown)


def _check_cycle(sandboxed, rng, shape):
    # the cycle made before any backward(), then the same one made after a first backward()
    # on the same output (the graph changed between two calls: an order kept from the first
    # walk misses it)
    inputs = distinct_values(rng, "x y")
    for after_backward, graphs in ((False, verdicts.CYCLE_GRAPHS),
                                   (True, verdicts.CYCLES_AFTER_BACKWARD)):
        shown = {"graph": graphs[shape], "a": inputs["x"], "b": inputs["y"]}
        result = verdicts.run_explaining_timeout(sandboxed, scenarios.cycle, "cycle-loops",
                                                  {"inputs": shown}, shape=shape,
                                                  after_backward=after_backward, **inputs)
        verdicts.expect_clear_cycle_error(result, shown)


# Judged on their own graphs once backward() works on a tree: only a walk out of order (a
# pre-order walk cannot tell a path from a finished node), one without a visited set (which
# loops on any cycle) or a recursive one (which overflows first) takes the blame instead.
CYCLE_DEFERS_TO = ("ladder-backward-in-topological-order", "ladder-backward-once-per-node",
                   "deep-chain-backward",
                   # a second walk that skips the nodes a first one walked (a visited set kept
                   # between calls) misses a cycle made after the first: that check names it
                   "second-backward-reaches-walked-nodes")


@pytest.mark.check(id="cycle-below-output-detected", pitfall="cycle-detection", weight=1,
                   requires=("backward-on-expression-tree",), defers_to=CYCLE_DEFERS_TO,
                   timeout=1, clause="cycle")
def test_cycle_below_the_output_raises_a_clear_error(sandboxed, rng):
    _check_cycle(sandboxed, rng, "below-output")


@pytest.mark.check(id="cycle-through-output-detected", pitfall="cycle-detection", weight=1,
                   requires=("backward-on-expression-tree",), defers_to=CYCLE_DEFERS_TO,
                   timeout=1, clause="cycle")
def test_cycle_through_the_output_raises_a_clear_error(sandboxed, rng):
    _check_cycle(sandboxed, rng, "through-output")


def _numerical_inputs(rng, restore_traps=False):
    """Inputs of "cubic-mix"; with restore_traps, two of them are numbers that arithmetic does
    not put back (verdicts.RESTORE_TRAPS), in a random order, so "restored exactly" is judged
    under every seed."""
    inputs = distinct_values(rng, "x y z")
    if restore_traps:
        values = [*verdicts.RESTORE_TRAPS, inputs["x"]]
        rng.shuffle(values)
        inputs = dict(zip("xyz", values, strict=True))
    shown = {**verdicts.NUMERICAL_FUNCTIONS["cubic-mix"], "a": inputs["x"], "b": inputs["y"],
             "c": inputs["z"], "h": FINITE_STEP, "calls": "numerical_grad(f, [a, b, c], h)"}
    return [inputs["x"], inputs["y"], inputs["z"]], shown


@pytest.mark.check(id="numerical-grad-restores-data", pitfall="mid-flight-mutation", weight=8,
                   clause="restores-data")
def test_numerical_grad_puts_every_input_back(sandboxed, rng):
    point, shown = _numerical_inputs(rng, restore_traps=True)
    result = verdicts.run_numerical(sandboxed, "cubic-mix", FINITE_STEP, point)
    data = verdicts.floats(result, "data", "[a.data, b.data, c.data]", len(point), shown)
    for name, actual, value in zip("abc", data, point, strict=True):
        # exactly: x.data += h; ...; x.data -= h leaves x.data a rounding error away
        expect_equal(actual, value, quantity=f"{name}.data", inputs=shown)


@pytest.mark.check(id="numerical-grad-central-difference", pitfall="finite-difference", weight=1,
                   requires=("numerical-grad-restores-data",), clause="numerical-grad")
def test_numerical_grad_is_the_central_difference(sandboxed, rng):
    point, shown = _numerical_inputs(rng)
    result = verdicts.run_numerical(sandboxed, "cubic-mix", FINITE_STEP, point)
    grads = verdicts.numerical_grads(result, "numerical_grad(f, [a, b, c], h)", len(point),
                                     shown)
    expected = verdicts.central_differences(verdicts.FLOAT_FUNCTIONS["cubic-mix"], point,
                                            FINITE_STEP)
    for k, (actual, value) in enumerate(zip(grads, expected, strict=True)):
        expect_close(actual, value, quantity=f"numerical_grad(f, [a, b, c], h)[{k}]",
                     inputs=shown, source="central-difference")


CHECK_GRAD_BASE = (*TRAVERSAL, "zero-grad-resets-whole-graph", "numerical-grad-central-difference")


def _check_grad_inputs(rng, kind):
    if kind == "large":  # a + b + c between 4.5 and 6: exp(5 * (a + b + c)) near 1e10 and more
        return {name: round(rng.uniform(1.5, 2.0), 3) for name in ("x", "y", "z")}
    inputs = distinct_values(rng, "x y z")
    if kind == "just-outside":  # d/da = b below 1 in size: the tolerance is tol * 1 there
        inputs["y"] = round(rng.uniform(0.3, 0.8) * rng.choice((-1, 1)), 3)
    return inputs


def _check_grad_verdict(sandboxed, rng, kind, stale):
    inputs = _check_grad_inputs(rng, kind)
    stale_grad = verdicts.STALE_CHECK_GRAD if stale else None
    result = sandboxed(scenarios.check_grad_verdict, kind=kind, stale=stale_grad,
                       offset=verdicts.JUST_OUTSIDE, **inputs)
    verdicts.expect_check_grad_verdict(result, kind, stale_grad, inputs)


@pytest.mark.check(id="check-grad-accepts-correct-gradients", pitfall="finite-difference",
                   weight=1, requires=CHECK_GRAD_BASE,
                   defers_to=(EQUAL_DATA,), clause=("check-grad", "tolerance"))
def test_check_grad_accepts_a_correct_backward(sandboxed, rng):
    for kind in ("correct", "large"):  # large: only a relative tolerance accepts it
        _check_grad_verdict(sandboxed, rng, kind, stale=False)


@pytest.mark.check(id="check-grad-rejects-wrong-gradient", pitfall="finite-difference", weight=1,
                   requires=("check-grad-accepts-correct-gradients",),
                   clause=("check-grad", "tolerance"))
def test_check_grad_rejects_a_wrong_local_derivative(sandboxed, rng):
    # the first input wrong, then the last one, then the first off by just beyond the tolerance
    for kind in ("wrong", "wrong-last", "just-outside"):
        _check_grad_verdict(sandboxed, rng, kind, stale=False)


@pytest.mark.check(id="check-grad-zeroes-stale-gradients", pitfall="missing-zero-grad", weight=9,
                   requires=("check-grad-accepts-correct-gradients",), clause="check-grad-zeroes")
def test_check_grad_ignores_gradients_left_by_earlier_passes(sandboxed, rng):
    _check_grad_verdict(sandboxed, rng, "correct", stale=True)


# -- random graphs with shared nodes -------------------------------------------------------

RANDOM_GRAPHS = 16  # drawn after the fixed shapes (random_graphs.SHAPES_LAB03)


@pytest.mark.check(id="random-dags-match-reference", pitfall="topological-order", weight=2,
                   random=True, clause=("every-node", "given-operations", "order"))
def test_random_dags_with_shared_nodes_match_the_reference(sandboxed, reference, rng, blame_deferred):
    programs = random_graphs.draw_programs(rng, random_graphs.LAB02_OPS, RANDOM_GRAPHS,
                                           random_graphs.SHAPES_LAB03)
    random_graphs.judge(sandboxed, reference, scenarios.random_graphs, programs,
                        default_pitfall="topological-order",
                        explain=not blame_deferred)


# -- the formulas of numerical_grad, check_grad and zero_grad, over the contract's dimensions ---
# Inputs from 0 through tiny to large magnitudes (README: the domain), steps and tolerances
# given or left to their defaults; compared with the reference case by case, simplest first,
# so the case a failure shows is the smallest that fails.

def _numerical_cases(rng):
    """numerical_grad cases over magnitudes x h x function: each input's magnitude from
    verdicts.MAGNITUDES in turn (the others drawn near 1), h from verdicts.NUMERICAL_STEPS; then
    one case of each h again with every argument passed by name (f=, xs=, h=)."""
    cases = []
    for function, arity in (("square-times", 2), ("cubic-mix", 3)):
        for magnitude in verdicts.MAGNITUDES:
            for h in verdicts.NUMERICAL_STEPS:
                point = list(distinct_values(rng, "x y z").values())[:arity]
                point[rng.randrange(arity)] = magnitude * rng.choice((-1, 1))
                cases.append({"function": function, "point": point, "h": h})
    return cases + verdicts.by_name(cases, "h")  # the README's parameter names too


@pytest.mark.check(id="numerical-grad-follows-the-formula", pitfall="finite-difference",
                   weight=1, requires=("numerical-grad-restores-data",),
                   clause=("numerical-grad", "restores-data"))
def test_numerical_grad_is_the_contracts_formula_at_every_magnitude(sandboxed, reference, rng):
    cases = _numerical_cases(rng)
    got = field(sandboxed(scenarios.numerical_cases, cases=cases), "results", list)
    want = reference(scenarios.numerical_cases, cases=cases)["results"]
    verdicts.expect_numerical_cases(cases, got, want)


@pytest.mark.check(id="check-grad-follows-the-formula", pitfall="finite-difference", weight=1,
                   requires=("check-grad-accepts-correct-gradients",
                             "numerical-grad-follows-the-formula"),
                   clause=("check-grad", "tolerance"))
def test_check_grad_gives_the_contracts_answer_at_every_tolerance(sandboxed, reference, rng):
    cases = verdicts.check_grad_cases(rng)
    got = field(sandboxed(scenarios.check_grad_cases, cases=cases), "answers", list)
    want = reference(scenarios.check_grad_cases, cases=cases)["answers"]
    verdicts.expect_check_grad_cases(cases, got, want)


ZERO_GRAD_GRAPHS = 12


@pytest.mark.check(id="zero-grad-resets-random-graphs", pitfall="missing-zero-grad", weight=1,
                   requires=("zero-grad-resets-whole-graph",), defers_to=(EQUAL_DATA,),
                   clause=("zero-grad-argument", "zero-grad-resets"))
def test_zero_grad_resets_random_graphs_whatever_their_nodes_hold(sandboxed, reference, rng):
    programs = random_graphs.draw_programs(rng, random_graphs.LAB02_OPS, ZERO_GRAD_GRAPHS,
                                           random_graphs.SHAPES_LAB03)
    random_graphs.judge(sandboxed, reference, scenarios.zero_grad_graphs, programs,
                        default_pitfall="missing-zero-grad", diagnosed=False)


@pytest.mark.check(id="gradient-checks-take-a-value-twice", pitfall="finite-difference",
                   weight=1, defers_to=(EQUAL_DATA, "numerical-grad-follows-the-formula",
                                        "check-grad-follows-the-formula"),
                   clause=("numerical-grad", "check-grad"))
def test_numerical_grad_and_check_grad_with_one_value_at_several_positions(sandboxed, reference,
                                                                           rng):
    # the contract's operand-kind dimension, the same Value twice, applied to xs: f(u, u, v)
    # nudges u at both positions, so each of them gets the derivative along u (the reference's
    # answer), and check_grad compares that with u.grad. Its cases need neither magnitudes nor
    # large gradients: a formula wrong there is the formula checks' to name, not a prerequisite
    cases = verdicts.same_value_cases(rng, "h")
    got = field(sandboxed(scenarios.numerical_cases, cases=cases), "results", list)
    want = reference(scenarios.numerical_cases, cases=cases)["results"]
    verdicts.expect_numerical_cases(cases, got, want)
    cases = verdicts.same_value_cases(rng, "tol")
    got = field(sandboxed(scenarios.check_grad_cases, cases=cases), "answers", list)
    want = reference(scenarios.check_grad_cases, cases=cases)["answers"]
    verdicts.expect_check_grad_cases(cases, got, want)
