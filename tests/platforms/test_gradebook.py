"""Tests for grader.results.gradebook and grader.results.fill_in: the gradebook files, read
back by re-implementations of the LMSs' own importers (canvas_importer, moodle_importer), on the
LMS-written fixtures of tests/data/lms/."""

from __future__ import annotations

import copy
import csv
import datetime
import io
import json
from pathlib import Path
from typing import Any

import pytest
from canvas_importer import Course, InvalidHeaderRow, changed_grades, import_csv, removed_grades
from moodle_importer import Assignment, InvalidGradeImport, import_worksheet

from grader.results import gradebook
from grader.results.lms import canvas, fill_in, moodle

ROOT = Path(__file__).resolve().parents[2]
LMS_DATA = ROOT / "tests" / "data" / "lms"
LAB01 = 4321  # "Lab 01: graphs (4321)" in the Canvas export


def stored(kind: str, **submission: Any) -> dict[str, Any]:
    """A stored score document with extra submission fields."""
    doc = json.loads((ROOT / "tests" / "data" / f"score_{kind}.json").read_text(encoding="utf-8"))
    doc["submission"].update(submission)
    return doc


def rows(text: str) -> list[dict[str, str]]:
    """CSV text as dict rows."""
    return list(csv.DictReader(io.StringIO(text)))


def raw(name: str) -> bytes:
    """A fixture of tests/data/lms."""
    return (LMS_DATA / name).read_bytes()


def canvas_course() -> Course:
    """The course of canvas_gradebook_export.csv, with the grades the export shows."""
    course = Course({4321: "Lab 01: graphs", 4322: "Lab 02: ops"},
                    {1001 + i: (name, name) for i, name in enumerate(
                        ["Doe, Jane", "Smith, Bob", "Lee, Ann", "Garcia, José", "Kim, Min",
                         "Park, Jo", "Ortiz, Eva", "Wu, Li", "Ngo, Tam", "Student, Test"])})
    course.scores = {(1001, 4321): "4.0", (1001, 4322): "18.0", (1002, 4321): "7.5",
                     (1003, 4321): "9.0", (1003, 4322): "15.0", (1005, 4321): "EX",
                     (1005, 4322): "20.0", (1006, 4321): "6.0", (1006, 4322): "12.0",
                     (1007, 4321): "8.0", (1007, 4322): "19.0", (1009, 4321): "5.0"}
    return course


# A regrade: Jane and Bob graded anew; Ann (graded before) and Jo now ungradable; Li graded for
# the first time; Min excused.
CANVAS_DOCS = [stored("mixed", id="doejane_1001", student_id="1001", name="doejane", lms="canvas"),
               stored("all_passed", id="smithbob_1002", student_id="1002", name="smithbob",
                      lms="canvas"),
               stored("ungradable", id="leeann_1003", student_id="1003", name="leeann",
                      lms="canvas"),
               stored("grader_error", id="parkjo_1006", student_id="1006", lms="canvas"),
               stored("all_passed", id="kimmin_1005", student_id="1005", lms="canvas"),
               stored("mixed", id="wuli_1008", student_id="1008", lms="canvas"),
               stored("all_passed", id="other", student_id="1099", lms="canvas"),
               stored("all_passed", id="m", student_id="200001", lms="moodle")]


def test_canvas_oracle_catches_a_blank_cell_over_a_grade() -> None:
    """The oracle's blank-cell rule (process_gradebook_upload.js `populateGradeDataPerSubmission`
    posts the cell's value; gradebook_importer.rb `parse!` keeps a column with a change) is the
    one the fill-in must pass: blanking Ann's 9.00 removes her grade."""
    course = canvas_course()
    blanked = raw("canvas_gradebook_export.csv").decode().replace("CS101 A,9.00,", "CS101 A,,")
    assert removed_grades(import_csv(blanked, course), course) == [(1003, LAB01)]


def test_filled_canvas_export_removes_no_grade_and_posts_the_new_scores() -> None:
    """gradebook_importer.rb (`header?`, `parse_assignments` by id, `process_student` by ID) and
    process_gradebook_upload.js `populateGradeDataPerSubmission`: only the graded students'
    scores, scaled to the column's Points Possible (10), are posted; nobody's grade is removed."""
    course = canvas_course()
    filled = fill_in.fill(raw("canvas_gradebook_export.csv"), "export.csv", CANVAS_DOCS,
                          "lab01_graph", None, "Lab 01: graphs (4321)")
    upload = import_csv(filled.text, course)
    assert removed_grades(upload, course) == []
    assert upload.new_assignments == [] and upload.unknown_students == []
    expected = {(1001, LAB01): gradebook.scaled(CANVAS_DOCS[0], 10),
                (1002, LAB01): 10.0, (1008, LAB01): gradebook.scaled(CANVAS_DOCS[5], 10)}
    changed = changed_grades(upload, course)
    assert {key: float(grade or "nan") for key, grade in changed.items()} == expected
    assert filled.absent == ("1099",) == fill_in.absent(
        raw("canvas_gradebook_export.csv"), "export.csv", CANVAS_DOCS)


