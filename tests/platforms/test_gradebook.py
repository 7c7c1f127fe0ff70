"""Tests for grader.platforms.gradebook: class CSV, Canvas import CSV and Moodle worksheet built
from stored score documents and read back as the LMSs read them."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from grader.platforms import gradebook

ROOT = Path(__file__).resolve().parents[2]


def stored(kind: str, **submission: Any) -> dict[str, Any]:
    """A stored score document with extra submission fields."""
    doc = json.loads((ROOT / "tests" / "data" / f"score_{kind}.json").read_text(encoding="utf-8"))
    doc["submission"].update(submission)
    return doc


def rows(text: str) -> list[dict[str, str]]:
    """CSV text as dict rows."""
    return list(csv.DictReader(io.StringIO(text)))


CANVAS = [stored("mixed", id="doejane_1001", student_id="1001", name="doejane", lms="canvas"),
          stored("ungradable", id="leeann_1003", student_id="1003", name="leeann", lms="canvas"),
          stored("all_passed", id="other", student_id="x9", lms="moodle")]


def test_canvas_rows_are_canvas_students_matched_by_user_id() -> None:
    found = rows(gradebook.canvas_csv(CANVAS, "Lab 01 (4321)"))
    assert [(r["ID"], r["Lab 01 (4321)"]) for r in found] == [
        ("1001", gradebook.points(CANVAS[0], None)), ("1003", "")]
    assert list(found[0])[:5] == list(gradebook.CANVAS_COLUMNS)


def test_points_scale_to_the_assignment_and_ungraded_stay_blank() -> None:
    doc = CANVAS[0]
    assert float(gradebook.points(doc, 10)) == pytest.approx(
        round(10 * doc["score"] / doc["max_score"], 2))
    assert gradebook.points(CANVAS[1], 10) == ""


def test_moodle_worksheet_identifies_participants_and_carries_comments() -> None:
    docs = [stored("mixed", id="Jane_Doe_200001", student_id="200001", name="Jane Doe",
                   lms="moodle"),
            stored("ungradable", id="Ann_Lee_200003", student_id="200003", name="Ann Lee",
                   lms="moodle")]
    found = rows(gradebook.moodle_worksheet(docs))
    assert [r["Identifier"] for r in found] == ["Participant 200001", "Participant 200003"]
    assert found[0]["Grade"] and found[1]["Grade"] == ""
    assert docs[1]["reason"]["text"] in found[1]["Feedback comments"]
    assert all("\n" not in r["Feedback comments"] for r in found)


def test_comments_follow_the_documents_language() -> None:
    doc = stored("ungradable", student_id="1", lms="moodle")
    spanish = copy.deepcopy(doc)
    spanish["lang"] = "es"
    assert gradebook.comment(doc).startswith("Not graded")
    assert gradebook.comment(spanish).startswith("Sin calificar")


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)"])
def test_text_cells_never_start_a_formula(name: str) -> None:
    doc = stored("mixed", id="s", student_id="1", name=name, lms="canvas")
    assert rows(gradebook.class_csv([doc]))[0]["name"].startswith("'")
    assert rows(gradebook.canvas_csv([doc], "Lab"))[0]["Student"].startswith("'")
