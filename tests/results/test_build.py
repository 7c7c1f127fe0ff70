"""Tests for grader.results.build through a real class run: documents, scores, reports, resume."""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader.common.labs import get_lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for
from grader.results.messages import names_a_pitfall

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = json.loads((ROOT / "grader" / "results" / "score.schema.json").read_text("utf-8"))
LAB = get_lab("lab01_graph")
BUGGY = ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-mul"
SOURCES = {"reference": LAB.solution_dir, "stub": LAB.student_dir, "buggy": BUGGY}
REPORT_FILES = ("scores.json", "feedback.md", "feedback.html")


@dataclass
class ClassRun:
    """One graded class: its submission folders, output folder and documents by id."""

    folders: list[Path]
    out_dir: Path
    docs: dict[str, dict[str, Any]]
    spec: GradingPlan


def copy_submission(source: Path, target: Path) -> Path:
    """Copy the lab's value.py from source into a new folder target."""
    target.mkdir(parents=True)
    shutil.copy(source / "value.py", target / "value.py")
    return target


def grade(spec: GradingPlan, folders: list[Path], out_dir: Path, resume: bool = False,
          notes: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """grade_class on the folders; documents by submission id."""
    options = BatchOptions(out_dir=out_dir, workers=2, resume=resume, shard_timeout_s=120)

    def progress(done: int, total: int, doc: dict[str, Any], kept: bool) -> None:
        if notes is not None:
            notes.append(f"{doc['submission']['id']}: {'unchanged, kept' if kept else doc['status']}")

    return {doc["submission"]["id"]: doc for doc in grade_class(spec, folders, options, progress)}


@pytest.fixture(scope="module")
def class_run(tmp_path_factory: pytest.TempPathFactory) -> ClassRun:
    """The reference, the stub, a buggy fixture and an empty folder, graded in one call."""
    root = tmp_path_factory.mktemp("class")
    folders = [copy_submission(source, root / "class" / name) for name, source in SOURCES.items()]
    empty = root / "class" / "empty"
    empty.mkdir()
    folders.append(empty)
    spec = GradingPlan(LAB, suites_for(LAB, hidden=True), "seed", "en")
    out_dir = root / "out"
    return ClassRun(folders, out_dir, grade(spec, folders, out_dir), spec)


def graded_docs(run: ClassRun) -> list[dict[str, Any]]:
    """The documents of the submissions that were graded (all but the empty folder)."""
    return [run.docs[name] for name in SOURCES]


def schema_errors(doc: dict[str, Any]) -> list[str]:
    """Schema violations of a document, as 'path: message' lines."""
    validator = jsonschema.Draft202012Validator(
        SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(doc)]


def test_every_submission_gets_a_document_in_order(class_run: ClassRun) -> None:
    assert list(class_run.docs) == [*SOURCES, "empty"], list(class_run.docs)
    statuses = {name: doc["status"] for name, doc in class_run.docs.items()}
    assert statuses == {"reference": "graded", "stub": "graded", "buggy": "graded",
                        "empty": "ungradable"}, statuses


@pytest.mark.parametrize("name", list(SOURCES))
def test_graded_documents_validate_against_the_schema(class_run: ClassRun, name: str) -> None:
    assert schema_errors(class_run.docs[name]) == []


def test_ungradable_document_validates_against_the_schema(class_run: ClassRun) -> None:
    # An unreadable submission has no content to digest: its digest is "".
    assert schema_errors(class_run.docs["empty"]) == []
    assert class_run.docs["empty"]["submission"]["digest"] == ""


@pytest.mark.parametrize("name", list(SOURCES))
def test_score_is_the_sum_of_passed_weights(class_run: ClassRun, name: str) -> None:
    doc = class_run.docs[name]
    passed = sum(c["max_score"] for c in doc["checks"] if c["status"] == "passed")
    total = sum(c["max_score"] for c in doc["checks"])
    assert (doc["score"], doc["max_score"]) == (passed, total), (
        f"got {doc['score']} / {doc['max_score']}, expected {passed} / {total}")
    for check in doc["checks"]:
        expected = check["max_score"] if check["status"] == "passed" else 0.0
        assert check["score"] == expected, check


@pytest.mark.parametrize("name", list(SOURCES))
def test_pitfalls_are_the_ordered_unique_pitfalls_of_failed_checks(
    class_run: ClassRun, name: str
) -> None:
    doc = class_run.docs[name]
    # Code not written yet (the stub's TODOs) fails its checks but names no pitfall.
    expected = list(dict.fromkeys(c["pitfall"] for c in doc["checks"] if c["status"] == "failed"
                                  and names_a_pitfall(c["detail"])))
    assert doc["pitfalls"] == expected, f"got {doc['pitfalls']}, expected {expected}"


def test_reference_passes_everything_and_stub_scores_zero(class_run: ClassRun) -> None:
    reference, stub = class_run.docs["reference"], class_run.docs["stub"]
    assert reference["score"] == reference["max_score"] > 0, reference["pitfalls"]
    assert stub["score"] == 0.0, [c["id"] for c in stub["checks"] if c["status"] == "passed"]


def test_buggy_submission_names_its_pitfall(class_run: ClassRun) -> None:
    assert class_run.docs["buggy"]["pitfalls"] == ["grad-overwrite"]


def test_failed_checks_carry_message_and_hint_passed_ones_none(class_run: ClassRun) -> None:
    for doc in graded_docs(class_run):
        for check in doc["checks"]:
            if check["status"] == "failed":
                assert check["message"] and check["hint"] and check["detail"], check
            if check["status"] == "passed":
                assert (check["message"], check["hint"], check["detail"]) == ("", "", None), check


def test_empty_folder_is_ungradable_for_the_missing_file(class_run: ClassRun) -> None:
    doc = class_run.docs["empty"]
    assert doc["reason"]["kind"] == "missing-file", doc["reason"]
    assert doc["reason"]["params"] == {"file": "value.py"}, doc["reason"]
    assert "value.py" in doc["reason"]["text"], doc["reason"]
    assert (doc["score"], doc["max_score"], doc["checks"], doc["pitfalls"]) == (0.0, 0.0, [], [])


@pytest.mark.parametrize("name", [*SOURCES, "empty"])
def test_every_submission_gets_its_report_files(class_run: ClassRun, name: str) -> None:
    folder = class_run.out_dir / name
    missing = [f for f in REPORT_FILES if not (folder / f).is_file()]
    assert missing == [], f"{name} lacks {missing}"
    on_disk = json.loads((folder / "scores.json").read_text(encoding="utf-8"))
    assert on_disk == class_run.docs[name], "scores.json differs from the returned document"
    assert name in (folder / "feedback.md").read_text(encoding="utf-8")
    assert "<html" in (folder / "feedback.html").read_text(encoding="utf-8").lower()
    assert not list(folder.glob("*.tmp")), "a temporary file was left behind"


def test_class_csv_has_one_row_per_submission(class_run: ClassRun) -> None:
    with (class_run.out_dir / "class.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    got = [(r["submission"], r["status"], float(r["score"]) if r["score"] else None,
            r["pitfalls"], bool(r["reason"])) for r in rows]
    # Not graded: no score at all (a gradebook would read 0 as a zero), and a reason.
    expected = sorted((d["submission"]["id"], d["status"],
                       d["score"] if d["status"] == "graded" else None, " ".join(d["pitfalls"]),
                       d["status"] != "graded") for d in class_run.docs.values())
    assert got == expected, f"got {got}, expected {expected}"


