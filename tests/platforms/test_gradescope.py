"""Gradescope: results.json against a schema written from its specification, and the exported
bundle set up for real (setup.sh as root) and run on submissions in a root laid out like
Gradescope's (source/, submission/, results/)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader.labs import get_lab
from grader.platforms import gradescope

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "grader" / "platforms" / "schemas" /
                     "gradescope-results.schema.json").read_text(encoding="utf-8"))
DOCS = sorted((ROOT / "tests" / "data").glob("score_*.json"))
LAB = get_lab("lab01_graph")
SUBMISSIONS = {
    "correct": ROOT / "solutions" / "lab01_graph",
    "buggy": ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-add",
    "ungradable": None,
    "hostile": ROOT / "tests" / "fixtures" / "redteam" / "gradescope-results-json",
}
FORGED_PATH = Path("/autograder/results/results.json")


def validate(found: dict[str, Any]) -> None:
    """Fail with the schema's message when `found` is not a valid results.json."""
    jsonschema.Draft202012Validator(SCHEMA).validate(found)


@pytest.mark.parametrize("path", DOCS, ids=[p.stem for p in DOCS])
@pytest.mark.parametrize("visibility", ["after_published", "visible"])
def test_results_of_every_stored_document_match_the_schema(path: Path, visibility: str) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    found = gradescope.results(doc, visibility)
    validate(found)
    assert found["output_format"] == "md" and found["stdout_visibility"] == "hidden"


def test_hidden_checks_are_not_described_in_the_output_before_publication() -> None:
    doc = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    found = gradescope.results(doc, "after_published")
    hidden = [c for c in doc["checks"] if c["visibility"] == "hidden"]
    assert hidden, "the stored document needs hidden checks for this test"
    for check in hidden:
        if check["message"]:
            assert check["message"] not in found["output"], check["id"]
    assert {t["visibility"] for t in found["tests"]} == {"visible", "after_published"}
    assert "/" not in found["output"].split("Status")[1].split("\n")[1], "no total score shown"


def test_not_run_and_error_checks_are_failed_tests_keeping_their_status() -> None:
    doc = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    found = gradescope.results(doc)
    for check, test in zip(doc["checks"], found["tests"], strict=True):
        assert test["status"] == ("passed" if check["status"] == "passed" else "failed")
        assert test["extra_data"]["status"] == check["status"]


def test_ungradable_document_scores_zero_with_its_reason() -> None:
    doc = json.loads((ROOT / "tests" / "data" / "score_ungradable.json").read_text())
    found = gradescope.results(doc)
    assert found["score"] == 0 and found["tests"] == []
    assert doc["reason"]["text"] in found["output"].replace("\\", "")


# --- the bundle, set up and run for real -----------------------------------------------------


@pytest.fixture(scope="module")
def autograder(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Path:
    """An autograder root: the exported zip unpacked into source/ and setup.sh run as root
    (its pip installs from the run's wheelhouse, tests/conftest.py, instead of an index)."""
    if os.geteuid() != 0:
        pytest.fail("setup.sh runs as root on Gradescope; run these tests as root")
    work = tmp_path_factory.mktemp("gradescope")
    bundle = gradescope.export_bundle(
        LAB, work / "autograder.zip", gradescope.Config("lab01_graph", "en", "course-secret"))
    root = work / "root"
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        assert "setup.sh" in names and "run_autograder" in names, names[:10]
        archive.extractall(root / "source")
        for info in archive.infolist():  # extractall drops the modes the zip records
            (root / "source" / info.filename).chmod(info.external_attr >> 16 & 0o777)
    started = time.monotonic()
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)}
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root / "source",
                           env={**os.environ, "AUTOGRADER_ROOT": str(root), **offline},
                           capture_output=True, text=True, timeout=900, check=False)
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    print(f"setup.sh: {time.monotonic() - started:.1f} s")
    # Gradescope copies run_autograder to the root and runs it from there.
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    return root


