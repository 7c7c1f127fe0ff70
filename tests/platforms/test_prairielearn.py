"""PrairieLearn: results.json against a schema written from its external grading docs, the
exported question against its question schema's rules, and the question's entrypoint run on
submissions in a /grade laid out as PrairieLearn mounts it."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader.labs import get_lab
from grader.platforms import prairielearn

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "grader" / "platforms" / "schemas" /
                     "prairielearn-results.schema.json").read_text(encoding="utf-8"))
DOCS = sorted((ROOT / "tests" / "data").glob("score_*.json"))
LAB = get_lab("lab01_graph")
SUBMISSIONS = {
    "correct": ROOT / "solutions" / "lab01_graph",
    "buggy": ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-add",
    "ungradable": None,
    "hostile": ROOT / "tests" / "fixtures" / "redteam" / "gradescope-results-json",
}
UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
# The parts of PrairieLearn's infoQuestion.json schema an exported question must meet.
INFO_SCHEMA = {
    "type": "object",
    "required": ["uuid", "type", "title", "topic"],
    "properties": {
        "uuid": {"type": "string", "pattern": UUID},
        "type": {"enum": ["Calculation", "MultipleChoice", "Checkbox", "File",
                          "MultipleTrueFalse", "v3"]},
        "gradingMethod": {"enum": ["Internal", "External", "Manual"]},
        "externalGradingOptions": {
            "type": "object", "additionalProperties": False, "required": ["image", "entrypoint"],
            "properties": {"enabled": {"type": "boolean"}, "image": {"type": "string"},
                           "entrypoint": {"type": "string"}, "timeout": {"type": "integer",
                                                                         "maximum": 600},
                           "enableNetworking": {"const": False}, "comment": {},
                           "serverFilesCourse": {"type": "array"}, "environment": {}},
        },
    },
}


def validate(found: dict[str, Any]) -> None:
    """Fail unless `found` is a valid results.json under PrairieLearn's 1 MB limit."""
    jsonschema.Draft202012Validator(SCHEMA).validate(found)
    assert len(json.dumps(found).encode("utf-8")) < prairielearn.MAX_RESULTS_BYTES