def test_resume_keeps_unchanged_reports_and_regrades_changed_ones(
    class_run: ClassRun, tmp_path: Path
) -> None:
    # Work on a copy, so the module's run stays as it was for the other tests.
    out_dir = tmp_path / "out"
    shutil.copytree(class_run.out_dir, out_dir)
    folders = [copy_submission(folder, tmp_path / "class" / folder.name)
               for folder in class_run.folders if folder.name != "empty"]
    buggy = tmp_path / "class" / "buggy" / "value.py"
    shutil.copy(LAB.solution_dir / "value.py", buggy)  # the student fixed the bug
    before = {name: json.loads((out_dir / name / "scores.json").read_text("utf-8"))
              for name in SOURCES}
    notes: list[str] = []
    docs = grade(class_run.spec, folders, out_dir, resume=True, notes=notes)
    for name in ("reference", "stub"):
        assert docs[name] == before[name], f"{name} was regraded although unchanged"
        assert f"{name}: unchanged, kept" in notes, notes
    fixed = docs["buggy"]
    assert fixed["submission"]["digest"] != before["buggy"]["submission"]["digest"]
    assert (fixed["score"], fixed["pitfalls"]) == (fixed["max_score"], []), (
        f"the fixed submission was not regraded: {fixed['score']}, {fixed['pitfalls']}")
    on_disk = json.loads((out_dir / "buggy" / "scores.json").read_text("utf-8"))
    assert on_disk == fixed, "the regraded report was not written"
