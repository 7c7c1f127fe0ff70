"""Tests for grader.grading.checking.graph_shape: the graph a failed check carries in its detail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader.common.labs import get_lab
from grader.grading.checking.graph_shape import GraphShape, graph_detail, graph_on_failure
from grader.grading.checking.reference import load_reference_class, run_reference
from grader.grading.checking.verdict import CheckFailed, close, fail
from grader.grading.checking.verdicts import lab01_graph as verdicts
from grader.grading.checking.verdicts import lab02_ops as lab02_verdicts
from grader.grading.checking.verdicts import lab03_backprop as lab03_verdicts
from grader.grading.child.graph import OPERATIONS
from grader.grading.child.scenarios import lab01_graph as scenarios
from grader.grading.child.scenarios import lab02_ops as lab02_scenarios
from grader.grading.child.scenarios import lab03_backprop as lab03_scenarios

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "grader" / "results"
                     / "score.schema.json").read_text(encoding="utf-8"))
LEAVES = {"a": 1.5, "b": -2.0, "c": 0.75, "d": 3.0, "e": -1.25}

# Each lab01 shape next to the scenario that builds it, with the scenario's parameters.
CASES: dict[str, tuple[GraphShape, Any, dict[str, Any]]] = {
    "seed": (verdicts.one_op_shape("*"), scenarios.seed, {"x": 1.5, "y": -2.0}),
    "one-op-add": (verdicts.one_op_shape("+"), scenarios.one_op,
                   {"op": "+", "x": 1.5, "y": -2.0}),
    "one-op-mul": (verdicts.one_op_shape("*"), scenarios.one_op,
                   {"op": "*", "x": 1.5, "y": -2.0}),
    "two-ops-add": (verdicts.two_ops_shape("+"), scenarios.two_ops,
                    {"inner": "+", "x": 1.5, "y": -2.0, "z": 0.75}),
    "two-ops-mul": (verdicts.two_ops_shape("*"), scenarios.two_ops,
                    {"inner": "*", "x": 1.5, "y": -2.0, "z": 0.75}),
    "diamond": (verdicts.DIAMOND_SHAPE, scenarios.diamond, {"x": 1.5, "y": -2.0}),
    "self-add": (verdicts.self_op_shape("+"), scenarios.self_op, {"op": "+", "x": 1.5}),
    "self-mul": (verdicts.self_op_shape("*"), scenarios.self_op, {"op": "*", "x": 1.5}),
    "siblings": (verdicts.SIBLING_SHAPE, scenarios.sibling_calls,
                 {"x": 1.5, "y": -2.0, "z": 0.75, "w": 3.0}),
    "shared": (verdicts.SIBLING_SHAPE, scenarios.shared_intermediate,
               {"x": 1.5, "y": -2.0, "z": 0.75, "w": 3.0}),
    "equal-data-nodes": (verdicts.EQUAL_DATA_NODES_SHAPE, scenarios.equal_data_nodes,
                         {"x": 1.5, "y": -2.0, "z": 0.75}),
    "mixed-depth": (verdicts.MIXED_DEPTH_WALK.shape, scenarios.mixed_depth_calls,
                    {"x": 1.5, "y": -2.0, "z": 0.75, "w": 3.0}),
    "repeated-parent": (verdicts.REPEATED_PARENT_SHAPE, scenarios.repeated_parent_calls,
                        {"x": 1.5, "y": -2.0, "z": 0.75}),
    "ladder": (verdicts.ladder_shape(3), scenarios.ladder_calls,
               {"depth": 3, "x": 1.5, "y": 0.75, "z": 3.0}),
}


def leaves_of(case: str, params: dict[str, Any]) -> dict[str, float]:
    """The leaf values a scenario's x, y, z, w parameters stand for (c, d repeat a, b in the
    equal-data graph; the ladder's are a, c, d)."""
    names = dict(zip("xyzw", "abcd", strict=True))
    leaves = {names[key]: value for key, value in params.items() if key in names}
    if case == "equal-data-nodes":
        leaves = {"a": params["x"], "b": params["y"], "c": params["x"], "d": params["y"],
                  "e": params["z"]}
    if "depth" in params:  # the ladder's leaves are a, c and d
        leaves = {"a": params["x"], "c": params["y"], "d": params["z"]}
    return leaves