def run_autograder(root: Path, submission: Path | None) -> tuple[dict[str, Any], float]:
    """Lay `submission` out as Gradescope does and run run_autograder; results.json and time."""
    for name in ("submission", "results"):
        shutil.rmtree(root / name, ignore_errors=True)
    (root / "results").mkdir()
    if submission is None:
        (root / "submission").mkdir()
        (root / "submission" / "notes.txt").write_text("I could not finish.\n")
    else:
        shutil.copytree(submission, root / "submission",
                        ignore=shutil.ignore_patterns("*.toml", "__pycache__"))
    (root / "submission_metadata.json").write_text(json.dumps(
        {"id": 123456, "users": [{"email": "jane@example.edu", "id": 42, "name": "Jane Doe"}]}))
    started = time.monotonic()
    completed = subprocess.run([str(root / "run_autograder")], cwd=root,
                               env={**os.environ, "AUTOGRADER_ROOT": str(root)},
                               capture_output=True, text=True, timeout=600, check=False)
    elapsed = time.monotonic() - started
    assert completed.returncode == 0, completed.stderr[-2000:]
    path = root / "results" / "results.json"
    assert path.is_file(), completed.stdout[-2000:] + completed.stderr[-2000:]
    return json.loads(path.read_text(encoding="utf-8")), elapsed


def test_setup_made_an_executable_run_autograder_and_a_supported_python(autograder: Path) -> None:
    mode = (autograder / "run_autograder").stat().st_mode
    assert mode & stat.S_IXUSR
    version = subprocess.run([str(autograder / "minigrad-venv" / "bin" / "python"), "-c",
                              "import sys; print(sys.version_info >= (3, 11))"],
                             capture_output=True, text=True, check=True)
    assert version.stdout.strip() == "True"


def test_correct_submission_gets_full_marks(autograder: Path) -> None:
    found, elapsed = run_autograder(autograder, SUBMISSIONS["correct"])
    validate(found)
    print(f"run_autograder, correct submission: {elapsed:.2f} s")
    assert found["extra_data"]["status"] == "graded"
    assert found["score"] == sum(t["max_score"] for t in found["tests"]) > 0
    assert all(t["status"] == "passed" for t in found["tests"])
    doc = json.loads((autograder / "results" / "scores.json").read_text(encoding="utf-8"))
    assert doc["submission"]["id"] == "123456" and doc["submission"]["name"] == "Jane Doe"
    assert (autograder / "results" / "feedback.md").is_file()
    assert (autograder / "results" / "feedback.html").is_file()


def test_buggy_submission_fails_the_checks_of_its_pitfall(autograder: Path) -> None:
    found, _ = run_autograder(autograder, SUBMISSIONS["buggy"])
    validate(found)
    assert 0 < found["score"] < sum(t["max_score"] for t in found["tests"])
    assert "grad-overwrite" in found["extra_data"]["pitfalls"]
    failed = [t for t in found["tests"] if t["status"] == "failed"]
    assert failed and all(t["output"] for t in failed)


def test_ungradable_submission_still_gets_results_with_score_zero(autograder: Path) -> None:
    found, _ = run_autograder(autograder, SUBMISSIONS["ungradable"])
    validate(found)
    assert found["score"] == 0 and found["extra_data"]["status"] == "ungradable"
    assert "value.py" in found["output"]


def test_hostile_submission_cannot_write_the_results(autograder: Path) -> None:
    existed = FORGED_PATH.exists()
    found, _ = run_autograder(autograder, SUBMISSIONS["hostile"])
    time.sleep(0.6)  # the attack's daemon rewrites its file every 0.2 s, if it survived
    again = json.loads((autograder / "results" / "results.json").read_text(encoding="utf-8"))
    validate(again)
    assert again == found, "results.json changed after the grader wrote it"
    assert found["score"] == 0 and found["extra_data"]["status"] == "graded"
    assert existed or not FORGED_PATH.exists(), "the attack wrote /autograder outside the jail"


def test_a_grader_that_cannot_start_still_leaves_results(autograder: Path, tmp_path: Path) -> None:
    broken = tmp_path / "root"
    shutil.copytree(autograder / "source", broken / "source")
    shutil.copy2(autograder / "run_autograder", broken / "run_autograder")
    (broken / "submission").mkdir()
    completed = subprocess.run([str(broken / "run_autograder")], cwd=broken,
                               env={**os.environ, "AUTOGRADER_ROOT": str(broken)},
                               capture_output=True, text=True, timeout=60, check=False)
    assert completed.returncode == 0
    found = json.loads((broken / "results" / "results.json").read_text(encoding="utf-8"))
    validate(found)
    assert found["score"] == 0 and found["extra_data"]["status"] == "grader-error"
