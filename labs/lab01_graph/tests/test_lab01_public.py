"""Public checks for lab 01, on the worked examples of the course chapter (a = 2, b = 3, c = 10).

Run them with `make check` (or `python -m grader check lab01_graph`). The graded suite runs
these and more, with randomized inputs: passing these is a good sign, not a guarantee.
Like the graded checks, each names one pitfall and waits for the checks it builds on.

They come in the order of the TODOs of `value.py`, and each waits only for what it cannot be
judged without: the checks of a TODO can pass as soon as it and the TODOs before it are
written. The checks of one operation's `_backward` call it by hand (`out.grad = ...;
out._backward()`), so they do not wait for `backward()`, which is the last TODO.
"""

import random

import pytest

from grader.checking import (
    check_case,
    contract_grid,
    expect_equal,
    expect_results_close,
    field,
    structure_only,
)
from grader.checking.lab01_graph import scenarios, verdicts

A, B, C, D = 2.0, 3.0, 10.0, -4.0
PRESET = 0.5  # a gradient a node already holds from another use
BUILT = ("example-leaf-backward", "course-example-graph")
PROPAGATING = ("example-add-upstream-gradient", "example-mul-upstream-gradient",
               "example-seed", "example-topological-order", "example-each-node-once")


def _expect_direct(sandboxed, op, expected, upstream=1.0, same=False, preset=0.0):
    """Call one operation's `_backward` by hand and compare the parents' gradients."""
    result = sandboxed(scenarios.direct_backward, op=op, x=A, y=B, upstream=upstream, same=same,
                       preset=preset)
    shown = {"out": f"a {op} a" if same else f"a {op} b", "a": A}
    if not same:
        shown["b"] = B
    if preset:
        shown["a.grad" if same else "a.grad, b.grad"] = preset
    shown.update({"out.grad": upstream, "called": "out._backward()"})
    expect_results_close(result, expected, inputs=shown, source="literal")


def _expect_numbers(sandboxed, op, k, data, grad):
    for side in ("right", "left"):
        result = sandboxed(scenarios.number_operand, side=side, op=op, x=A, k=k,
                           own_backward=True)
        written = f"a {op} {k}" if side == "right" else f"{k} {op} a"
        expect_results_close(result, {"data": data, "a.grad": grad},
                             inputs={"out": written, "a": A, "out.grad": 1.0,
                                     "called": "out._backward()"}, source="literal")


# -- TODO 1: the leaf's _backward -----------------------------------------------------------------

@pytest.mark.check(id="example-leaf-backward", todo=1, pitfall="leaf-backward", weight=1)
def test_example_leaf_backward_does_nothing(sandboxed):
    result = sandboxed(scenarios.leaf_backward, x=A)
    expect_equal(field(result, "callable", bool), True, quantity="callable(a._backward)",
                 inputs={"a": A})
    expect_results_close(result, {"grad_after": 0.0}, inputs={"a": A}, source="literal")


# -- TODO 2: the node of a sum --------------------------------------------------------------------

@pytest.mark.check(id="example-values-hashable", todo=2, pitfall="hash-trap", weight=1)
def test_example_values_can_be_hashed(sandboxed):
    result = sandboxed(scenarios.hash_nodes, x=A, y=B, ops="+")
    verdicts.expect_hashable_nodes(result, {"a": A, "b": B}, "len({a, b, a + b})", 3)


@pytest.mark.check(id="example-add-node", todo=2, pitfall="graph-construction", weight=1,
                   requires=("example-values-hashable",))
def test_example_sum_builds_a_node(sandboxed):
    result = sandboxed(scenarios.build_node, op="+", x=A, y=B)
    verdicts.expect_built_node(result, "+", A, B)


# -- TODO 3: the _backward of a sum ---------------------------------------------------------------

@pytest.mark.check(id="example-add-local-derivative", todo=3,
                   pitfall="wrong-local-derivative", weight=1,
                   requires=("example-add-node",))
def test_example_sum_passes_one_to_each_parent(sandboxed):
    _expect_direct(sandboxed, "+", {"a.grad": 1.0, "b.grad": 1.0})


@pytest.mark.check(id="example-add-upstream-gradient", todo=3, pitfall="ignores-upstream-gradient",
                   weight=1, requires=("example-add-local-derivative",))
def test_example_sum_scales_by_out_grad(sandboxed):
    _expect_direct(sandboxed, "+", {"a.grad": C, "b.grad": C}, upstream=C)


@pytest.mark.check(id="example-add-accumulates", todo=3, pitfall="grad-overwrite", weight=1,
                   requires=("example-add-local-derivative",))
