"""Tests for grader.grading.plugin, end to end through grade_shard with a small suite of our own.

The suite reuses check ids of the real lab01 catalogue (validation requires their texts) but
its bodies are ours: each check provokes one status, so the document shows how the plugin
classifies it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from grader.common.labs import get_lab
from grader.grading.shard import GradingPlan, grade_shard
from grader.intake.collect import Submission, prepare

LAB = get_lab("lab01_graph")
SEED = "s"

SUITE = '''\
import pytest

from grader.grading.checking.marker import check_case
from grader.grading.checking.verdict import NotRun, fail, field
from grader.grading.child.scenario import scenario
from grader.grading.child.graph import data_of


@scenario
def hash_leaf(Value, x):
    try:
        hash(Value(x))
    except TypeError as exc:
        return {"hashable": False, "error": str(exc)}
    return {"hashable": True, "error": ""}


@scenario
def leaf_data(Value, x):
    return {"data": data_of(Value(x), "a")}


@pytest.mark.check(id="value-hashable", pitfall="hash-trap", weight=1)
def test_fails_when_unhashable(sandboxed):
    result = sandboxed(hash_leaf, x=1.5)
    if not field(result, "hashable", bool):
        fail("not-hashable", type="TypeError", message=field(result, "error", str))


@pytest.mark.check(id="leaf-backward-is-noop", pitfall="leaf-backward", weight=2,
                   requires=("value-hashable",))
def test_needs_hashable(sandboxed):
    sandboxed(leaf_data, x=2.0)


@pytest.mark.check(id="add-builds-node", pitfall="graph-construction", weight=4)
def test_grader_bug(sandboxed):
    {}["missing"]


@pytest.mark.check(id="mul-builds-node", pitfall="graph-construction", weight=8)
def test_cannot_run(sandboxed):
    raise NotRun("not-built", what="a * b", error="no product")


@pytest.mark.check(id="backward-seeds-output", pitfall="seed-gradient", weight=16)
def test_reports_a_draw(sandboxed, rng):
    fail("mismatch", quantity="rng.random()", inputs={}, expected=0.0, actual=rng.random(),
         source="literal")


@pytest.mark.check(id="add-local-derivative", pitfall="wrong-local-derivative", weight=32)
def test_reports_another_draw(sandboxed, rng):
    fail("mismatch", quantity="rng.random()", inputs={}, expected=0.0, actual=rng.random(),
         source="literal")


@pytest.mark.check(id="mul-local-derivative", pitfall="wrong-local-derivative", weight=64)
def test_student_code_raises_on_negative_data(sandboxed):
    sandboxed(leaf_data, x=-1.0)


ROWS = [
    check_case(2.0, id="diamond-accumulates", pitfall="grad-overwrite", weight=128),
    check_case(-1.0, id="self-add-accumulates", pitfall="grad-overwrite", weight=256),
]


@pytest.mark.parametrize("x", ROWS)
def test_a_table_of_leaves(sandboxed, x):
    sandboxed(leaf_data, x=x)
'''

# Unhashable (__eq__ without __hash__) and refusing negative data in its constructor.
BAD_VALUE = '''\
class Value:
    def __init__(self, data, _children=(), _op=''):
        if data < 0:
            raise ValueError("negative data")
        self.data = data
        self.grad = 0.0
        self._prev = set(_children)
        self._op = _op
        self._backward = lambda: None

    def __eq__(self, other):
        return self.data == other.data
'''


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The documents of one shard grading `bad` then `good` with the suite above."""
    root = tmp_path_factory.mktemp("plugin")
    suite = root / "suite"
    suite.mkdir()
    (suite / "test_plugin_suite.py").write_text(SUITE, encoding="utf-8")
    bad = root / "bad"
    bad.mkdir()
    (bad / "value.py").write_text(BAD_VALUE, encoding="utf-8")
    scratch = root / "scratch"
    scratch.mkdir()
    shard = [prepare(Submission("bad", bad), LAB, scratch),
             prepare(Submission("good", LAB.solution_dir), LAB, scratch)]
    workdir = root / "shard"
    workdir.mkdir()
    spec = GradingPlan(lab=LAB, suites=(suite,), seed=SEED, lang="en")
    graded = grade_shard(spec, shard, workdir, timeout_s=120)
    return {doc["submission"]["id"]: doc for doc in graded}


def check(doc: dict[str, Any], check_id: str) -> dict[str, Any]:
    """The check with check_id in a document."""
    return next(c for c in doc["checks"] if c["id"] == check_id)


def statuses(doc: dict[str, Any]) -> dict[str, str]:
    """check id -> status."""
    return {c["id"]: c["status"] for c in doc["checks"]}


def draw(submission: str, digest: str, check_id: str) -> float:
    """The first draw of the rng the plugin gives a check, computed independently."""
    return random.Random(f"{SEED}:{submission}:{digest}:{check_id}").random()


def test_both_submissions_are_graded(docs: dict[str, dict[str, Any]]) -> None:
    assert {sub: doc["status"] for sub, doc in docs.items()} == {
        "bad": "graded", "good": "graded"}, {sub: doc["reason"] for sub, doc in docs.items()}


def test_failed_check_reports_failed_with_its_detail(docs: dict[str, dict[str, Any]]) -> None:
    result = check(docs["bad"], "value-hashable")
    assert result["status"] == "failed", result
    assert result["detail"]["kind"] == "not-hashable", result["detail"]
    assert "unhashable" in result["detail"]["params"]["message"], result["detail"]
    assert result["hint"], "a failed check shows its hint"


