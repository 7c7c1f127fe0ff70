"""Tests for grader.grading.checking.verdict.structure_only: a failure judged inside it is a
StructureFailed (the checks waiting for it still run), with its detail unchanged."""

from __future__ import annotations

import pytest

from grader.grading.checking.verdict import CheckFailed, StructureFailed, fail, structure_only


def test_a_failure_inside_becomes_a_structure_failure_with_the_same_detail() -> None:
    with pytest.raises(StructureFailed) as caught, structure_only():
        fail("op-labels-equal", actual="+", inputs={"a": 2.0})
    assert caught.value.detail == {"kind": "op-labels-equal",
                                   "params": {"actual": "+", "inputs": {"a": 2.0}}}
    assert isinstance(caught.value, CheckFailed)


def test_a_failure_outside_stays_an_ordinary_failure() -> None:
    with pytest.raises(CheckFailed) as caught:
        fail("op-labels-equal", actual="+", inputs={})
    assert not isinstance(caught.value, StructureFailed)


def test_a_pitfall_and_a_graph_the_failure_carries_are_kept() -> None:
    graph = {"nodes": [], "edges": [], "output": "out"}
    with pytest.raises(StructureFailed) as caught, structure_only():
        raise CheckFailed("prev-missing", "printed", pitfall="graph-construction", graph=graph,
                          expression="a * b", inputs={})
    assert (caught.value.pitfall, caught.value.output, caught.value.detail["graph"]) == (
        "graph-construction", "printed", graph)


def test_nothing_raised_inside_raises_nothing() -> None:
    with structure_only():
        pass
