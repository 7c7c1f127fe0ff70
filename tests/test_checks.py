"""Tests for grader.grading.checking.marker: check markers are validated, and a bad one stops the run naming the test."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

import pytest

from grader.common.labs import get_lab
from grader.grading.checking.marker import (
    CheckDefinitionError,
    CheckSpec,
    spec_from_marker,
    validate_suite,
    with_random_deferrals,
)
from grader.grading.shard import GradingPlan, grade_shard
from grader.intake.collect import Submission, prepare

TEST = "suite/test_x.py::test_check"
GOOD = {"id": "value-hashable", "pitfall": "hash-trap", "weight": 1}
LAB = get_lab("lab01_graph")


def spec(**changes: Any) -> CheckSpec:
    """spec_from_marker on GOOD with the given keys changed (None removes a key)."""
    kwargs = {**GOOD, **changes}
    return spec_from_marker(TEST, (), {k: v for k, v in kwargs.items() if v is not None},
                            "hidden")


def refusal(**changes: Any) -> str:
    """The one-line message spec() refuses the changed marker with."""
    with pytest.raises(CheckDefinitionError) as caught:
        spec(**changes)
    message = str(caught.value)
    assert message.startswith(TEST + ": "), f"message does not name the test: {message!r}"
    assert "\n" not in message, f"message is not one line: {message!r}"
    return message


def make_spec(check_id: str, pitfall: str, requires: tuple[str, ...] = (),
              test: str = TEST) -> CheckSpec:
    """A valid CheckSpec for validate_suite tests."""
    return CheckSpec(check_id, pitfall, 1.0, requires, None, "hidden", test)


# --- spec_from_marker ------------------------------------------------------------------------


def test_good_marker_becomes_a_spec() -> None:
    result = spec_from_marker(TEST, (), {**GOOD, "requires": ["leaf-backward-is-noop"],
                                         "timeout": 3}, "public")
    assert result == CheckSpec("value-hashable", "hash-trap", 1.0, ("leaf-backward-is-noop",),
                               3.0, "public", TEST), result
    assert type(result.weight) is float and type(result.timeout_s) is float


def test_todo_key_becomes_the_specs_todos() -> None:
    assert spec_from_marker(TEST, (), {**GOOD, "todo": 3}, "public").todos == (3,)
    assert spec_from_marker(TEST, (), {**GOOD, "todo": (2, 4)}, "public").todos == (2, 4)
    assert spec_from_marker(TEST, (), dict(GOOD), "public").todos == ()


@pytest.mark.parametrize("bad_todo", [0, -1, "3", 2.0, True, (), (1, "2"), [3]])
def test_todo_that_is_not_todo_numbers_is_refused(bad_todo: object) -> None:
    assert "todo= must be a TODO number" in refusal(todo=bad_todo)


def test_positional_arguments_are_refused() -> None:
    with pytest.raises(CheckDefinitionError, match="keyword arguments only"):
        spec_from_marker(TEST, ("value-hashable",), dict(GOOD), "hidden")


def test_unknown_keys_are_refused_and_named() -> None:
    assert "['points', 'title']" in refusal(points=3, title="x")


@pytest.mark.parametrize("key", ["id", "pitfall", "weight"])
def test_missing_required_key_is_refused(key: str) -> None:
    assert f"needs {key}=" in refusal(**{key: None})


@pytest.mark.parametrize("bad_id", ["Value-Hashable", "value_hashable", "value--hashable",
                                    "-value", "value-", "value hashable", "", 5])
def test_non_kebab_check_id_is_refused(bad_id: object) -> None:
    assert "is not kebab-case" in refusal(id=bad_id)


def test_non_kebab_pitfall_is_refused() -> None:
    assert "pitfall 'hash_trap' is not kebab-case" in refusal(pitfall="hash_trap")


@pytest.mark.parametrize("weight", [0, -1, -0.5, True, False, "3", [1]])
def test_weight_must_be_a_positive_number(weight: object) -> None:
    assert "must be a positive number" in refusal(weight=weight)


@pytest.mark.parametrize("weight", [math.nan, math.inf])
def test_non_finite_weight_is_refused(weight: float) -> None:
    # nan <= 0 is False: a plain sign test lets a NaN weight make the score NaN.
    assert "must be a positive number" in refusal(weight=weight)


def test_requires_as_a_string_is_refused() -> None:
    assert "requires= must be a tuple of check ids" in refusal(requires="leaf-backward-is-noop")


def test_requires_holding_a_non_string_is_refused() -> None:
    assert "requires= must be a tuple" in refusal(requires=("leaf-backward-is-noop", 3))


@pytest.mark.parametrize("requires", [None, 3])
def test_requires_that_is_not_a_sequence_is_refused(requires: object) -> None:
    # Iterating these raised TypeError once: a pytest INTERNALERROR instead of one line.
    with pytest.raises(CheckDefinitionError, match="requires= must be a tuple"):
        spec_from_marker(TEST, (), {**GOOD, "requires": requires}, "hidden")


@pytest.mark.parametrize("timeout", [0, -1, "2"])
def test_timeout_must_be_a_positive_number(timeout: object) -> None:
    assert "must be a positive number" in refusal(timeout=timeout)


@pytest.mark.parametrize("timeout", [True, math.nan, math.inf])
def test_boolean_or_non_finite_timeout_is_refused(timeout: object) -> None:
    assert "must be a positive number" in refusal(timeout=timeout)


# --- validate_suite --------------------------------------------------------------------------


def test_valid_suite_passes() -> None:
    validate_suite([
        make_spec("value-hashable", "hash-trap"),
        make_spec("leaf-backward-is-noop", "leaf-backward"),
        make_spec("add-builds-node", "graph-construction",
                  ("value-hashable", "leaf-backward-is-noop")),
    ])


def suite_refusal(specs: list[CheckSpec]) -> str:
    """The message validate_suite refuses the specs with."""
    with pytest.raises(CheckDefinitionError) as caught:
        validate_suite(specs)
    return str(caught.value)


def test_duplicate_check_ids_are_refused_naming_the_second_test() -> None:
    message = suite_refusal([
        make_spec("value-hashable", "hash-trap", test="a.py::test_one"),
        make_spec("value-hashable", "hash-trap", test="a.py::test_two"),
    ])
    assert message == "a.py::test_two: check id 'value-hashable' is used twice", message


def test_requiring_a_later_check_is_refused() -> None:
    message = suite_refusal([
        make_spec("add-builds-node", "graph-construction", ("value-hashable",)),
        make_spec("value-hashable", "hash-trap"),
    ])
    assert "requires 'value-hashable', which is not a check defined before it" in message


def test_requiring_an_unknown_check_is_refused() -> None:
    message = suite_refusal([make_spec("add-builds-node", "graph-construction",
                                       ("no-such-check",))])
    assert "requires 'no-such-check'" in message, message


def test_unknown_pitfall_is_refused() -> None:
    message = suite_refusal([make_spec("value-hashable", "made-up-pitfall")])
    assert "catalogue has no pitfalls.made-up-pitfall.title" in message, message


def test_check_without_catalogue_text_is_refused() -> None:
    message = suite_refusal([make_spec("no-such-check", "hash-trap")])
    assert "catalogue has no checks.no-such-check.title" in message, message


@pytest.mark.parametrize(("clause", "clauses"), [("seed", ("seed",)),
                                                 (("seed", "order"), ("seed", "order"))])
def test_clause_key_becomes_the_specs_clauses(clause: object, clauses: tuple[str, ...]) -> None:
    assert spec(clause=clause).clauses == clauses


@pytest.mark.parametrize("bad_clause", ["Seed", "", (), ("seed", 3), 3])
def test_clause_that_is_not_kebab_keys_is_refused(bad_clause: object) -> None:
    assert "clause= must be a kebab-case key" in refusal(clause=bad_clause)


# --- the random check's defers_to, by the rule ------------------------------------------------


def flagged(check_id: str, **flags: bool) -> CheckSpec:
    """A spec of lab01 whose marker carries the given flags (random=, random_defers=)."""
    return spec_from_marker(f"a.py::test_{check_id}", (),
                            {"id": check_id, "pitfall": "hash-trap", "weight": 1, **flags},
                            "hidden")


def test_random_check_defers_to_every_marked_check_defined_before_it() -> None:
    suite = with_random_deferrals([
        flagged("value-hashable", random_defers=True),
        flagged("op-labels-name-the-operation"),
        flagged("add-builds-node", random_defers=True),
        flagged("random-graphs-match-reference", random=True),
        flagged("second-backward-walks-the-whole-graph"),
    ])
    deferring = {spec.id: spec.defers_to for spec in suite}
    assert deferring == {"value-hashable": (), "op-labels-name-the-operation": (),
                         "add-builds-node": (),
                         "random-graphs-match-reference": ("value-hashable", "add-builds-node"),
                         "second-backward-walks-the-whole-graph": ()}, deferring


def test_random_check_keeps_what_it_defers_to_by_hand_first() -> None:
    random_check = spec_from_marker("a.py::test_random", (), {
        "id": "random-graphs-match-reference", "pitfall": "hash-trap", "weight": 1,
        "random": True, "defers_to": ("leaf-backward-is-noop", "value-hashable")}, "hidden")
    suite = with_random_deferrals([flagged("leaf-backward-is-noop"),
                                   flagged("value-hashable", random_defers=True), random_check])
    assert suite[-1].defers_to == ("leaf-backward-is-noop", "value-hashable"), suite[-1]


def test_a_mark_no_random_check_follows_is_refused_naming_its_test() -> None:
    with pytest.raises(CheckDefinitionError) as caught:
        with_random_deferrals([flagged("random-graphs-match-reference", random=True),
                               flagged("value-hashable", random_defers=True)])
    assert str(caught.value) == ("a.py::test_value-hashable: random_defers=True, but no random "
                                 "check (random=True) is defined after it"), caught.value


@pytest.mark.parametrize("flag", ["random", "random_defers"])
@pytest.mark.parametrize("value", [False, 1, "yes"])
def test_random_flags_are_true_or_left_out(flag: str, value: object) -> None:
    assert f"{flag}= is True or left out" in refusal(**{flag: value})


def test_a_random_check_is_not_marked_random_defers() -> None:
    assert "cannot say random_defers=True" in refusal(random=True, random_defers=True)


# --- end to end: a bad marker stops the run ----------------------------------------------------


BAD_SUITE = '''\
import pytest


@pytest.mark.check(id="value-hashable", pitfall="hash-trap", weight=1)
def test_good_check(sandboxed):
    pass


@pytest.mark.check(id="leaf-backward-is-noop", pitfall="leaf-backward", weight=0)
def test_check_with_zero_weight(sandboxed):
    pass
'''


def test_bad_marker_makes_every_document_a_grader_error_naming_the_test(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_bad_marker.py").write_text(textwrap.dedent(BAD_SUITE), encoding="utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    prepared = [prepare(Submission(name, LAB.solution_dir), LAB, scratch)
                for name in ("alice", "bob")]
    workdir = tmp_path / "shard"
    workdir.mkdir()
    docs = grade_shard(GradingPlan(LAB, (suite,), "seed", "en"), prepared, workdir, timeout_s=120)
    assert [doc["status"] for doc in docs] == ["grader-error", "grader-error"], docs
    for doc in docs:
        text = doc["reason"]["text"]
        assert doc["reason"]["kind"] == "grader-error", doc["reason"]
        assert "test_check_with_zero_weight" in text, f"the reason does not name the test: {text}"
        assert "must be a positive number" in text, text
        assert "\n" not in doc["reason"]["params"]["reference"]["params"]["output"], doc["reason"]
        assert doc["checks"] == [] and doc["score"] == 0.0, doc


# --- parametrized checks: each parameter is a check of its own ---------------------------------

PARAMETRIZED_SUITE = '''\
import pytest

from grader.grading.checking.marker import check_case
from grader.grading.checking.verdict import fail

CASES = [
    check_case("passes", id="value-hashable", pitfall="hash-trap", weight=1),
    check_case("fails", id="leaf-backward-is-noop", pitfall="leaf-backward", weight=2,
               requires=("value-hashable",)),
    check_case("passes", id="add-builds-node", pitfall="graph-construction", weight=4,
               requires=("leaf-backward-is-noop",)),
]


@pytest.mark.parametrize("outcome", CASES)
def test_case(sandboxed, outcome):
    if outcome == "fails":
        fail("mismatch", quantity="x", inputs={}, expected=1.0, actual=2.0, source="literal")
'''


def test_each_parameter_keeps_its_own_id_pitfall_weight_and_prerequisites(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_parametrized.py").write_text(PARAMETRIZED_SUITE, encoding="utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    prepared = [prepare(Submission(name, LAB.solution_dir), LAB, scratch)
                for name in ("alice", "bob-2")]
    workdir = tmp_path / "shard"
    workdir.mkdir()
    docs = grade_shard(GradingPlan(LAB, (suite,), "seed", "en"), prepared, workdir, timeout_s=120)
    for doc in docs:
        assert doc["status"] == "graded", doc["reason"]
        seen = [(c["id"], c["pitfall"], c["max_score"], c["status"]) for c in doc["checks"]]
        assert seen == [("value-hashable", "hash-trap", 1.0, "passed"),
                        ("leaf-backward-is-noop", "leaf-backward", 2.0, "failed"),
                        ("add-builds-node", "graph-construction", 4.0, "not-run")], seen
        assert doc["score"] == 1.0 and doc["pitfalls"] == ["leaf-backward"], doc["pitfalls"]


# --- defers_to: who takes the blame -----------------------------------------------------------

DEFERRING_SUITE = '''\
import pytest

from grader.grading.checking.verdict import NotRun, fail


def _mismatch():
    fail("mismatch", quantity="x", inputs={}, expected=1.0, actual=2.0, source="literal")


@pytest.mark.check(id="value-hashable", pitfall="hash-trap", weight=1)
def test_declines(sandboxed):
    raise NotRun("not-built", what="a + b", error="ValueError: no")


@pytest.mark.check(id="leaf-backward-is-noop", pitfall="leaf-backward", weight=1)
def test_fails(sandboxed):
    _mismatch()


@pytest.mark.check(id="add-builds-node", pitfall="graph-construction", weight=1,
                   defers_to=("value-hashable",))
def test_defers_to_a_check_that_declined(sandboxed):
    _mismatch()


@pytest.mark.check(id="mul-builds-node", pitfall="graph-construction", weight=1,
                   defers_to=("leaf-backward-is-noop",))
def test_defers_to_a_check_that_failed(sandboxed):
    _mismatch()


@pytest.mark.check(id="diamond-accumulates", pitfall="grad-overwrite", weight=1,
                   defers_to=("leaf-backward-is-noop",))
def test_not_written_is_said_whatever_it_defers_to(sandboxed):
    fail("not-written", todo=3, file="value.py", where="")
'''


def test_a_check_that_declined_takes_no_blame_and_a_todo_is_always_said(tmp_path: Path) -> None:
    """defers_to reports a failure not run only while the check it defers to failed (or did not
    pass for a prerequisite); a check whose own verdict declined (NotRun) takes no blame, and a
    TODO not written yet is said as such whatever the check defers to."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_deferring.py").write_text(DEFERRING_SUITE, encoding="utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    prepared = [prepare(Submission("alice", LAB.solution_dir), LAB, scratch)]
    workdir = tmp_path / "shard"
    workdir.mkdir()
    [doc] = grade_shard(GradingPlan(LAB, (suite,), "seed", "en"), prepared, workdir,
                        timeout_s=120)
    assert doc["status"] == "graded", doc["reason"]
    seen = {c["id"]: (c["status"], c["detail"]["kind"]) for c in doc["checks"]}
    assert seen == {"value-hashable": ("not-run", "not-built"),
                    "leaf-backward-is-noop": ("failed", "mismatch"),
                    "add-builds-node": ("failed", "mismatch"),
                    "mul-builds-node": ("not-run", "prerequisite"),
                    "diamond-accumulates": ("failed", "not-written")}, seen
    assert doc["pitfalls"] == ["leaf-backward", "graph-construction"], doc["pitfalls"]
