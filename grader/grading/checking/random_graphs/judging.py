"""Judging a random-graph check: run the programs, compare, shrink, diagnose, and fail with it.

Side: trusted process. The student's engine and the reference run the same programs; a failing
program is shrunk (`shrinking`), run once more with its `_backward` calls recorded, blamed on a
pitfall (`diagnosing`), and shown as a program the student can paste, with the graph it builds
(`detail["graph"]`) and the numbers that differ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.grading.checking.random_graphs.comparing import Difference, differences, fails
from grader.grading.checking.random_graphs.diagnosing import Diagnosis, diagnose
from grader.grading.checking.random_graphs.programs import (
    Program,
    as_python,
    names,
    node_of,
    number_text,
    program_nodes,
    size,
)
from grader.grading.checking.random_graphs.shrinking import shrink
from grader.grading.checking.verdict import fail, field
from grader.grading.child.graph import OPERATIONS
from grader.results.score_schema import GRAPH_CAPS

SHOWN_DIFFERENCES = 6


def graph_detail(program: Program, got: dict[str, Any], want: dict[str, Any],
                 found: list[Difference]) -> dict[str, Any]:
    """`detail["graph"]`: the graph the program builds, with the student's numbers and the
    expected gradients (the format of the score schema, drawn by the feedback)."""
    label = names(program)
    offset = len(program["leaves"])
    wrong = {d.node for d in found}
    student_data = got.get("data") if isinstance(got.get("data"), list) else None
    student_grad = got.get("grad") if isinstance(got.get("grad"), list) else None
    nodes = []
    for n in range(size(program)):
        op = ""
        if n >= offset:
            node = node_of(program, n)
            op = OPERATIONS[node.op].label.format(
                k=number_text(node.number) if node.number is not None else "")[:GRAPH_CAPS.op]
        nodes.append({"name": label[n], "op": op,
                      "data": student_data[n] if student_data else want["data"][n],
                      "grad": student_grad[n] if student_grad else None,
                      "expected_grad": want["grad"][n], "wrong": n in wrong})
    edges = []
    for n, node in enumerate(program_nodes(program)):
        edges.append({"from": label[node.first], "to": label[offset + n]})
        if node.second is not None:
            edges.append({"from": label[node.second], "to": label[offset + n]})
    graph: dict[str, Any] = {"nodes": nodes, "edges": edges, "output": label[-1]}
    calls = got.get("calls")
    if isinstance(calls, list) and all(type(c) is int and 0 <= c < size(program) for c in calls):
        graph["calls"] = [label[c] for c in calls if c >= offset]
    return graph


def _shown_differences(program: Program, found: list[Difference]) -> list[dict[str, Any]]:
    label = names(program)
    return [{"quantity": f"{label[d.node]}.{d.what}", "actual": d.actual, "expected": d.expected}
            for d in found[:SHOWN_DIFFERENCES]]


def _run(runner: Callable[..., Any], scen: Any, programs: list[Program],
         record: bool) -> list[Any]:
    # The scenarios take the programs as `graphs`: the graphs they build.
    result = runner(scen, graphs=programs, record=record)
    entries = field(result, "results", list)
    if len(entries) != len(programs):
        fail("bad-result", reason="the results do not have one entry per graph")
    return entries


class ReferenceFailed(RuntimeError):
    """The reference solution raised on a drawn program: a grader bug."""


def _reference(reference: Callable[..., Any], scen: Any, programs: list[Program]) -> list[Any]:
    entries = _run(reference, scen, programs, record=False)
    for program, entry in zip(programs, entries, strict=True):
        if "error" in entry:
            raise ReferenceFailed(f"{as_python(program)}: {entry['error']}")
    return entries


def judge(sandboxed: Callable[..., Any], reference: Callable[..., Any], scen: Any,
          programs: list[Program], default_pitfall: str, diagnosed: bool = True,
          explain: bool = True, exact: bool = False, source: str = "reference") -> None:
    """Fail with a shrunk, diagnosed counterexample unless the student's engine gives the
    reference's data and gradients on every node of every program (`diagnosed=False`: the
    failure keeps the check's own pitfall; `explain=False`: the smallest drawn program, neither
    shrunk nor diagnosed, for a failure that another check's blame will stand for; `exact`:
    data compared exactly, `comparing.differences`; `source`: where the expected numbers come
    from, as the feedback says it)."""
    got = _run(sandboxed, scen, programs, record=False)
    want = _reference(reference, scen, programs)
    failing = [p for p, a, e in zip(programs, got, want, strict=True) if fails(p, a, e, exact)]
    if not failing:
        return
    smallest = min(failing, key=size)
    raised = "error" in got[programs.index(smallest)]

    def still_fails(options: list[Program]) -> list[bool]:
        try:
            results = _run(sandboxed, scen, options, record=False)
        except AssertionError:  # the run itself failed: keep what we have
            return [False] * len(options)
        expected = _reference(reference, scen, options)
        return [fails(p, a, e, exact) and (("error" in a) == raised)
                for p, a, e in zip(options, results, expected, strict=True)]

    shrunk = shrink(smallest, still_fails) if explain else smallest
    [student] = _run(sandboxed, scen, [shrunk], record=True)
    [expected] = _reference(reference, scen, [shrunk])
    if not fails(shrunk, student, expected, exact):  # recording changed the outcome: no calls
        [student] = _run(sandboxed, scen, [shrunk], record=False)
    diagnosis = (diagnose(shrunk, student, expected, default_pitfall) if diagnosed and explain
                 else Diagnosis(default_pitfall, None))
    extra = {"finding": diagnosis.finding} if diagnosis.finding else {}
    if "error" in student:
        fail("graph-raised", pitfall=diagnosis.pitfall, program=as_python(shrunk),
             error=str(student["error"]))
    found = differences(shrunk, student, expected, exact) or []
    fail("graph-mismatch", pitfall=diagnosis.pitfall,
         graph=graph_detail(shrunk, student, expected, found), program=as_python(shrunk),
         differences=_shown_differences(shrunk, found), source=source, **extra)
