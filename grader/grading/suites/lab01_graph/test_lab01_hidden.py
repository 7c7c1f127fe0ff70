"""Hidden checks for lab 01 (computation graphs): one pitfall per check, randomized inputs.

Prerequisites keep a failure from being blamed on the wrong pitfall: a check that cannot
mean anything until another passes declares it in `requires` and is otherwise not run.
The random-graph check (`random=True`) defers to every check above it marked
`random_defers=True`: the checks of one backward pass on a fresh graph, whose bugs its graphs
show too. The label check and the seed over a gradient the output already holds are not
marked: no random graph judges a label or starts from a gradient.
"""

import pytest

from grader.checking import (
    contract_grid,
    distinct_values,
    expect_equal,
    expect_results_close,
    field,
    random_graphs,
)
from grader.checking.lab01_graph import scenarios, verdicts

# Only behaviour gates: a label, the type of `_prev` or the form of `grad` never does.
BUILT = ("value-hashable", "add-builds-node", "mul-builds-node")
LOCAL = ("add-local-derivative", "mul-local-derivative")
ORDERED = (*LOCAL, "backward-runs-in-topological-order")
PROPAGATING = (*ORDERED, "backward-calls-each-node-once", "add-passes-upstream-gradient",
               "mul-passes-upstream-gradient")



@pytest.mark.check(id="value-hashable", pitfall="hash-trap", weight=1, random_defers=True,
                   clause="identity")
def test_values_can_be_hashed_and_put_in_sets(sandboxed, rng):
    inputs = distinct_values(rng, "x y")
    result = sandboxed(scenarios.hash_nodes, **inputs)
    verdicts.expect_hashable_nodes(result, inputs)


@pytest.mark.check(id="leaf-backward-is-noop", pitfall="leaf-backward", weight=1,
                   random_defers=True, clause="leaf-backward")
def test_leaf_backward_changes_nothing(sandboxed, rng):
    inputs = distinct_values(rng, "x")
    result = sandboxed(scenarios.leaf_backward, **inputs)
    expect_equal(field(result, "callable", bool), True, quantity="callable(a._backward)",
                 inputs=inputs)
    expect_results_close(result, {"grad_after": 0.0}, inputs=inputs, source="literal")


def _check_builds_node(sandboxed, rng, op):
    inputs = distinct_values(rng, "x y")
    result = sandboxed(scenarios.build_node, op=op, **inputs)
    verdicts.expect_built_node(result, op, inputs["x"], inputs["y"])


@pytest.mark.check(id="add-builds-node", pitfall="graph-construction", weight=1,
                   requires=("value-hashable",), random_defers=True,
                   clause=("constructor", "data", "grad-at-creation", "prev"))
def test_add_builds_a_node_with_both_parents(sandboxed, rng):
    _check_builds_node(sandboxed, rng, "+")


@pytest.mark.check(id="mul-builds-node", pitfall="graph-construction", weight=1,
                   requires=("value-hashable",), random_defers=True,
                   clause=("constructor", "data", "grad-at-creation", "prev"))
def test_mul_builds_a_node_with_both_parents(sandboxed, rng):
    _check_builds_node(sandboxed, rng, "*")


def _check_keyword(sandboxed, rng, keyword):
    # Value(data, _children=(), _op=''): one argument by keyword, as the README's table names it
    inputs = distinct_values(rng, "x y")
    result = sandboxed(scenarios.keyword_constructor, keyword=keyword, **inputs)
    verdicts.expect_keyword_node(result, inputs["x"], inputs["y"], keyword)


@pytest.mark.check(id="constructor-takes-children-by-name", pitfall="graph-construction",
                   weight=1, requires=("value-hashable",), clause="prev")
def test_the_constructor_takes_children_by_name(sandboxed, rng):
    _check_keyword(sandboxed, rng, "_children")


@pytest.mark.check(id="constructor-takes-op-by-name", pitfall="graph-construction", weight=1,
                   requires=("value-hashable",), clause="op")
