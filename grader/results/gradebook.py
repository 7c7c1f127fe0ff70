"""Gradebook files from score documents: the class CSV, Canvas's import CSV, Moodle's worksheet.

Trusted side. These are the files written when no gradebook was downloaded from the LMS; with
one (`--gradebook FILE`), `grader.results.fill_in` fills in the LMS's own file instead. Either
way a student the grader has no score for is left out, never blanked and never 0: a blank Canvas
cell over an existing grade removes that grade on upload
(ui/features/gradebook_uploads/jquery/process_gradebook_upload.js,
`populateGradeDataPerSubmission` posts `posted_grade: ''`), and Moodle imports a row's comment
even when its grade is blank (mod/assign/feedback/offline/locallib.php,
`process_import_grades`), which would replace the comment the student has.

- Canvas (app/models/gradebook_importer.rb in instructure/canvas-lms, `header?`): the header
  starts with `Student`, `ID`, then optional `SIS User ID` and `SIS Login ID`, and `Section`
  must close the student columns; each further column is an assignment, matched by the id in
  `Title (id)` (`Assignment.title_and_id`) or else by exact title, else Canvas creates a new
  assignment: hence the column must be given as Canvas exports it. Students are matched by `ID`,
  the Canvas user id the bulk download names. The importer has no comment column.
- Moodle (`grader.results.moodle_strings`): headers in the site's language, `Identifier` as
  `get_string('hiddenuser')` + participant id, grades scaled to the assignment's maximum (the
  importer skips a grade above it) and written with the language's decimal separator.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from grader.results.i18n import Catalogue, format_number
from grader.results.messages import localise_document
from grader.results.moodle_strings import MOODLE_STRINGS
from grader.results.render import render_template
from grader.results.rounding import rounded_total
from grader.results.semester_note import SEMESTER_COLUMNS, note_lines, semester_cells

CLASS_COLUMNS = ("submission", "student_id", "name", "lab", "status", "score", "max_score",
                 "pitfalls", "reason", "late", *SEMESTER_COLUMNS)
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
# Assignment.title_and_id (app/models/assignment.rb): the column header that names an assignment.
CANVAS_TITLE_AND_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z", re.DOTALL)
# A cell a spreadsheet would run as a formula (CSV injection) is kept as text.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value: Any) -> str:
    """A text cell that no spreadsheet runs as a formula."""
    text = " ".join(str(value).split())
    return "'" + text if text.startswith(FORMULA_START) else text


def one_line(text: str) -> str:
    """Text on one line (newlines and runs of spaces become one space)."""
    return " ".join(text.split())


def scaled(doc: Mapping[str, Any], out_of: float) -> float:
    """The document's score as points out of `out_of`, to two decimals (what both LMSs show),
    rounded once as every platform rounds it (grader.results.rounding.rounded_total); the grade
    that counts when the semester's ledger gave one (after the penalty and any override)."""
    score = doc["semester"]["counted_score"] if doc.get("semester") else doc["score"]
    return float(rounded_total(score, doc["max_score"], out_of))


def comment(doc: Mapping[str, Any]) -> str:
    """The one-line comment of a row, in the document's language."""
    catalogue = Catalogue.load(doc["lang"])
    localised = localise_document(doc, catalogue)
    checks = localised["checks"]
    text = render_template(
        "platforms/gradebook_comment.txt.j2", doc=localised, t=catalogue.text, lang=catalogue.lang, failed=sum(c["status"] != "passed" for c in checks),
        total=len(checks), pitfalls=", ".join(localised["pitfalls"]),
        semester_note=note_lines(doc.get("semester"), catalogue))
    return one_line(text)


def _rows_csv(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def class_csv(docs: Sequence[Mapping[str, Any]]) -> str:
    """class.csv: one row per submission; scores blank and a reason when not graded; `late`
    "yes" when the LMS marked the submission late (no penalty applied)."""
    rows = []
    for doc in docs:
        record = doc["submission"]
        graded = doc["status"] == "graded"
        reason = "" if graded else one_line((doc.get("reason") or {}).get("text", ""))
        rows.append([text_cell(record["id"]), text_cell(record.get("student_id", "")),
                     text_cell(record.get("name", "")), doc["lab"], doc["status"],
                     format_number(doc["score"]) if graded else "",
                     format_number(doc["max_score"]) if graded else "",
                     " ".join(doc["pitfalls"]), text_cell(reason),
                     "yes" if record.get("late") else "",  # as the LMS marked it
                     *semester_cells(doc.get("semester"))])
    return _rows_csv(CLASS_COLUMNS, rows)


def graded_of(docs: Iterable[Mapping[str, Any]], lms: str) -> list[Mapping[str, Any]]:
    """The graded documents of one LMS's students: the only ones a gradebook file may change."""
    return [doc for doc in docs if doc["status"] == "graded"
            and doc["submission"].get("lms") == lms and doc["submission"].get("student_id")]


def canvas_csv(docs: Sequence[Mapping[str, Any]], column: str, out_of: float) -> str:
    """Canvas's gradebook import CSV: one row per graded Canvas student, scored out of `out_of`."""
    rows = [[text_cell(doc["submission"].get("name", "")), doc["submission"]["student_id"],
             "", "", "", format_number(scaled(doc, out_of))]
            for doc in graded_of(docs, "canvas") if str(doc["submission"]["student_id"]).isdigit()]
    return _rows_csv([*CANVAS_COLUMNS, column], rows)


def moodle_date(graded_at: str) -> str:
    """When the grade was set, as the worksheet's Last modified (grade): ISO 8601 with its offset,
    which PHP's strtotime (what the importer calls) reads in every site language."""
    moment = datetime.datetime.strptime(graded_at, "%Y-%m-%dT%H:%M:%SZ")
    return moment.replace(tzinfo=datetime.UTC).isoformat()


def moodle_worksheet(docs: Sequence[Mapping[str, Any]], out_of: float, lang: str = "en") -> str:
    """Moodle's grading worksheet, headed in `lang`, one row per graded Moodle participant."""
    words = MOODLE_STRINGS[lang]
    header = [words.recordid, words.fullname, words.status, words.gradenoun, words.maxgrade,
              words.gradecanbechanged, words.lastmodifiedsubmission, words.lastmodifiedgrade,
              words.feedbackcomments]
    rows = [[words.identifier(str(doc["submission"]["student_id"])),
             text_cell(doc["submission"].get("name", "")), "", words.number(scaled(doc, out_of)),
             words.number(out_of), words.yes, "", moodle_date(doc["graded_at"]),
             text_cell(comment(doc))]
            for doc in graded_of(docs, "moodle")]
    return _rows_csv(header, rows)