def test_a_grade_entered_by_hand_after_the_export_survives_the_upload() -> None:
    """After the export, the instructor grades Garcia (1004, blank when exported, no new score
    from the grader) by hand in Canvas, and changes Ortiz's (1007) 8.00 to 9.50. The filled file,
    imported by the port of gradebook_importer.rb (`parse!`, `no_change_to_value?`) and
    process_gradebook_upload.js (`populateGradeDataPerSubmission`) in
    tests/platforms/canvas_importer.py `import_csv`, removes and changes neither: their rows
    are not in the file. The export as downloaded, uploaded instead, would remove Garcia's."""
    course = canvas_course()
    course.scores[(1004, LAB01)] = "7.0"
    course.scores[(1007, LAB01)] = "9.5"
    export = raw("canvas_gradebook_export.csv")
    filled = fill_in.fill(export, "export.csv", CANVAS_DOCS, "lab01_graph", None, "4321")
    upload = import_csv(filled.text, course)
    assert removed_grades(upload, course) == []
    assert not {key for key in changed_grades(upload, course) if key[0] in (1004, 1007)}
    assert set(changed_grades(upload, course)) <= {(1001, LAB01), (1002, LAB01), (1008, LAB01)}
    as_exported = import_csv(export.decode(), course)  # the oracle sees the danger
    assert (1004, LAB01) in removed_grades(as_exported, course)


def test_filled_canvas_export_holds_only_the_rows_with_a_new_score() -> None:
    """The header and the Points Possible row stay as Canvas wrote them
    (GradebookExporter#csv_data); the graded students' rows keep every other cell as exported;
    every other student's row is left out, so the upload posts nothing for them."""
    export = raw("canvas_gradebook_export.csv").decode().splitlines()
    filled = fill_in.fill("\n".join(export).encode(), "export.csv", CANVAS_DOCS, "lab01_graph",
                          None, "4321").text.splitlines()
    assert filled[:2] == export[:2]
    kept = {next(csv.reader([line]))[1]: line for line in filled[2:]}
    assert sorted(kept) == ["1001", "1002", "1008"], filled
    exported = {next(csv.reader([line]))[1]: line for line in export[2:]}
    for student, line in kept.items():
        before, after = next(csv.reader([exported[student]])), next(csv.reader([line]))
        assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] in (
            [5], []), (before, after)


def test_semicolon_export_with_bom_and_decimal_commas_is_filled_in_its_own_dialect() -> None:
    """gradebook_importer.rb `semicolon_delimited?` and `decimal_comma_to_period`; the exporter's
    Integration ID column (`update_column_count` must still find Section)."""
    course = canvas_course()
    text = raw("canvas_gradebook_export_semicolon.csv")
    filled = fill_in.fill(text, "export.csv", CANVAS_DOCS, "lab01_graph", None, "4321")
    assert filled.text.startswith("\ufeff") and "\r\n" in filled.text
    assert "Doe, Jane;1001;S1001;jdoe;;CS101 A;2,67;" in filled.text
    upload = import_csv(filled.text, course)
    assert removed_grades(upload, course) == []
    assert changed_grades(upload, course) == {(1001, LAB01): "2.67"}


def test_the_default_column_is_the_lab_titled_one_and_otherwise_refused() -> None:
    """parse_assignments: a column matching no assignment id or title becomes a new assignment;
    the fill-in never writes one: without --canvas-column it takes the column titled as the lab,
    and refuses (naming the columns) when there is none."""
    export = raw("canvas_gradebook_export.csv").decode()
    with pytest.raises(fill_in.GradebookError, match="Lab 01: graphs \\(4321\\)"):
        fill_in.fill(export.encode(), "export.csv", CANVAS_DOCS, "lab01_graph", None, None)
    titled = export.replace("Lab 01: graphs (4321)", "lab01_graph (4321)")
    course = canvas_course()
    course.assignments[LAB01] = "lab01_graph"
    upload = import_csv(fill_in.fill(titled.encode(), "e.csv", CANVAS_DOCS, "lab01_graph", None,
                                     None).text, course)
    assert upload.new_assignments == [] and (1001, LAB01) in upload.posted


def test_points_that_contradict_the_export_and_total_columns_are_refused() -> None:
    """`strip_non_assignment_columns`: the totals are not assignments Canvas imports into."""
    with pytest.raises(fill_in.GradebookError, match="differs"):
        fill_in.check(raw("canvas_gradebook_export.csv"), "e.csv", "lab01_graph", 58, "4321")
    with pytest.raises(fill_in.GradebookError, match="no column"):
        fill_in.check(raw("canvas_gradebook_export.csv"), "e.csv", "lab01_graph", None,
                      "Current Points")


