"""Gradebook rows from score documents: the class CSV, and the cells every LMS's gradebook shares.

Trusted side. class.csv has one row per submission; the cells here (a text cell no spreadsheet
runs, a score scaled to the assignment's points, the one-line comment, the graded documents of
one LMS) are what each LMS target's gradebook is written with (`grader.results.lms.canvas`,
`grader.results.lms.moodle`: their files written fresh, or filled into the LMS's own export).
Either way a student the grader has no score for is left out, never blanked and never 0: a
blank Canvas cell over an existing grade removes that grade on upload
(ui/features/gradebook_uploads/jquery/process_gradebook_upload.js,
`populateGradeDataPerSubmission` posts `posted_grade: ''`), and Moodle imports a row's comment
even when its grade is blank (mod/assign/feedback/offline/locallib.php,
`process_import_grades`), which would replace the comment the student has.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from grader.results.i18n import Catalogue, format_number
from grader.results.messages import localise
from grader.results.render import environment
from grader.results.rounding import rounded_total
from grader.results.score_document import (
    Document,
    ScoreDocument,
    as_document,
    to_json,
)
from grader.results.semester_note import SEMESTER_COLUMNS, note_lines, semester_cells

__all__ = ["CLASS_COLUMNS", "FORMULA_START", "class_csv", "comment", "graded_of", "one_line",
           "rows_csv", "scaled", "text_cell"]

CLASS_COLUMNS = ("submission", "student_id", "name", "lab", "status", "score", "max_score",
                 "pitfalls", "reason", "late", *SEMESTER_COLUMNS)
# A cell a spreadsheet would run as a formula (CSV injection) is kept as text.
COMMENT_TEMPLATE = "platforms/gradebook_comment.txt.j2"  # a row's comment, one line
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value: Any) -> str:
    """A text cell that no spreadsheet runs as a formula."""
    text = " ".join(str(value).split())
    return "'" + text if text.startswith(FORMULA_START) else text


def one_line(text: str) -> str:
    """Text on one line (newlines and runs of spaces become one space)."""
    return " ".join(text.split())


def scaled(doc: Document, out_of: float) -> float:
    """The document's score as points out of `out_of`, to two decimals (what both LMSs show),
    rounded once as every platform rounds it (grader.results.rounding.rounded_total); the grade
    that counts when the semester's ledger gave one (after the penalty and any override)."""
    typed = as_document(doc)
    score = typed.semester.counted_score if typed.semester else typed.score
    return float(rounded_total(score, typed.max_score, out_of))


def comment(doc: Document, templates: Path | None = None) -> str:
    """The one-line comment of a row, in the document's language (`templates`: a course's
    overrides)."""
    typed = as_document(doc)
    catalogue = Catalogue.load(typed.lang)
    localised = localise(typed, catalogue)
    text = environment(templates).get_template(COMMENT_TEMPLATE).render(
        doc=to_json(localised), t=catalogue.text,
        lang=catalogue.lang, failed=sum(c.status != "passed" for c in localised.checks),
        total=len(localised.checks), pitfalls=", ".join(localised.pitfalls),
        semester_note=note_lines(typed.semester, catalogue))
    return one_line(text)


def rows_csv(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def class_csv(docs: Sequence[Document]) -> str:
    """class.csv: one row per submission; scores blank and a reason when not graded; `late`
    "yes" when the LMS marked the submission late (no penalty applied)."""
    rows = []
    for doc in docs:
        typed = as_document(doc)
        record = typed.submission
        graded = typed.graded
        reason = "" if graded or typed.reason is None else one_line(typed.reason.text)
        rows.append([text_cell(record.id), text_cell(_or_blank(record.student_id)),
                     text_cell(_or_blank(record.name)), typed.lab, typed.status,
                     format_number(typed.score) if graded else "",
                     format_number(typed.max_score) if graded else "",
                     " ".join(typed.pitfalls), text_cell(reason),
                     "yes" if record.late else "",  # as the LMS marked it
                     *semester_cells(typed.semester)])
    return rows_csv(CLASS_COLUMNS, rows)


def graded_of(docs: Iterable[Document], lms: str) -> list[ScoreDocument]:
    """The graded documents of one LMS's students: the only ones a gradebook file may change."""
    typed = [as_document(doc) for doc in docs]
    return [doc for doc in typed if doc.graded
            and doc.submission.lms == lms and doc.submission.student_id]


def _or_blank(value: str | None) -> str:
    """An optional field's text, blank when the document leaves it out."""
    return "" if value is None else value