def test_the_constructor_takes_op_by_name(sandboxed, rng):
    _check_keyword(sandboxed, rng, "_op")


@pytest.mark.check(id="op-labels-name-the-operation", pitfall="graph-construction", weight=1,
                   requires=BUILT, clause="op")
def test_op_labels_tell_the_operations_apart(sandboxed, rng):
    inputs = distinct_values(rng, "x y")
    shown = {"a": inputs["x"], "b": inputs["y"]}
    labels = {op: sandboxed(scenarios.build_node, op=op, **inputs) for op in ("+", "*")}
    label = (str, type(None))  # None: the node has no `_op`, or one that is not text
    types = {f"a {op} b": field(r, "op_type", label) for op, r in labels.items()}
    types["a"] = field(labels["+"], "leaf_op_type", label)
    verdicts.expect_op_labels({op: field(r, "op", label) for op, r in labels.items()},
                              field(labels["+"], "leaf_op", label), shown, types)


@pytest.mark.check(id="parents-kept-in-prev", pitfall="graph-construction", weight=1,
                   requires=BUILT, clause="prev")
def test_parents_are_kept_under_prev(sandboxed, rng):
    # only the attribute's name: an engine that keeps the parents under another name loses
    # this point and keeps every check of its numbers (they never read `_prev`)
    inputs = distinct_values(rng, "x y")
    built = {op: sandboxed(scenarios.build_node, op=op, **inputs) for op in ("+", "*")}
    verdicts.expect_parents_in_prev(built, {"a": inputs["x"], "b": inputs["y"]})


@pytest.mark.check(id="backward-seeds-output", pitfall="seed-gradient", weight=2, requires=BUILT,
                   defers_to=("leaf-backward-is-noop",), random_defers=True, clause="seed")
def test_backward_seeds_the_output_with_one(sandboxed, rng):
    inputs = distinct_values(rng, "x y")
    result = verdicts.run_backward(sandboxed, scenarios.seed, **inputs)
    verdicts.expect_seeded(result, {"a": inputs["x"], "b": inputs["y"]},
                           {"out": "a * b", "a": inputs["x"], "b": inputs["y"]})


STALE_GRAD = 2.5  # what the output holds before backward(): a seed that adds ends at 3.5


@pytest.mark.check(id="backward-seeds-over-an-output-gradient", pitfall="seed-gradient",
                   weight=1, requires=("backward-seeds-output",), clause="seed")