def test_example_sum_adds_to_the_parents_grads(sandboxed):
    _expect_direct(sandboxed, "+", {"a.grad": 2.0}, same=True)
    _expect_direct(sandboxed, "+", {"a.grad": PRESET + 1, "b.grad": PRESET + 1}, preset=PRESET)


# -- TODO 4: the node of a product ----------------------------------------------------------------

@pytest.mark.check(id="course-example-graph", todo=4, pitfall="graph-construction", weight=1,
                   requires=("example-add-node",))
def test_course_example_builds_the_graph(sandboxed):
    shown = {"d": "a*b + c", "a": A, "b": B, "c": C}
    result = sandboxed(scenarios.course_graph, x=A, y=B, z=C)
    expect_results_close(result, {"ab.data": 6.0, "out.data": 16.0}, inputs=shown,
                         source="literal")
    parents = {key: field(result, key, (list, type(None))) for key in ("ab._prev", "out._prev")}
    if None not in parents.values():  # no `_prev` at all: example-parents-kept-in-prev says it
        expect_equal(parents["ab._prev"], ["a", "b"], quantity="(a*b)._prev", inputs=shown)
        expect_equal(parents["out._prev"], ["ab", "c"], quantity="d._prev", inputs=shown)
    # labels that tell * from + (the chapter's are '*' and '+'), judged last and as structure
    # only: a wrong label fails this check, and the checks that wait for it still run
    labels = {"*": field(result, "ab._op", (str, type(None))),
              "+": field(result, "out._op", (str, type(None)))}
    if None not in labels.values():  # no `_op`, or one not text: the hidden label check's
        with structure_only():
            verdicts.expect_op_labels(labels, "", shown)


@pytest.mark.check(id="example-parents-kept-in-prev", todo=4, pitfall="graph-construction",
                   weight=1, requires=("course-example-graph",))
def test_course_example_keeps_the_parents_under_prev(sandboxed):
    # the attribute's name alone: the checks of numbers never read `_prev`
    built = {op: sandboxed(scenarios.build_node, op=op, x=A, y=B) for op in ("+", "*")}
    verdicts.expect_parents_in_prev(built, {"a": A, "b": B})


# -- TODO 5: the _backward of a product -----------------------------------------------------------

@pytest.mark.check(id="example-mul-local-derivative", todo=5,
                   pitfall="wrong-local-derivative", weight=1,
                   requires=("course-example-graph",))
def test_example_product_passes_the_other_factor(sandboxed):
    _expect_direct(sandboxed, "*", {"a.grad": B, "b.grad": A})


@pytest.mark.check(id="example-mul-upstream-gradient", todo=5, pitfall="ignores-upstream-gradient",
                   weight=1, requires=("example-mul-local-derivative",))
def test_example_product_scales_by_out_grad(sandboxed):
    _expect_direct(sandboxed, "*", {"a.grad": B * C, "b.grad": A * C}, upstream=C)


@pytest.mark.check(id="example-mul-accumulates", todo=5, pitfall="grad-overwrite", weight=1,
                   requires=("example-mul-local-derivative",))
def test_example_product_adds_to_the_parents_grads(sandboxed):
    _expect_direct(sandboxed, "*", {"a.grad": 2 * A}, same=True)
    _expect_direct(sandboxed, "*", {"a.grad": PRESET + B, "b.grad": PRESET + A}, preset=PRESET)


# -- TODOs 6 and 7: numbers on either side ---------------------------------------------------------

@pytest.mark.check(id="example-add-number-operands", todo=6, pitfall="number-operand", weight=1,
                   requires=("example-add-local-derivative",))
def test_example_numbers_on_either_side_of_plus(sandboxed):
    _expect_numbers(sandboxed, "+", 1, A + 1, 1.0)


@pytest.mark.check(id="example-mul-number-operands", todo=7, pitfall="number-operand", weight=1,
                   requires=("example-mul-local-derivative",))
def test_example_numbers_on_either_side_of_times(sandboxed):
    _expect_numbers(sandboxed, "*", 3, 3 * A, 3.0)


# -- TODO 8: backward() ---------------------------------------------------------------------------

@pytest.mark.check(id="example-seed", todo=8, pitfall="seed-gradient", weight=1,
                   requires=("course-example-graph",), defers_to=("example-leaf-backward",))
def test_example_backward_seeds_the_output(sandboxed):
    result = verdicts.run_backward(sandboxed, scenarios.seed, x=A, y=B)
    verdicts.expect_seeded(result, {"a": A, "b": B}, {"out": "a * b", "a": A, "b": B})


def _sibling_calls(sandboxed):
    result = sandboxed(scenarios.sibling_calls, x=A, y=B, z=C, w=D)
    leaves = {"a": A, "b": B, "c": C, "d": D}
    return result, leaves, {"graph": verdicts.SIBLING_GRAPH, **leaves}


