"""The random-graph machinery: drawing programs, the plain-float model, shrinking, diagnosis, the
program as Python.

Hypothesis draws the seeds (and so the programs); the reference solution is the engine.
"""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.common.labs import LABS
from grader.grading.checking import random_graphs as rg
from grader.grading.checking.reference import load_reference_class, run_reference
from grader.grading.child.scenarios import lab02_ops as scenarios

VALUE = load_reference_class(LABS["lab02_ops"])


def reference_results(graphs: list[dict]) -> list[dict]:
    return run_reference(VALUE, scenarios.random_graphs, {"graphs": graphs, "record": True})[
        "results"]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_drawn_programs_stay_in_their_domains_and_match_the_plain_float_model(seed: int) -> None:
    graphs = rg.draw_programs(random.Random(seed), rg.LAB02_OPS, 6, rg.SHAPES_LAB02)
    for graph, result in zip(graphs, reference_results(graphs), strict=True):
        values = rg.forward_values(graph)
        assert values is not None and "error" not in result, rg.as_python(graph)
        assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
                   for a, b in zip(result["data"], values, strict=True)), rg.as_python(graph)
        assert result["grad"][-1] == 1.0
        assert rg.differences(graph, result, result) == []


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_every_shrink_candidate_is_smaller_and_valid(seed: int) -> None:
    graph = rg.random_program(random.Random(seed), rg.LAB02_OPS)
    for candidate in rg.candidates(graph):
        assert rg.size(candidate) < rg.size(graph)
        assert rg.forward_values(candidate) is not None
        assert candidate == rg.prune(candidate)


def test_the_program_runs_and_builds_the_same_graph() -> None:
    graph = {"leaves": [1.5, -2.0], "nodes": [["mul", 0, 1, None], ["sub-number-on-left", 2, None, 3],
                                              ["add", 3, 0, None]]}
    program = rg.as_python(graph)
    assert program == ("a = Value(1.5); b = Value(-2.0); t1 = a * b; t2 = 3 - t1; "
                       "out = t2 + a; out.backward()")
    namespace = {"Value": VALUE}
    exec(program, namespace)
    [result] = reference_results([graph])
    assert namespace["a"].grad == result["grad"][0]


def test_shrinking_keeps_a_failure_and_makes_it_smaller() -> None:
    graph = rg.random_program(random.Random(7), rg.LAB01_OPS, max_nodes=12)
    uses_a = {n for n, users in rg.consumers(graph).items() if users and n == 0}

    def fails_when_a_is_used(options: list[dict]) -> list[bool]:
        return [any(i == 0 or j == 0 for _, i, j, _ in g["nodes"]) for g in options]

    shrunk = rg.shrink(graph, fails_when_a_is_used)
    assert uses_a and rg.size(shrunk) <= 3, rg.as_python(shrunk)


def _as_student(result: dict, **changes: list) -> dict:
    return {**result, **changes}


def test_a_partial_sum_at_a_reused_node_is_named_grad_overwrite() -> None:
    graph = {"leaves": [1.7, -2.3], "nodes": [["mul", 0, 1, None], ["add", 2, 0, None]]}
    [want] = reference_results([graph])
    got = _as_student(want, grad=[want["grad"][0] - 1.0, *want["grad"][1:]])  # lost the + a
    got.pop("calls")
    assert rg.diagnose(graph, got, want, "topological-order").pitfall == "grad-overwrite"


def test_a_node_run_before_its_consumer_is_named_topological_order() -> None:
    graph = {"leaves": [0.9, 1.6, 0.6], "nodes": [["mul", 0, 1, None], ["mul", 3, 2, None],
                                                   ["add", 3, 4, None]]}
    [want] = reference_results([graph])
    got = _as_student(want, grad=[1.6, 0.9, *want["grad"][2:]], calls=[5, 3, 4, 2, 1, 0])
    diagnosis = rg.diagnose(graph, got, want, "wrong-local-derivative")
    assert diagnosis.pitfall == "topological-order"
    assert diagnosis.finding == {"kind": "finding-order", "params": {"node": "t1",
                                                                     "consumer": "t2"}}


def test_a_contribution_not_scaled_upstream_is_named() -> None:
    graph = {"leaves": [1.7, -2.3, 2.2], "nodes": [["add", 0, 1, None], ["mul", 3, 2, None]]}
    [want] = reference_results([graph])
    got = _as_student(want, grad=[1.0, 1.0, *want["grad"][2:]])
    got.pop("calls")
    assert rg.diagnose(graph, got, want, "x").pitfall == "ignores-upstream-gradient"