def test_backward_sets_the_seed_whatever_the_output_held(sandboxed, rng):
    inputs = distinct_values(rng, "x y")
    result = verdicts.run_backward(sandboxed, scenarios.seed, stale=STALE_GRAD, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"]}
    verdicts.expect_seeded(result, leaves, {"out": "a * b", **leaves, "out.grad": STALE_GRAD,
                                            "calls": "out.backward()"})


def _check_local_derivative(sandboxed, reference, rng, op):
    inputs = distinct_values(rng, "x y")
    result = sandboxed(scenarios.one_op, op=op, **inputs)
    expected = reference(scenarios.one_op, op=op, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"]}
    verdicts.expect_gradients(result, expected, shape=verdicts.one_op_shape(op), leaves=leaves,
                              inputs=leaves, source="reference")


@pytest.mark.check(id="add-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("backward-seeds-output",), random_defers=True,
                   clause="grad-is-derivative")
def test_add_passes_one_to_each_parent(sandboxed, reference, rng):
    _check_local_derivative(sandboxed, reference, rng, "+")


@pytest.mark.check(id="mul-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("backward-seeds-output",), random_defers=True,
                   clause="grad-is-derivative")
def test_mul_passes_the_other_factor(sandboxed, reference, rng):
    _check_local_derivative(sandboxed, reference, rng, "*")


def _recorded_calls(sandboxed, rng):
    inputs = distinct_values(rng, "x y z w")
    result = sandboxed(scenarios.sibling_calls, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"], "c": inputs["z"], "d": inputs["w"]}
    return result, leaves, {"graph": verdicts.SIBLING_GRAPH, **leaves}


@pytest.mark.check(id="backward-runs-in-topological-order", pitfall="topological-order",
                   weight=3, requires=LOCAL, random_defers=True, clause="order")
def test_each_backward_waits_for_its_consumers(sandboxed, rng):
    result, leaves, shown = _recorded_calls(sandboxed, rng)
    verdicts.expect_topological_calls(result, leaves, shown)


@pytest.mark.check(id="backward-calls-each-node-once", pitfall="missing-visited-set", weight=2,
                   requires=LOCAL, random_defers=True, clause="once")
def test_node_reached_twice_runs_backward_once(sandboxed, rng):
    result, leaves, shown = _recorded_calls(sandboxed, rng)
    verdicts.expect_each_called_once(result, leaves, shown)


def _check_two_ops(sandboxed, reference, rng, inner):
    inputs = distinct_values(rng, "x y z")
    result = sandboxed(scenarios.two_ops, inner=inner, **inputs)
    expected = reference(scenarios.two_ops, inner=inner, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"], "c": inputs["z"]}
    shown = {"out": f"(a {inner} b) * c", **leaves}
    verdicts.expect_gradients(result, expected, shape=verdicts.two_ops_shape(inner),
                              leaves=leaves, inputs=shown, source="reference")


@pytest.mark.check(id="add-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=2, requires=ORDERED, random_defers=True, clause="grad-is-derivative")
def test_add_scales_by_the_upstream_gradient(sandboxed, reference, rng):
    _check_two_ops(sandboxed, reference, rng, "+")


@pytest.mark.check(id="mul-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=2, requires=ORDERED, random_defers=True, clause="grad-is-derivative")
def test_mul_scales_by_the_upstream_gradient(sandboxed, reference, rng):
    _check_two_ops(sandboxed, reference, rng, "*")


@pytest.mark.check(id="diamond-accumulates", pitfall="grad-overwrite", weight=3,
                   requires=PROPAGATING, random_defers=True, clause="accumulate")
def test_reused_leaf_accumulates_both_paths(sandboxed, reference, rng):
    inputs = distinct_values(rng, "x y")
    result = sandboxed(scenarios.diamond, **inputs)
    expected = reference(scenarios.diamond, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"]}
    verdicts.expect_gradients(result, expected, shape=verdicts.DIAMOND_SHAPE, leaves=leaves,
                              inputs={"out": "a*b + a", **leaves}, source="reference")


def _check_self_op(sandboxed, reference, rng, op):
    inputs = distinct_values(rng, "x")
    result = sandboxed(scenarios.self_op, op=op, **inputs)
    expected = reference(scenarios.self_op, op=op, **inputs)
    verdicts.expect_gradients(result, expected, shape=verdicts.self_op_shape(op),
                              leaves={"a": inputs["x"]},
                              inputs={"out": f"a {op} a", "a": inputs["x"]}, source="reference")


@pytest.mark.check(id="self-add-accumulates", pitfall="grad-overwrite", weight=2,
                   requires=PROPAGATING, random_defers=True, clause="accumulate")
def test_value_added_to_itself_gets_two(sandboxed, reference, rng):
    _check_self_op(sandboxed, reference, rng, "+")


@pytest.mark.check(id="self-mul-accumulates", pitfall="grad-overwrite", weight=2,
                   requires=PROPAGATING, random_defers=True, clause="accumulate")
def test_value_times_itself_gets_twice_its_data(sandboxed, reference, rng):
    _check_self_op(sandboxed, reference, rng, "*")


@pytest.mark.check(id="shared-intermediate-accumulates", pitfall="grad-overwrite", weight=2,
                   requires=PROPAGATING, random_defers=True, clause="accumulate")
def test_shared_intermediate_sums_its_uses(sandboxed, reference, rng):
    inputs = distinct_values(rng, "x y z w")
    result = sandboxed(scenarios.shared_intermediate, **inputs)
    expected = reference(scenarios.shared_intermediate, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"], "c": inputs["z"], "d": inputs["w"]}
    verdicts.expect_gradients(result, expected, shape=verdicts.SIBLING_SHAPE, leaves=leaves,
                              inputs={"out": "x*c + x*d, x = a*b", **leaves}, source="reference")


@pytest.mark.check(id="equal-data-leaves-stay-distinct", pitfall="hash-trap", weight=2,
                   requires=PROPAGATING, random_defers=True, clause=("prev", "identity"))
def test_leaves_with_equal_data_are_different_nodes(sandboxed, reference, rng):
    inputs = {"v": distinct_values(rng, "v")["v"]}
    result = sandboxed(scenarios.equal_data_leaves, **inputs)
    shown = {"out": "a * b", "a.data": inputs["v"], "b.data": inputs["v"]}
    parents = field(result, "parents", (list, type(None)))
    if parents is not None:  # no `_prev` at all costs parents-kept-in-prev alone
        expect_equal(parents, ["a", "b"], quantity="(a * b)._prev", inputs=shown)
    expected = reference(scenarios.equal_data_leaves, **inputs)
    del expected["parents"]
    verdicts.expect_gradients(result, expected, shape=verdicts.one_op_shape("*"),
                              leaves={"a": inputs["v"], "b": inputs["v"]}, inputs=shown,
                              source="reference")


@pytest.mark.check(id="equal-data-nodes-stay-distinct", pitfall="hash-trap", weight=2,
                   requires=PROPAGATING, random_defers=True, clause="identity")
def test_nodes_with_equal_data_are_all_visited(sandboxed, reference, rng):
    inputs = distinct_values(rng, "x y z")
    result = sandboxed(scenarios.equal_data_nodes, **inputs)
    expected = reference(scenarios.equal_data_nodes, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"], "c": inputs["x"], "d": inputs["y"],
              "e": inputs["z"]}
    verdicts.expect_gradients(result, expected, shape=verdicts.EQUAL_DATA_NODES_SHAPE,
                              leaves=leaves, inputs={"out": "a*b + (c*d)*e", **leaves},
                              source="reference")


def _check_number_operand(sandboxed, reference, rng, side):
    for op in ("+", "*"):
        inputs = distinct_values(rng, "x k")
        inputs["k"] = round(inputs["k"] * 2) or 2  # a plain int, as students write it
        result = sandboxed(scenarios.number_operand, side=side, op=op, **inputs)
        expected = reference(scenarios.number_operand, side=side, op=op, **inputs)
        written = f"a {op} k" if side == "right" else f"k {op} a"
        # the number's leaf (k.data, k.grad) where the engine keeps its parents in `_prev`
        expected = {q: v for q, v in expected.items() if q in result or not q.startswith("k.")}
        expect_results_close(result, expected, inputs={
            "out": written, "a": inputs["x"], "k": inputs["k"],
            "before": f"the same {written} built on a Value({inputs['x']}) and backpropagated"},
                             source="reference")


@pytest.mark.check(id="number-right-operand", pitfall="number-operand", weight=2, requires=LOCAL,
                   random_defers=True, clause="operands")
def test_number_on_the_right_is_wrapped(sandboxed, reference, rng):
    _check_number_operand(sandboxed, reference, rng, "right")


@pytest.mark.check(id="number-left-operand", pitfall="number-operand", weight=2, requires=LOCAL,
                   random_defers=True, clause="operands")
def test_number_on_the_left_uses_reflected_operators(sandboxed, reference, rng):
    _check_number_operand(sandboxed, reference, rng, "left")


RANDOM_GRAPHS = 24  # drawn by hypothesis, after the fixed shapes of random_graphs.SHAPES_LAB01


@pytest.mark.check(id="random-graphs-match-reference", pitfall="topological-order", weight=4,
                   random=True, clause=("data", "grad-is-derivative", "operands", "order",
                                        "accumulate", "identity"))
def test_random_graphs_give_the_reference_data_and_gradients(sandboxed, reference, rng, blame_deferred):
    programs = random_graphs.draw_programs(rng, random_graphs.LAB01_OPS, RANDOM_GRAPHS,
                                           random_graphs.SHAPES_LAB01)
    random_graphs.judge(sandboxed, reference, scenarios.random_graphs, programs,
                        default_pitfall="topological-order",
                        explain=not blame_deferred)


@pytest.mark.check(id="second-backward-walks-the-whole-graph", pitfall="missing-visited-set",
                   weight=2, requires=PROPAGATING, clause="every-call")
def test_a_second_backward_reaches_nodes_the_first_one_walked(sandboxed, reference, rng):
    inputs = distinct_values(rng, "x y z w")
    result = sandboxed(scenarios.second_backward, **inputs)
    expected = reference(scenarios.second_backward, **inputs)
    leaves = {"a": inputs["x"], "b": inputs["y"], "c": inputs["z"], "d": inputs["w"]}
    verdicts.expect_gradients(result, expected, shape=verdicts.SECOND_BACKWARD_SHAPE,
                              leaves=leaves,
                              inputs={"calls": verdicts.SECOND_BACKWARD_GRAPH, **leaves},
                              source="reference")


# -- checks generated from the contract's dimensions (grader.grading.checking.contract_grid) ----

CONTRACT = contract_grid.DIMENSIONS["lab01_graph"]
# The checks of one backward pass whose failures a contract check's would repeat: it defers to
# them, and to the random graphs, so it takes the blame only for what shows at the edges.
NUMBERS_JUDGED = ("diamond-accumulates", "self-add-accumulates", "self-mul-accumulates",
                  "shared-intermediate-accumulates", "equal-data-leaves-stay-distinct",
                  "equal-data-nodes-stay-distinct", "number-right-operand", "number-left-operand",
                  "random-graphs-match-reference")



# timeout: 90 programs, each with its backward(), in one scenario
@pytest.mark.check(id="values-keep-no-state-between-graphs", pitfall="shared-state", weight=3,
                   requires=PROPAGATING, defers_to=NUMBERS_JUDGED, clause="independent",
                   timeout=10)
def test_graphs_built_in_any_order_keep_their_own_numbers(sandboxed, reference, rng):
    # the same graph three times with the same numbers, with the garbage collector between
    # runs, built before any backward(), interleaved: fresh nodes, distinct nodes
    sessions = contract_grid.state_sessions(rng, random_graphs.LAB01_OPS)
    contract_grid.judge_sessions(sandboxed, reference, scenarios.state_sessions, sessions,
                                 "shared-state", evidence=True)


@pytest.mark.check(id="edge-operands-match-reference", pitfall="domain-edge", weight=3,
                   requires=PROPAGATING,
                   defers_to=(*NUMBERS_JUDGED, "values-keep-no-state-between-graphs"),
                   clause="domain", timeout=8)
def test_operations_at_the_edges_of_the_domain_give_the_reference_numbers(sandboxed, reference):
    # every operation x operand kind x edge value (0, 1, -1, tiny, large, many digits,
    # negative; int data), each value once on each side, alone or scaled
    # (contract_grid.edge_cover), data compared exactly: the same programs under every seed
    programs = contract_grid.edge_cover(CONTRACT)
    random_graphs.judge(sandboxed, reference, scenarios.random_graphs, programs,
                        default_pitfall="domain-edge", diagnosed=False, exact=True)


@pytest.mark.check(id="every-operation-returns-a-new-value", pitfall="graph-construction",
                   weight=1, requires=BUILT, clause="new-value")
def test_no_operation_returns_one_of_its_operands(sandboxed):
    programs = contract_grid.edge_programs(CONTRACT)
    result = sandboxed(scenarios.state_sessions,
                       sessions=[contract_grid.new_value_session(programs)])
    contract_grid.expect_new_values(result, programs, "graph-construction")