@pytest.mark.check(id="example-topological-order", todo=8, pitfall="topological-order", weight=1,
                   requires=("example-seed",))
def test_example_backward_runs_in_topological_order(sandboxed):
    verdicts.expect_topological_calls(*_sibling_calls(sandboxed))


@pytest.mark.check(id="example-each-node-once", todo=8, pitfall="missing-visited-set", weight=1,
                   requires=("example-seed",))
def test_example_backward_runs_each_node_once(sandboxed):
    verdicts.expect_each_called_once(*_sibling_calls(sandboxed))


@pytest.mark.check(id="course-diamond-example", todo=8, pitfall="grad-overwrite", weight=1,
                   requires=PROPAGATING)
def test_course_diamond_accumulates(sandboxed):
    result = sandboxed(scenarios.diamond, x=A, y=B)
    verdicts.expect_gradients(result, {"a.grad": B + 1, "b.grad": A},
                              shape=verdicts.DIAMOND_SHAPE, leaves={"a": A, "b": B},
                              inputs={"d": "a*b + a", "a": A, "b": B}, source="literal")


@pytest.mark.check(id="example-equal-data-nodes", todo=8, pitfall="hash-trap", weight=1,
                   requires=PROPAGATING)
def test_example_nodes_with_equal_data_are_all_visited(sandboxed):
    result = sandboxed(scenarios.equal_data_nodes, x=A, y=B, z=C)
    shown = {"out": "a*b + (c*d)*e", "a": A, "b": B, "c": A, "d": B, "e": C}
    verdicts.expect_gradients(result, {"a": B, "b": A, "c": B * C, "d": A * C, "e": A * B},
                              shape=verdicts.EQUAL_DATA_NODES_SHAPE,
                              leaves={"a": A, "b": B, "c": A, "d": B, "e": C}, inputs=shown,
                              source="literal")


# -- backward(): a node used at two depths, and an output that is a leaf --------------------------

@pytest.mark.check(id="example-order-at-two-depths", todo=8, pitfall="topological-order", weight=1,
                   requires=("example-seed",))
def test_example_backward_waits_for_a_consumer_further_down(sandboxed):
    # x is used by the output and by y, two steps below it: walking the graph level by level
    # from the output reaches x before y
    result = sandboxed(scenarios.mixed_depth_calls, x=A, y=B, z=C, w=D)
    leaves = {"a": A, "b": B, "c": C, "d": D}
    verdicts.expect_topological_calls(result, leaves, {"graph": verdicts.MIXED_DEPTH_GRAPH,
                                                       **leaves}, verdicts.MIXED_DEPTH_WALK)


LEAF_OUTPUT = 3.0


@pytest.mark.check(id="example-leaf-output-seeded", todo=8, pitfall="seed-gradient", weight=1,
                   requires=("example-seed",))
def test_example_backward_on_a_leaf_seeds_it(sandboxed):
    result = sandboxed(scenarios.leaf_output_seed, x=LEAF_OUTPUT)
    expect_results_close(result, {"a.grad": 1.0},
                         inputs={"out": "a", "a": LEAF_OUTPUT, "called": "a.backward()"},
                         source="literal")


# -- a ladder of shared nodes, and plain numbers through backward() -------------------------------

LADDER_DEPTH = 4  # 12 internal nodes, 16 paths from the output to a
LADDER = {"a": 0.5, "c": 2.0, "d": -0.75}


# (scenario, its leaves as the scenario's x, y, z[, w], what the graph is, its drawing): a node
# reached along many paths, one used at two depths, one that is both operands of a sum
EACH_ONCE = [
    check_case(scenarios.ladder_calls, {"depth": LADDER_DEPTH, "x": LADDER["a"], "y": LADDER["c"],
                                          "z": LADDER["d"]},
               {"graph": verdicts.LADDER_GRAPH, "depth": LADDER_DEPTH, **LADDER},
               verdicts.ladder_shape(LADDER_DEPTH), id="example-ladder-each-node-once", todo=8,
               pitfall="missing-visited-set", weight=1, requires=("example-seed",)),
    check_case(scenarios.mixed_depth_calls, {"x": A, "y": B, "z": C, "w": D},
               {"graph": verdicts.MIXED_DEPTH_GRAPH, "a": A, "b": B, "c": C, "d": D},
               verdicts.MIXED_DEPTH_WALK.shape, id="example-two-depths-each-node-once", todo=8,
               pitfall="missing-visited-set", weight=1, requires=("example-seed",)),
    check_case(scenarios.repeated_parent_calls, {"x": A, "y": B, "z": C},
               {"graph": verdicts.REPEATED_PARENT_GRAPH, "a": A, "b": B, "c": C},
               verdicts.REPEATED_PARENT_SHAPE, id="example-repeated-parent-each-node-once", todo=8,
               pitfall="missing-visited-set", weight=1, requires=("example-seed",)),
]


