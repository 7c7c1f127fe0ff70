"""Gradebook files from score documents: the class CSV, Canvas's import CSV, Moodle's worksheet.

Trusted side. A submission that was not graded is left blank, never 0, with a one-line reason:
both LMSs skip a blank grade on import and keep what the gradebook had.

- Canvas (app/models/gradebook_importer.rb in instructure/canvas-lms): the header starts with
  `Student`, `ID`, then optional `SIS User ID` and `SIS Login ID`, and `Section` must close the
  student columns; each further column is an assignment, matched by the id in `Title (id)` or
  else by title (an unknown title creates an assignment). Students are matched by `ID`, the
  Canvas user id the bulk download names. A blank cell is "no score" and changes nothing. The
  importer has no comment column (any other header becomes an assignment), so the reason of a
  blank row is in class.csv and in the student's feedback.
- Moodle (mod/assign/feedback/offline, importgradeslib.php): the worksheet needs `Identifier`
  ("Participant N", N the participant id of the download's folder names), `Grade` and
  `Last modified (grade)` (an older date than Moodle's own grade skips the row), and takes
  `Feedback comments`; a blank grade is skipped, its comment still imported. Headers are the
  English ones Moodle writes; a Moodle in another language names them in that language.
"""

from __future__ import annotations

import csv
import datetime
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from grader.i18n import Catalogue, format_number
from grader.messages import localise_document
from grader.render import environment

CLASS_COLUMNS = ("submission", "student_id", "name", "lab", "status", "score", "max_score",
                 "pitfalls", "reason")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                  "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
                  "Feedback comments")
MOODLE_IDENTIFIER = "Participant {participant}"
# A cell a spreadsheet would run as a formula (CSV injection) is kept as text.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value: Any) -> str:
    """A text cell that no spreadsheet runs as a formula."""
    text = " ".join(str(value).split())
    return "'" + text if text.startswith(FORMULA_START) else text


def one_line(text: str) -> str:
    """Text on one line (newlines and runs of spaces become one space)."""
    return " ".join(text.split())


def points(doc: Mapping[str, Any], out_of: float | None) -> str:
    """The grade cell: the score (scaled to `out_of` points when given), '' when not graded."""
    if doc["status"] != "graded":
        return ""
    if out_of is None:
        return format_number(doc["score"])
    share = doc["score"] / doc["max_score"] if doc["max_score"] else 0.0
    return format_number(round(share * out_of, 2))


def comment(doc: Mapping[str, Any]) -> str:
    """The one-line comment of a row, in the document's language."""
    catalogue = Catalogue.load(doc["lang"])
    localised = localise_document(doc, catalogue)
    checks = localised["checks"]
    text = environment().get_template("platforms/gradebook_comment.txt.j2").render(
        doc=localised, t=catalogue.text, lang=catalogue.lang, failed=sum(c["status"] != "passed" for c in checks),
        total=len(checks), pitfalls=", ".join(localised["pitfalls"]))
    return one_line(text)


def _rows_csv(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def class_csv(docs: Sequence[Mapping[str, Any]]) -> str:
    """class.csv: one row per submission; scores blank and a reason when not graded."""
    rows = []
    for doc in docs:
        record = doc["submission"]
        graded = doc["status"] == "graded"
        reason = "" if graded else one_line((doc.get("reason") or {}).get("text", ""))
        rows.append([text_cell(record["id"]), text_cell(record.get("student_id", "")),
                     text_cell(record.get("name", "")), doc["lab"], doc["status"],
                     format_number(doc["score"]) if graded else "",
                     format_number(doc["max_score"]) if graded else "",
                     " ".join(doc["pitfalls"]), text_cell(reason)])
    return _rows_csv(CLASS_COLUMNS, rows)


def canvas_csv(docs: Sequence[Mapping[str, Any]], column: str, out_of: float | None = None) -> str:
    """Canvas's gradebook import CSV for the documents of Canvas submissions."""
    rows = [[text_cell(doc["submission"].get("name", "")), doc["submission"]["student_id"],
             "", "", "", points(doc, out_of)]
            for doc in docs if doc["submission"].get("lms") == "canvas"
            and str(doc["submission"].get("student_id", "")).isdigit()]
    return _rows_csv([*CANVAS_COLUMNS, column], rows)


def _moodle_date(graded_at: str) -> str:
    moment = datetime.datetime.strptime(graded_at, "%Y-%m-%dT%H:%M:%SZ")
    # ISO 8601 with its offset: PHP's strtotime, which the importer calls, reads it.
    return moment.replace(tzinfo=datetime.UTC).isoformat()


def moodle_worksheet(docs: Sequence[Mapping[str, Any]], out_of: float | None = None) -> str:
    """Moodle's offline grading worksheet for the documents of Moodle submissions."""
    rows = []
    for doc in docs:
        record = doc["submission"]
        if record.get("lms") != "moodle":
            continue
        maximum = out_of if out_of is not None else doc["max_score"]
        rows.append([MOODLE_IDENTIFIER.format(participant=record["student_id"]),
                     text_cell(record.get("name", "")), "", "", points(doc, out_of),
                     format_number(maximum) if doc["status"] == "graded" else "", "Yes", "",
                     _moodle_date(doc["graded_at"]), text_cell(comment(doc))])
    return _rows_csv(MOODLE_COLUMNS, rows)
