"""Tests for grader.intake.limits: the nesting count before a parser recurses, the intake budget,
and that what escapes a parser on a student's text is that student's ungradable report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.common.labs import get_lab
from grader.intake import collect, limits
from grader.intake.collect import Submission, Ungradable, prepare
from grader.intake.limits import MAX_JSON_DEPTH, IntakeOverrun, budget, charge, json_too_deep

LAB = get_lab("lab01_graph")
VALUE = b"class Value:\n    pass\n"


@pytest.mark.parametrize(("text", "deep"), [
    ("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, False),
    ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), True),
    ('{"a": "' + "[" * 5000 + '"}', False),           # brackets inside a string
    ('{"a": "\\\\", "b": ' + "[" * 200 + "]" * 200 + "}", True),  # an escaped backslash ends no string
    ('{"a": "\\"' + "[" * 200 + '"}', False),          # an escaped quote ends no string
    ("{" * 150, True),                                 # cut short: still counted
    ("", False),
])
def test_json_too_deep_counts_brackets_outside_strings(text: str, deep: bool) -> None:
    assert json_too_deep(text) is deep
    if not deep and text:
        try:
            json.loads(text)  # what the parser after it reads, without recursing past the limit
        except ValueError:
            pass


def test_a_submission_past_its_budget_is_its_own_ungradable_report(tmp_path: Path,
                                                                   monkeypatch) -> None:
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / "value.py").write_bytes(VALUE)
    monkeypatch.setattr(limits, "INTAKE_BUDGET_S", -1.0)  # spent before the first entry
    with pytest.raises(Ungradable) as refused:
        prepare(Submission("ana", tmp_path / "ana"), LAB, tmp_path)
    assert refused.value.detail["params"]["reason"]["kind"] == "why-intake-budget"


def test_what_escapes_a_parser_is_the_submission_s_ungradable_report(tmp_path: Path,
                                                                     monkeypatch) -> None:
    (tmp_path / "ana.py").write_bytes(VALUE)

    def recursing(files):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(collect, "scan_files", recursing)
    with pytest.raises(Ungradable) as refused:
        prepare(Submission("ana", tmp_path / "ana.py"), LAB, tmp_path)
    assert refused.value.detail["params"]["reason"] == {
        "kind": "why-too-complex", "params": {"error": "RecursionError"}}


def test_charge_outside_a_budget_costs_nothing_and_inside_one_stops_it() -> None:
    charge()  # an LMS export is read without one
    with budget(-1.0), pytest.raises(IntakeOverrun):
        charge()
    charge()  # the budget ended with its block