def test_fresh_canvas_csv_has_canvas_headers_and_no_row_without_a_score() -> None:
    """gradebook_importer.rb `header?` accepts the header; `parse_assignments` matches the
    column by id; an ungraded student has no row, so no blank is posted over a grade."""
    course = canvas_course()
    text = canvas.canvas_csv(CANVAS_DOCS, "Lab 01: graphs (4321)", 10)
    upload = import_csv(text, course)
    assert upload.new_assignments == [] and removed_grades(upload, course) == []
    assert {row["ID"] for row in rows(text)} == {"1001", "1002", "1005", "1008", "1099"}
    with pytest.raises(InvalidHeaderRow):
        import_csv("Name,ID,Lab 01 (4321)\nx,1001,3\n", course)


def moodle_assignment(lang: str) -> Assignment:
    """The assignment of the worksheet fixtures: out of 10, graded before the grader ran."""
    before = int(datetime.datetime(2026, 11, 28, tzinfo=datetime.UTC).timestamp())
    assignment = Assignment(lang, 10.0, {str(200001 + i): 9001 + i for i in range(5)})
    assignment.grades = {9001: (4.0, before), 9003: (9.0, before), 9005: (7.0, before)}
    assignment.comments = {9001: "Looks incomplete", 9003: "Good start", 9005: "Handed in on paper"}
    return assignment


MOODLE_DOCS = [stored("mixed", id="Jane_Doe_200001", student_id="200001", name="Jane Doe",
                      lms="moodle"),
               stored("ungradable", id="Ann_Lee_200003", student_id="200003", name="Ann Lee",
                      lms="moodle"),
               stored("all_passed", id="Bo_Kim_200004", student_id="200004", name="Bo Kim",
                      lms="moodle")]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_filled_moodle_worksheet_imports_every_grade_in_range(lang: str) -> None:
    """importgradeslib.php `init` (headers in the site's language), `next` (the identifier minus
    `hiddenuser`), locallib.php `process_import_grades` (`unformat_float`, stale and range
    checks): both graded participants' grades import, scaled to 10; Ann's row, kept as
    exported, changes neither her grade nor her comment."""
    assignment = moodle_assignment(lang)
    filled = fill_in.fill(raw(f"moodle_worksheet_{lang}.csv"), "w.csv", MOODLE_DOCS,
                          "lab01_graph", None, None)
    result = import_worksheet(filled.text, assignment)
    assert result.grades == {9001: gradebook.scaled(MOODLE_DOCS[0], 10), 9004: 10.0}, result
    assert set(result.feedback) == {9001, 9004}, result
    assert 9003 not in result.grades and 9003 not in result.feedback


@pytest.mark.parametrize("lang", ["en", "es"])
def test_moodle_oracle_skips_a_raw_score_above_the_maximum(lang: str) -> None:
    """process_import_grades: a grade above the assignment's maximum is skipped ("out of
    range"), the worksheet's Maximum grade column is not read: the oracle catches raw points."""
    text = moodle.moodle_worksheet(MOODLE_DOCS, 23, lang)  # Bo's 23 of 23, not scaled to 10
    assert import_worksheet(text, moodle_assignment(lang)).skipped[9004] == "out of range"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_fresh_moodle_worksheet_is_headed_in_the_sites_language(lang: str) -> None:
    """importgradeslib.php `init`: a worksheet headed in another language is refused
    (`invalidgradeimport`); in the site's own, every graded participant imports."""
    text = moodle.moodle_worksheet(MOODLE_DOCS, 10, lang)
    other = "es" if lang == "en" else "en"
    with pytest.raises(InvalidGradeImport):
        import_worksheet(text, moodle_assignment(other))
    result = import_worksheet(text, moodle_assignment(lang))
    assert set(result.grades) == {9001, 9004} and 9003 not in result.feedback, result


def test_spanish_identifiers_are_participante_and_the_number() -> None:
    """assign_grading_table::col_recordid writes hiddenuser + id; the Spanish pack's hiddenuser
    is "Participante" (no space), so `next` cuts 12 bytes."""
    text = moodle.moodle_worksheet(MOODLE_DOCS, 10, "es")
    assert [r["Identificador"] for r in rows(text)] == ["Participante200001", "Participante200004"]
    assert rows(text)[1]["Calificación"] == "10"


def test_points_that_contradict_the_worksheet_are_refused() -> None:
    with pytest.raises(fill_in.GradebookError, match="differs"):
        fill_in.check(raw("moodle_worksheet_en.csv"), "w.csv", "lab01_graph", 58, None)


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
    assert rows(canvas.canvas_csv([doc], "Lab (1)", 10))[0]["Student"].startswith("'")