@pytest.mark.parametrize(("scenario", "params", "shown", "shape"), EACH_ONCE)
def test_example_backward_runs_each_node_once_on_shared_graphs(sandboxed, scenario, params,
                                                                shown, shape):
    result = sandboxed(scenario, **params)
    leaves = {name: value for name, value in shown.items() if len(name) == 1}
    verdicts.expect_each_called_once(result, leaves, shown, shape=shape)


@pytest.mark.check(id="example-number-operands-backward", todo=(6, 7), pitfall="number-operand", weight=1,
                   requires=("example-add-number-operands", "example-mul-number-operands",
                             "example-seed"))
def test_example_numbers_on_either_side_through_backward(sandboxed):
    # and the number's leaf in out._prev (where the engine keeps its parents there): its data
    # and its gradient, the same number used by a graph backpropagated before
    for op, k, data, grad, k_grad in (("+", 1, A + 1, 1.0, 1.0), ("*", 3, 3 * A, 3.0, A)):
        for side in ("right", "left"):
            result = sandboxed(scenarios.number_operand, side=side, op=op, x=A, k=k)
            written = f"a {op} {k}" if side == "right" else f"{k} {op} a"
            expected = {"data": data, "a.grad": grad}
            if isinstance(result, dict) and "k.grad" in result:
                expected.update({"k.data": float(k), "k.grad": k_grad})
            expect_results_close(result, expected, inputs={
                "out": written, "a": A, "k": f"the leaf Value of {k} in out._prev",
                "before": f"Value({A}) {op} {k} built and backpropagated",
                "called": "out.backward()"}, source="literal")



# -- the contract's edges and state, from the generator the graded checks use --------------------
# Fixed, visible inputs: every program below is printed in full when it fails, and its expected
# numbers are the operations' maths on plain floats (contract_grid.model). They judge what the
# checks above do not see: each defers to them.

CONTRACT = contract_grid.DIMENSIONS["lab01_graph"]
SEEN_ABOVE = ("example-add-accumulates", "example-mul-accumulates",
              "example-add-number-operands", "example-mul-number-operands", "course-diamond-example",
              "example-equal-data-nodes", "example-order-at-two-depths",
              "example-ladder-each-node-once", "example-two-depths-each-node-once",
              "example-repeated-parent-each-node-once", "example-number-operands-backward")



# timeout: 60 programs, each with its backward(), in one scenario
@pytest.mark.check(id="example-graphs-keep-no-state", todo=8, pitfall="shared-state", weight=1,
                   requires=PROPAGATING, defers_to=SEEN_ABOVE, timeout=10)
def test_example_graphs_built_in_any_order_keep_their_own_numbers(sandboxed):
    sessions = contract_grid.state_sessions(random.Random(contract_grid.PUBLIC_SEED),
                                            ("add", "mul", "add-number-on-left", "mul-number-on-right"))
    contract_grid.judge_sessions(sandboxed, None, scenarios.state_sessions, sessions,
                                 "shared-state", evidence=True)


@pytest.mark.check(id="example-edge-operands", todo=8, pitfall="domain-edge", weight=1,
                   requires=PROPAGATING, defers_to=(*SEEN_ABOVE, "example-graphs-keep-no-state"),
                   timeout=5)
def test_example_operands_at_the_edges_of_the_domain(sandboxed):
    # 0, -1, 1e-300, 1e100 and a number with many digits with 0, 1, 2.5, 1e100 (a Value or a
    # number, either side), int data 7 and 2, each edge value once on each side of each
    # operation (contract_grid.edge_cover), data compared exactly
    sessions = contract_grid.one_by_one(contract_grid.edge_cover(CONTRACT, public=True))
    contract_grid.judge_sessions(sandboxed, None, scenarios.state_sessions, sessions,
                                 "domain-edge", exact=True)


@pytest.mark.check(id="example-returns-a-new-value", todo=(2, 4, 6, 7), pitfall="graph-construction",
                   weight=1, requires=("example-add-node", "course-example-graph"))
def test_example_every_operation_returns_a_new_value(sandboxed):
    programs = contract_grid.public_programs(CONTRACT)
    result = sandboxed(scenarios.state_sessions,
                       sessions=[contract_grid.new_value_session(programs)])
    contract_grid.expect_new_values(result, programs, "graph-construction")
