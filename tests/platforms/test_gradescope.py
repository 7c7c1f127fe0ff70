"""Gradescope: results.json read the way Gradescope's specification and its own test runner
read it (gradescope_oracle: specs.md's output format, visibility and status rules,
json_test_runner.py's sums), `--points`, the seed warnings, and the exported bundle set up for
real (setup.sh as root; on a base without apt-get) and run on submissions in a root laid out like
Gradescope's (source/, submission/, results/, submission_metadata.json)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import gradescope_oracle as oracle
import jsonschema
import pytest

from grader.common.labs import get_lab
from grader.platforms import gradescope
from grader.results.gradebook import scaled
from grader.results.i18n import Catalogue

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
    """Fail unless `found` is a results.json specs.md allows (and our schema of it)."""
    assert oracle.problems(found) == []
    jsonschema.Draft202012Validator(SCHEMA).validate(found)


def as_read(found: dict[str, Any]) -> dict[str, Any]:
    """results.json as written, its numbers read exactly as the decimals the JSON holds."""
    return json.loads(json.dumps(found), parse_float=Decimal)


@pytest.mark.parametrize("path", DOCS, ids=[p.stem for p in DOCS])
@pytest.mark.parametrize("visibility", ["after_published", "visible"])
@pytest.mark.parametrize("points", [None, 10.0, 12.5, 100.0])
def test_results_of_every_stored_document_follow_the_spec(path: Path, visibility: str,
                                                          points: float | None) -> None:
    """specs.md "Output format": the keys and values it allows; the score Gradescope records
    (the top-level score, which "overrides total of tests") is the tests' sum, as
    json_test_runner.py `JSONTestRunner.run` computes it, or with --points the total rounded
    once as the gradebooks round it (gradebook.scaled), within a hundredth per test of that
    sum; with --points the tests' maxima add up to the points exactly."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    found = gradescope.results(doc, visibility, points=points)
    validate(found)
    assert found["output_format"] == "md" and found["stdout_visibility"] == "hidden"
    read = as_read(found)
    scores, maxima = oracle.tests_total(read)
    if doc["status"] != "graded":
        assert oracle.total_score(read) == 0
    elif points is None:
        assert oracle.total_score(read) == scores
    else:
        assert oracle.total_score(read) == Decimal(str(scaled(doc, points)))
        assert abs(scores - oracle.total_score(read)) <= Decimal("0.01") * len(found["tests"])
    if found["tests"]:
        assert maxima == (Decimal(str(points)) if points else Decimal(str(doc["max_score"])))
    for check, test in zip(doc["checks"], found["tests"], strict=True):
        assert oracle.status(test) == ("passed" if check["status"] == "passed" else "failed")


@pytest.mark.parametrize("points", [1.0, 7.0, 10.0, 12.34, 58.0, 99.99])
def test_points_scale_every_check_so_the_tests_add_up(points: float) -> None:
    """Gradescope adds the tests up (json_test_runner.py `JSONTestRunner.run`): the scaled
    maxima add up to --points exactly, a full-marks submission gets exactly --points, each
    check keeps its share of the points to a hundredth, and the recorded score is the total
    rounded once, as Canvas and Moodle get it."""
    for name in ("score_mixed.json", "score_all_passed.json"):
        doc = json.loads((ROOT / "tests" / "data" / name).read_text(encoding="utf-8"))
        read = as_read(gradescope.results(doc, points=points))
        scores, maxima = oracle.tests_total(read)
        assert maxima == Decimal(str(points))
        assert read["score"] == Decimal(str(scaled(doc, points)))  # rounded once, as LMSs do
        if doc["score"] == doc["max_score"]:
            assert scores == Decimal(str(points))
        for check, test in zip(doc["checks"], read["tests"], strict=True):
            share = Decimal(str(check["max_score"])) / Decimal(str(doc["max_score"])) * maxima
            assert abs(test["max_score"] - share) <= Decimal("0.01")
        float_sum = sum(float(t["max_score"]) for t in read["tests"])
        assert abs(float_sum - points) < 1e-9


