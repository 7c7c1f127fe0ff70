"""The stored score documents the semester's tools and the report folder read, as typed records:
a `scores.json` is parsed once where it is loaded; one not shaped as the schema says is refused
(the ledger's `record`, `regrade`) or is no report (a folder's class files), never half read."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from grader.results.build import SUBMISSION_EXTRAS
from grader.results.report_folder import read_reports
from grader.results.score_document import ScoreDocument
from grader.semester.recording import RecordRefused, check_points, read_documents
from grader.semester.replay import _submission

DATA = Path(__file__).resolve().parents[1] / "data"
LAB = "lab01_graph"


def sample(student: str) -> dict[str, Any]:
    """tests/data/score_mixed.json as `grade` wrote it, graded under the student's id."""
    doc: dict[str, Any] = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    doc["submission"].update(id=student)
    return doc


def write(folder: Path, name: str, content: Any) -> Path:
    """`folder/name/scores.json` holding the JSON of `content`, or `content` itself if a str."""
    path = folder / name / "scores.json"
    path.parent.mkdir(parents=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


def test_a_folders_reports_are_the_score_documents_naming_their_folder(tmp_path: Path) -> None:
    write(tmp_path, "alice", sample("alice"))
    write(tmp_path, "bob", sample("alice"))  # another submission's document: not bob's report
    write(tmp_path, "carol", "[1, 2]")  # JSON, not an object
    write(tmp_path, "dave", '{"submission": {"id": "da')  # cut short
    without_checks = sample("erin")
    del without_checks["checks"]
    write(tmp_path, "erin", without_checks)  # names its folder, but is no score document
    reports = read_reports(tmp_path)
    assert [type(doc) for doc in reports] == [ScoreDocument]
    assert [doc.submission.id for doc in reports] == ["alice"]


@pytest.mark.parametrize("damage", ["status", "checks", "submission"])
def test_record_refuses_a_document_missing_a_key_naming_the_file_and_key(
        tmp_path: Path, damage: str) -> None:
    write(tmp_path, "alice", sample("alice"))
    damaged = sample("bob")
    del damaged[damage]
    path = write(tmp_path, "bob", damaged)
    with pytest.raises(RecordRefused) as refused:
        read_documents(tmp_path, LAB)
    assert str(path) in str(refused.value) and repr(damage) in str(refused.value)


def test_record_refuses_another_labs_document(tmp_path: Path) -> None:
    write(tmp_path, "alice", {**sample("alice"), "lab": "lab02_ops"})
    with pytest.raises(RecordRefused, match="is a document of lab02_ops, not lab01_graph"):
        read_documents(tmp_path, LAB)


def test_the_recorded_documents_are_typed_with_their_student(tmp_path: Path) -> None:
    write(tmp_path, "alice", sample("alice"))
    moodle = sample("bob")
    moodle["submission"].update(student_id="4242", lms="moodle")
    write(tmp_path, "bob", moodle)
    documents = read_documents(tmp_path, LAB)
    assert [(d.doc.submission.id, d.student) for d in documents] == [("alice", "alice"),
                                                                     ("bob", "4242")]


def test_a_checks_points_are_its_max_score_in_the_recorded_json(tmp_path: Path) -> None:
    doc = sample("alice")
    path = write(tmp_path, "alice", doc)
    assert check_points(path) == {c["id"]: float(c["max_score"]) for c in doc["checks"]}
    path.write_text("{}", "utf-8")
    with pytest.raises(RecordRefused, match="the recorded document cannot be read"):
        check_points(path)


def test_a_replayed_submission_carries_the_extras_the_document_recorded(tmp_path: Path) -> None:
    doc = sample("alice")
    doc["submission"].update(student_id="4242", lms="canvas", late=True,
                             duplicates=["value.py"], submitted_at="2026-09-16T02:59:00Z")
    path = write(tmp_path, "alice", doc)
    [stored] = read_documents(tmp_path, LAB)
    submission = _submission(stored.doc, str(tmp_path / "alice-source"))
    recorded = copy.deepcopy(doc["submission"])
    assert path.parent.name == submission.id == recorded["id"]
    assert submission.source == tmp_path / "alice-source"
    assert submission.meta == {**{key: recorded[key] for key in SUBMISSION_EXTRAS
                                  if key in recorded}, "label": recorded["source"]}
