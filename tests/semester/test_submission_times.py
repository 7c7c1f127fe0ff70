"""Where an attempt's time comes from: the instructor's CSV, else the platform's (Gradescope's
submission_metadata.json `created_at`), else unknown: never guessed.

The metadata below is the example of Gradescope's own documentation
(gradescope-autograders.readthedocs.io/en/latest/submission_metadata/): `created_at` with
microseconds and a -07:00 offset, `assignment.due_date`, `users`, `previous_submissions`.
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.platforms.gradescope import _metadata
from grader.results.score_document import parse
from grader.semester.recording import StoredDocument, time_of

GRADESCOPE_EXAMPLE = {
    "id": 123456,
    "created_at": "2018-07-01T14:22:32.365935-07:00",
    "assignment": {"due_date": "2018-07-31T23:00:00.000000-07:00", "group_size": 4,
                   "group_submission": True, "id": 25828, "course_id": 1234,
                   "late_due_date": None, "release_date": "2018-07-02T00:00:00.000000-07:00",
                   "title": "Programming Assignment 1", "total_points": "20.0"},
    "submission_method": "upload",
    "users": [{"email": "student@example.com", "id": 1234, "name": "Student User"}],
    "previous_submissions": [{"submission_time": "2017-04-06T14:24:48.087023-07:00",
                              "score": 0.0, "results": {}}],
}


def test_gradescope_metadata_gives_the_time_in_utc(tmp_path: Path) -> None:
    (tmp_path / "submission_metadata.json").write_text(json.dumps(GRADESCOPE_EXAMPLE))
    assert _metadata(tmp_path) == {"id": "123456", "student_id": "1234", "name": "Student User",
                                   "submitted_at": "2018-07-01T21:22:32Z"}


def test_gradescope_metadata_without_a_time_with_a_zone_gives_none(tmp_path: Path) -> None:
    for created_at in (None, "yesterday", "2018-07-01T14:22:32"):
        (tmp_path / "submission_metadata.json").write_text(json.dumps(
            {**GRADESCOPE_EXAMPLE, "created_at": created_at}))
        assert "submitted_at" not in _metadata(tmp_path), created_at


DATA = Path(__file__).resolve().parents[1] / "data"


def document(**submission: object) -> StoredDocument:
    """A recorded document of student 1234 with these submission fields (tests/data/
    score_mixed.json as `grade` wrote it, its submission's time and LMS fields replaced)."""
    doc = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    for key in ("lms", "late", "submitted_at"):
        doc["submission"].pop(key, None)
    doc["submission"].update(id="1234", student_id="1234", **submission)
    return StoredDocument(Path("x"), parse(doc), "sha256:x")


def test_the_instructors_csv_wins_then_the_platform_then_unknown() -> None:
    gradescope = document(lms="gradescope", submitted_at="2018-07-01T21:22:32Z")
    assert time_of(gradescope, {"1234": "2018-07-02T00:00:00Z"}) == (
        "2018-07-02T00:00:00Z", "times-csv")
    assert time_of(gradescope, {}) == ("2018-07-01T21:22:32Z", "gradescope")
    canvas_late = document(lms="canvas", late=True)  # Canvas's LATE marker: a flag, no time
    assert time_of(canvas_late, {}) == (None, None)
