"""The reference's results: one run per input for a whole shard, a fresh copy each time."""

from __future__ import annotations

from typing import Any

from grader.grading.checking.reference import ReferenceRuns, run_reference
from grader.grading.child.scenario import scenario


@scenario
def counted(Value, x):
    Value.runs.append(x)
    return {"data": [x, x * 2]}


class Counting:
    runs: list[Any] = []


def test_each_input_is_run_once_and_gives_what_run_reference_gives() -> None:
    Counting.runs = []
    runs = ReferenceRuns(Counting)
    first = runs.run(counted, {"x": 1.5})
    again = runs.run(counted, {"x": 1.5})
    other = runs.run(counted, {"x": 2.0})
    assert Counting.runs == [1.5, 2.0], Counting.runs
    assert first == again == run_reference(Counting, counted, {"x": 1.5}), (first, again)
    assert other == {"data": [2.0, 4.0]}, other


def test_a_check_that_changes_its_result_changes_no_later_one() -> None:
    runs = ReferenceRuns(Counting)
    runs.run(counted, {"x": 3.0})["data"].append("changed by a check")
    assert runs.run(counted, {"x": 3.0}) == {"data": [3.0, 6.0]}