def test_points_that_cannot_be_split_in_hundredths_are_refused(tmp_path: Path) -> None:
    for points in (0.0, -3.0, 0.001):
        with pytest.raises(ValueError):
            gradescope.export_bundle(LAB, tmp_path / "a.zip",
                                     gradescope.Config("lab01_graph", "en", "k", points=points))
    completed = export_cli(tmp_path, "gradescope", "--points", "0.001", "--seed", "k")
    assert completed.returncode == 2 and "--points" in completed.stderr


def export_cli(tmp_path: Path, platform: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """`python -m grader export PLATFORM lab01_graph` without GRADER_SEED in the environment."""
    out = tmp_path / ("autograder.zip" if platform == "gradescope" else "question")
    env = {key: value for key, value in os.environ.items() if key != "GRADER_SEED"}
    return subprocess.run([sys.executable, "-m", "grader", "export", platform, "lab01_graph",
                           "--out", str(out), "--lang", "en", *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn"])
def test_an_export_without_a_course_seed_says_so_and_an_empty_one_is_refused(
        tmp_path: Path, platform: str) -> None:
    catalogue = Catalogue.load("en")
    warned = export_cli(tmp_path, platform)
    assert warned.returncode == 0
    assert catalogue.text("cli.export_seed_warning") in warned.stderr
    seeded = export_cli(tmp_path, platform, "--seed", "course-secret")
    assert seeded.returncode == 0 and "warning" not in seeded.stderr
    refused = export_cli(tmp_path / "empty", platform, "--seed", "")
    assert refused.returncode == 2
    assert catalogue.text("cli.errors.empty_seed") in refused.stderr
    assert not (tmp_path / "empty").exists()


def test_the_report_names_the_students_of_the_submission() -> None:
    """docs/submission_metadata.md: `users` (a group has several), each with id and name."""
    doc = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    doc["submission"].update(name="Jane Doe, Ana Ruiz", student_id="42, 43")
    output = gradescope.results(doc)["output"]
    assert "Jane Doe, Ana Ruiz" in output and "42, 43" in output


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
    assert "Jane Doe" in found["output"] and "42" in found["output"]
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


def setup_without(tmp_path: Path, tools: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """setup.sh run where PATH holds only `tools` (name: script): a base image without this
    machine's Python and package manager."""
    bundle = gradescope.export_bundle(LAB, tmp_path / "autograder.zip",
                                      gradescope.Config("lab01_graph", "en", "course-secret"))
    with zipfile.ZipFile(bundle) as archive:
        setup = archive.read("setup.sh").decode("utf-8")
    (tmp_path / "setup.sh").write_text(setup)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, script in tools.items():
        (bin_dir / name).write_text("#!/bin/bash\n" + script)
        (bin_dir / name).chmod(0o755)
    return subprocess.run(["/bin/bash", str(tmp_path / "setup.sh")], cwd=tmp_path,
                          env={"PATH": str(bin_dir), "AUTOGRADER_ROOT": str(tmp_path / "root"),
                               "LOG": str(tmp_path / "log")},
                          capture_output=True, text=True, timeout=60, check=False)


def test_setup_on_a_base_without_apt_get_or_dnf_fails_saying_so(tmp_path: Path) -> None:
    completed = setup_without(tmp_path, {})
    assert completed.returncode == 1
    assert Catalogue.load("en").text("platforms.gradescope.setup_no_manager") in completed.stderr


def test_setup_on_fedora_or_rocky_installs_python_with_dnf(tmp_path: Path) -> None:
    completed = setup_without(tmp_path, {"dnf": 'echo "$@" >> "$LOG"\n'})
    assert (tmp_path / "log").read_text().split() == ["install", "-y", "-q", "python3.11"]
    # the stub installed nothing: setup stops there, saying so
    assert completed.returncode == 1
    assert Catalogue.load("en").text("platforms.gradescope.setup_no_python") in completed.stderr