@pytest.fixture(scope="module")
def reference_value() -> Any:
    return load_reference_class(get_lab("lab01_graph"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_shape_evaluates_like_the_reference_solution(case: str, reference_value: Any) -> None:
    shape, scen, params = CASES[case]
    facts = run_reference(reference_value, scen, params)["nodes"]
    assert set(facts) == shape.names
    for name, (data, grad) in shape.evaluate(leaves_of(case, params)).items():
        assert close(facts[name][0], data) and close(facts[name][1], grad), name


def test_a_node_is_wrong_when_its_gradient_differs_or_the_check_marks_it() -> None:
    result = {"nodes": {"a": [1.5, -2.0], "b": [-2.0, 1.5], "a*b": [-3.0, 1.0],
                        "out": [-1.5, 1.0]}}
    graph = graph_detail(verdicts.DIAMOND_SHAPE, result, LEAVES, marked=frozenset({"out"}))
    wrong = {node["name"] for node in graph["nodes"] if node["wrong"]}
    assert wrong == {"a", "out"}  # a.grad should be b + 1 = -1
    assert [node["expected_grad"] for node in graph["nodes"]] == [-1.0, 1.5, 1.0, 1.0]


def test_facts_that_are_not_plain_floats_are_left_unknown() -> None:
    result = {"nodes": {"a": [1.5, "1"], "b": [True, 2.0], "a*b": "x", "out": [1.0]}}
    graph = graph_detail(verdicts.DIAMOND_SHAPE, result, LEAVES)
    assert [(n["data"], n["grad"]) for n in graph["nodes"]] == [
        (1.5, None), (None, 2.0), (None, None), (None, None)]


def test_calls_keep_only_the_shape_node_names() -> None:
    result = {"calls": ["out", ["x"], "x*c", "intruder", "x"], "nodes": {}}
    graph = graph_detail(verdicts.SIBLING_SHAPE, result, LEAVES, calls=result["calls"])
    assert graph["calls"] == ["out", "x*c", "x"]


def test_a_failure_inside_the_block_carries_the_graph_and_marks_its_node() -> None:
    result = {"calls": ["out", "x*c", "x", "x*d"], "nodes": {}}
    with pytest.raises(CheckFailed) as caught, graph_on_failure(
            verdicts.SIBLING_SHAPE, result, LEAVES, calls=result["calls"]):
        fail("order-violation", node="x", consumer="x*d", inputs={})
    graph = caught.value.detail["graph"]
    assert [n["name"] for n in graph["nodes"] if n["wrong"]] == ["x"]
    assert graph["calls"] == result["calls"]
    detail_schema = {**SCHEMA["$defs"]["detail"], "$defs": SCHEMA["$defs"]}
    jsonschema.validate(caught.value.detail, detail_schema)


def test_a_failure_not_about_the_graph_carries_none() -> None:
    with pytest.raises(CheckFailed) as caught, graph_on_failure(verdicts.DIAMOND_SHAPE, {}, LEAVES):
        fail("bad-result", reason="the result has no 'a.grad'")
    assert "graph" not in caught.value.detail


# -- lab02's operation graphs and lab03's expression tree ----------------------------------------

# The inputs of apply_op for an operation: a Value a, a Value b for a two-Value operation, a
# plain number k where the operation takes one; c is the scale of `around="scaled"`.
OP_POINT = {"x": 0.8, "y": -1.3, "k": 2.5, "z": 1.75}
AROUNDS = ("alone", "scaled", "reused")


def op_params(op: str, around: str) -> dict[str, Any]:
    """apply_op's parameters for `op` built `around` its node."""
    row = OPERATIONS[op]
    params = {"x": OP_POINT["x"]}
    if row.binary:
        params["y"] = OP_POINT["y"]
    if row.number:
        params["k"] = OP_POINT["k"]
    if around == "scaled":
        params["z"] = OP_POINT["z"]
    return params


@pytest.fixture(scope="module")
def lab02_reference() -> Any:
    return load_reference_class(get_lab("lab02_ops"))


@pytest.mark.parametrize("around", AROUNDS)
@pytest.mark.parametrize("op", sorted(OPERATIONS))
def test_an_operation_graph_expects_what_the_reference_engine_leaves(
        op: str, around: str, lab02_reference: Any) -> None:
    params = op_params(op, around)
    shape, roles = lab02_verdicts.op_shape(op, around, params)
    facts = run_reference(lab02_reference, lab02_scenarios.apply_op,
                          {"op": op, "around": lab02_verdicts.built_around(around, params),
                           **params})["nodes"]
    drawn = {roles[role]: pair for role, pair in facts.items()}
    assert set(drawn) == shape.names
    leaves = {name: params[key] for key, name in (("x", "a"), ("y", "b"), ("z", "c"))
              if key in params}
    for name, (data, grad) in shape.evaluate(leaves).items():
        assert close(drawn[name][0], data) and close(drawn[name][1], grad), (name, drawn[name])


def test_a_wrong_operation_gradient_outlines_its_input_and_a_wrong_value_the_output() -> None:
    params, e_squared = {"x": 2.0}, 7.38905609893065
    reads_the_input = {"a.grad": 2.0, "nodes": {"a": [2.0, 2.0], "out": [e_squared, 1.0]}}
    wrong_value = {"data": 5.0, "nodes": {"a": [2.0, e_squared], "out": [5.0, 1.0]}}
    for result, expected, wrong in ((reads_the_input, {"a.grad": e_squared}, ["a"]),
                                    (wrong_value, {"data": e_squared}, ["out"])):
        with pytest.raises(CheckFailed) as caught:
            lab02_verdicts.expect_op_results(result, expected, op="exp", around="alone",
                                             params=params, inputs={}, source="literal")
        graph = caught.value.detail["graph"]
        assert [n["name"] for n in graph["nodes"] if n["wrong"]] == wrong
        assert [n["op"] for n in graph["nodes"]] == ["", "exp"]


def test_the_expression_tree_evaluates_like_the_reference_solution() -> None:
    reference = load_reference_class(get_lab("lab03_backprop"))
    leaves = {"a": 2.0, "b": 3.0, "c": 1.0, "d": 0.5}
    facts = run_reference(reference, lab03_scenarios.expression_tree,
                          dict(zip("xyzw", leaves.values(), strict=True)))["nodes"]
    assert set(facts) == lab03_verdicts.TREE_SHAPE.names
    for name, (data, grad) in lab03_verdicts.TREE_SHAPE.evaluate(leaves).items():
        assert close(facts[name][0], data) and close(facts[name][1], grad), name


@pytest.mark.parametrize("depth", [1, 3, 12])
def test_lab03_ladder_evaluates_like_the_reference_solution(depth: int) -> None:
    reference = load_reference_class(get_lab("lab03_backprop"))
    leaves = {"a": 0.75, "c": 0.5, "d": 0.625}
    facts = run_reference(reference, lab03_scenarios.sibling_ladder,
                          {"depth": depth, "x": 0.75, "y": 0.5, "z": 0.625})["nodes"]
    shape = lab03_verdicts.ladder_shape(depth)
    assert set(facts) == shape.names and shape.output == f"x[{depth}]"
    for name, (data, grad) in shape.evaluate(leaves).items():
        assert close(facts[name][0], data) and close(facts[name][1], grad), name