@pytest.mark.parametrize("path", DOCS, ids=[p.stem for p in DOCS])
def test_results_of_every_stored_document_match_the_schema(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    found = prairielearn.results(doc)
    validate(found)
    assert found["gradable"] is (doc["status"] == "graded")


def test_score_is_the_share_of_points() -> None:
    doc = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    found = prairielearn.results(doc)
    assert found["score"] == pytest.approx(doc["score"] / doc["max_score"])
    assert sum(t["points"] for t in found["tests"]) == doc["score"]


def test_huge_outputs_are_cut_under_one_megabyte() -> None:
    doc = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    for check in doc["checks"]:
        check["output"] = "x" * 400_000
    found = prairielearn.results(doc)
    validate(found)
    assert any("size limit" in t["output"] for t in found["tests"])


def test_exported_question_meets_prairielearns_question_schema(tmp_path: Path) -> None:
    config = prairielearn.Config("lab01_graph", "es", "course-secret")
    out = prairielearn.export_question(LAB, tmp_path / "q", config, widget="editor")
    info = json.loads((out / "info.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(INFO_SCHEMA).validate(info)
    assert info["gradingMethod"] == "External"
    html = (out / "question.html").read_text(encoding="utf-8")
    assert '<pl-file-editor file-name="value.py"' in html and "pl-external-grader-results" in html
    assert (out / "stub" / "value.py").read_bytes() == (LAB.student_dir / "value.py").read_bytes()
    assert os.access(out / "tests" / "run.sh", os.X_OK)
    assert (out / "tests" / "suite").is_dir() and (out / "tests" / "solution").is_dir()
    upload = prairielearn.export_question(LAB, tmp_path / "u", config)
    assert '<pl-file-upload file-names="value.py">' in (upload / "question.html").read_text()


# --- the entrypoint, run as PrairieLearn runs it ---------------------------------------------


@pytest.fixture(scope="module")
def question(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The exported question folder."""
    config = prairielearn.Config("lab01_graph", "en", "course-secret")
    return prairielearn.export_question(LAB, tmp_path_factory.mktemp("pl") / "q", config)


def grade(question: Path, tmp_path: Path, submission: Path | None,
          as_data: bool = False) -> tuple[dict[str, Any], float]:
    """Lay out /grade as PrairieLearn mounts it and run the entrypoint; results and time."""
    root = tmp_path / "grade"
    shutil.copytree(question / "tests", root / "tests")
    (root / "student").mkdir(parents=True)
    (root / "data").mkdir()
    files = sorted(submission.glob("*.py")) if submission else []
    data = {"params": {}, "submitted_answers": {}}
    if as_data:
        data["submitted_answers"]["_files"] = [
            {"name": p.name, "contents": base64.b64encode(p.read_bytes()).decode()} for p in files]
    else:
        for path in files:
            shutil.copyfile(path, root / "student" / path.name)
    (root / "data" / "data.json").write_text(json.dumps(data))
    env = {**os.environ, "GRADE_ROOT": str(root), "MINIGRAD_HOME": str(ROOT),
           "MINIGRAD_PYTHON": sys.executable}
    started = time.monotonic()
    completed = subprocess.run([str(root / "tests" / "run.sh")], env=env, capture_output=True,
                               text=True, timeout=300, check=False)
    elapsed = time.monotonic() - started
    assert completed.returncode == 0, completed.stderr[-2000:]
    path = root / "results" / "results.json"
    assert path.is_file(), completed.stdout[-2000:] + completed.stderr[-2000:]
    return json.loads(path.read_text(encoding="utf-8")), elapsed


def test_correct_submission_scores_one(question: Path, tmp_path: Path) -> None:
    found, elapsed = grade(question, tmp_path, SUBMISSIONS["correct"])
    print(f"PrairieLearn entrypoint, correct submission: {elapsed:.2f} s")
    validate(found)
    assert found["gradable"] is True and found["score"] == 1.0


def test_files_given_only_in_data_json_are_graded(question: Path, tmp_path: Path) -> None:
    found, _ = grade(question, tmp_path, SUBMISSIONS["correct"], as_data=True)
    validate(found)
    assert found["score"] == 1.0


def test_buggy_submission_scores_between_zero_and_one(question: Path, tmp_path: Path) -> None:
    found, _ = grade(question, tmp_path, SUBMISSIONS["buggy"])
    validate(found)
    assert 0 < found["score"] < 1
    assert any(t["points"] < t["max_points"] and t["message"] for t in found["tests"])


def test_ungradable_submission_is_not_gradable_and_costs_no_attempt(question: Path,
                                                                     tmp_path: Path) -> None:
    found, _ = grade(question, tmp_path, SUBMISSIONS["ungradable"])
    validate(found)
    assert found["gradable"] is False and "value.py" in found["message"]


def test_hostile_submission_is_graded_and_cannot_forge(question: Path, tmp_path: Path) -> None:
    found, _ = grade(question, tmp_path, SUBMISSIONS["hostile"])
    validate(found)
    assert found["gradable"] is True and found["score"] == 0


def test_the_image_needs_no_hidden_suite_of_its_own(question: Path, tmp_path: Path) -> None:
    public = tmp_path / "image"
    for name in ("grader", "templates", "labs"):
        shutil.copytree(ROOT / name, public / name,
                        ignore=shutil.ignore_patterns("suites", "__pycache__"))
    root = tmp_path / "grade"
    shutil.copytree(question / "tests", root / "tests")
    (root / "student").mkdir(parents=True)
    shutil.copyfile(SUBMISSIONS["correct"] / "value.py", root / "student" / "value.py")
    env = {**os.environ, "GRADE_ROOT": str(root), "MINIGRAD_HOME": str(public),
           "MINIGRAD_PYTHON": sys.executable}
    subprocess.run([str(root / "tests" / "run.sh")], env=env, capture_output=True, timeout=300,
                   check=True)
    found = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert found["score"] == 1.0
