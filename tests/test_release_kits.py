"""Every release's kit gives nothing away: graded with the hidden suite of the lab it releases,
no file in it scores more than that lab's unedited stub.

The course calendar behind it (docs/instructors.md, "Reference: releases and the student kit"): a lab opens when the previous one closes.
So a kit may hold complete work of a closed lab; ALLOWED_CLOSED_LAB_WORK lists the files that
do, with the reason, and the test proves each one ships only once that lab has closed.
"""

from __future__ import annotations

import pytest

from grader.authoring.student_kit import kit_files, later_labs, release_labs
from grader.common.labs import LABS
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan

# File of the kit -> (the closed lab it completes, why it may ship).
ALLOWED_CLOSED_LAB_WORK = {
    "labs/lab02_ops/value.py": (
        "lab01_graph", "lab02 extends the lab01 Value; its + and * are given so the new "
                       "operations can be tested on their own"),
    "labs/lab02_ops/lab02_ops.ipynb": ("lab01_graph", "the notebook version of the same stub"),
    "labs/lab03_backprop/value.py": (
        "lab02_ops", "lab03 walks larger graphs built with every lab02 operation"),
    "labs/lab03_backprop/lab03_backprop.ipynb": ("lab02_ops", "the notebook of the same stub"),
    "labs/lab04_xor/value.py": (
        "lab03_backprop", "lab04 trains a network: it needs the whole engine, and the grader "
                          "grades nn.py against its own copy of it"),
    "labs/lab04_xor/lab04_xor.ipynb": ("lab03_backprop", "holds the same given engine"),
}

# What a file of a closed lab may earn on the released lab's hidden suite beyond the stub:
# (release, file) -> (the checks it may pass, why). lab01's recursive backward (closed, in the
# lab02 stub) seeds the output with 1, which lab03's stub leaves to the student's new walk.
ALLOWED_ABOVE_STUB = {
    ("lab03_backprop", "labs/lab02_ops/value.py"): (
        {"backward-seeds-output-with-one", "backward-seeds-over-a-stale-output-gradient"},
        "the closed lab01 backward seeds the output (also over a stale gradient); none of lab03's own work (the iterative "
        "walk, zero_grad, cycles, deep graphs) passes"),
    ("lab03_backprop", "labs/lab02_ops/lab02_ops.ipynb"): (
        {"backward-seeds-output-with-one", "backward-seeds-over-a-stale-output-gradient"},
        "the notebook version of the same stub"),
}


@pytest.fixture(scope="module", params=list(LABS))
def release(request: pytest.FixtureRequest, built_kit):
    """(release, kit folder, kit zip): the run's kit of the release (tests/conftest.py)."""
    return request.param, *built_kit(request.param)


def test_the_kit_holds_the_released_lab_and_earlier_ones_and_no_later_one(release) -> None:
    name, folder, _ = release
    shipped = sorted(path.name for path in (folder / "labs").iterdir())
    assert shipped == [lab.name for lab in release_labs(name)], shipped
    for later in later_labs(name):
        mentions = [path for path in kit_files(folder) if later in path.as_posix()]
        assert mentions == [], f"the {name} kit holds files of {later}: {mentions[:3]}"


def test_files_of_closed_labs_ship_only_after_their_lab_closed(release) -> None:
    name, folder, _ = release
    opened = [lab.name for lab in release_labs(name)]
    for relative, (closed_lab, reason) in ALLOWED_CLOSED_LAB_WORK.items():
        if (folder / relative).exists():
            assert closed_lab in opened[:-1], (
                f"{relative} completes {closed_lab} ({reason}), which is still open at {name}")


def test_nothing_in_the_kit_scores_more_than_the_unedited_stub(release) -> None:
    name, folder, archive = release
    lab = LABS[name]
    plan = GradingPlan(lab, (lab.hidden_tests,), "release-kit-test", "en")
    files = [*kit_files(folder), archive]
    docs = grade_class(plan, files, BatchOptions(out_dir=None, workers=2),
                       progress=lambda *_: None)
    scores = {path: doc for path, doc in zip(files, docs, strict=True)}
    stub = scores[folder / "labs" / name / lab.main_file]
    assert stub["status"] == "graded", stub["reason"]
    errors = [str(path) for path, doc in scores.items() if doc["status"] == "grader-error"]
    assert errors == [], f"the grader failed on {errors}"
    stub_passed = passed_checks(stub)
    above = {}
    for path, doc in scores.items():
        if doc["score"] <= stub["score"]:
            continue
        relative = path.relative_to(folder).as_posix()
        allowed, _why = ALLOWED_ABOVE_STUB.get((name, relative), (set(), ""))
        extra = passed_checks(doc) - stub_passed - allowed
        if extra or not allowed:
            above[relative] = (doc["score"], sorted(passed_checks(doc) - stub_passed))
    assert above == {}, (f"in the {name} kit these score more than the unedited stub "
                         f"({stub['score']}) on the hidden suite: {above}")


def passed_checks(doc: dict) -> set[str]:
    """The ids of the checks a document passed."""
    return {check["id"] for check in doc["checks"] if check["status"] == "passed"}