def test_failed_prerequisite_makes_dependent_not_run(docs: dict[str, dict[str, Any]]) -> None:
    result = check(docs["bad"], "leaf-backward-is-noop")
    assert result["status"] == "not-run", result
    assert result["detail"] == {"kind": "prerequisite",
                                "params": {"checks": ["value-hashable"]}}, result["detail"]
    assert result["score"] == 0.0


def test_statuses_are_per_submission(docs: dict[str, dict[str, Any]]) -> None:
    good = statuses(docs["good"])
    assert good["value-hashable"] == "passed", good
    assert good["leaf-backward-is-noop"] == "passed", (
        f"bad's failed prerequisite leaked into good: {good}")
    assert good["mul-local-derivative"] == "passed", good
    assert statuses(docs["bad"])["mul-local-derivative"] == "failed"


def test_unexpected_exception_in_a_check_is_a_grader_error(
    docs: dict[str, dict[str, Any]]
) -> None:
    for doc in docs.values():
        result = check(doc, "add-builds-node")
        assert result["status"] == "error", result
        assert result["detail"] == {"kind": "grader-error", "params": {"reference": {
            "kind": "reference-check-raised",
            "params": {"type": "KeyError", "check": "add-builds-node", "stage": "call"}}}}, \
            result["detail"]
        assert "graph-construction" not in doc["pitfalls"], "a grader error is not a pitfall"


def test_not_run_raised_by_a_check_is_not_run(docs: dict[str, dict[str, Any]]) -> None:
    for doc in docs.values():
        result = check(doc, "mul-builds-node")
        assert result["status"] == "not-run", result
        assert result["detail"] == {"kind": "not-built", "params": {
            "what": "a * b", "error": "no product"}}, result["detail"]


def test_student_exception_fails_the_check_with_their_traceback_line(
    docs: dict[str, dict[str, Any]]
) -> None:
    result = check(docs["bad"], "mul-local-derivative")
    assert result["status"] == "failed", result
    params = result["detail"]["params"]
    assert result["detail"]["kind"] == "exception", result["detail"]
    assert (params["type"], params["message"]) == ("ValueError", "negative data"), params
    assert {"file": "value.py", "line": 4, "function": "__init__"} in params["where"], params


def test_rng_is_seeded_by_seed_submission_content_and_check(
    docs: dict[str, dict[str, Any]]
) -> None:
    got = {(sub, check_id): check(docs[sub], check_id)["detail"]["params"]["actual"]
           for sub in ("bad", "good")
           for check_id in ("backward-seeds-output", "add-local-derivative")}
    expected = {(sub, check_id): draw(sub, docs[sub]["submission"]["digest"], check_id)
                for sub, check_id in got}
    assert got == expected, f"got {got}, expected {expected}"
    assert len(set(got.values())) == 4, f"draws repeat across submissions or checks: {got}"


def test_each_row_of_a_parameter_table_is_a_check_of_its_own(
    docs: dict[str, dict[str, Any]]
) -> None:
    rows = {sub: [statuses(doc)[check_id] for check_id in ("diamond-accumulates",
                                                             "self-add-accumulates")]
            for sub, doc in docs.items()}
    assert rows == {"bad": ["passed", "failed"], "good": ["passed", "passed"]}, rows


def test_score_is_the_sum_of_passed_weights(docs: dict[str, dict[str, Any]]) -> None:
    # good passes value-hashable (1), leaf-backward-is-noop (2), mul-local-derivative (64) and
    # both rows of the table (128, 256); bad passes the first row only
    assert docs["good"]["score"] == 451.0, statuses(docs["good"])
    assert docs["bad"]["score"] == 128.0, statuses(docs["bad"])
    assert docs["good"]["max_score"] == docs["bad"]["max_score"] == 511.0


def test_checks_of_a_suite_outside_labs_are_hidden(docs: dict[str, dict[str, Any]]) -> None:
    visibility = {c["visibility"] for doc in docs.values() for c in doc["checks"]}
    assert visibility == {"hidden"}, visibility


def test_the_run_is_serialized_once_by_pytest_json_report_and_no_report_file_is_left(
        tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_plugin_suite.py").write_text(SUITE, encoding="utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    shard = [prepare(Submission("good", LAB.solution_dir), LAB, scratch)]
    workdir = tmp_path / "shard"
    workdir.mkdir()
    [doc] = grade_shard(GradingPlan(lab=LAB, suites=(suite,), seed=SEED, lang="en"), shard,
                        workdir, timeout_s=120)
    [line] = [json.loads(text) for text in
              (workdir / "finished.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(p.name for p in workdir.iterdir()) == ["finished.jsonl", "manifest.json"], (
        "a shard writes no file nobody reads (no report.json)")
    assert line["submission"] == "good" and line["checks"] == len(line["tests"]) == len(
        doc["checks"]), line
    for test in line["tests"]:
        assert {"nodeid", "lineno", "outcome", "setup", "call", "teardown"} <= set(test), test
        assert test["metadata"]["grader"]["submission"] == "good", test["metadata"]
    assert [t["metadata"]["grader"]["check"] for t in line["tests"]] == [
        c["id"] for c in doc["checks"]]
