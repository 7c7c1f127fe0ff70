"""The counted grades as CSV: one row per student and lab, with the sentence that explains it.

Side: trusted process. The columns are for programs (fixed English names, numbers with a point);
the note is in the reader's language: the lateness, the extension, the instructor's adjustment.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from grader.results.i18n import Catalogue, format_number
from grader.results.semester_note import note_lines
from grader.semester.annotation import section_of
from grader.semester.attempts import Grade
from grader.semester.late import describe

COLUMNS = ("student", "lab", "attempts", "counted_submission", "submitted_at", "score",
           "max_score", "penalty_percent", "grade", "note")


def note(grade: Grade, catalogue: Catalogue) -> str:
    """What the grade's reader needs to know: lateness, extension, overrides (as the feedback says)."""
    if grade.counted is not None:
        return "; ".join(note_lines(section_of(grade, grade.counted), catalogue, with_counted=False))
    parts = [catalogue.text("semester.grades.none_accepted")]
    if grade.late is not None:
        parts.append(describe(grade.late, catalogue))
    if grade.extension is not None:
        parts.append(catalogue.text("semester.grades.extension", until=grade.extension.until,
                                    reason=grade.extension.reason))
    if grade.override is not None:
        parts.append(catalogue.text(
            "semester.grades.override", who=grade.override.who,
            reason=str(grade.override.detail.get("reason", "")), was="0"))
    return "; ".join(parts)


def grades_csv(grades: Sequence[Grade], catalogue: Catalogue) -> str:
    """The grades as CSV text."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for grade in grades:
        counted = grade.counted
        writer.writerow([
            grade.student, grade.lab, grade.attempts,
            counted.row.detail.get("submission_id", "") if counted else "",
            (counted.row.submitted_at or "") if counted else "",
            format_number(grade.score), format_number(grade.max_score),
            format_number(grade.late.percent) if grade.late and counted else "0",
            format_number(grade.final), note(grade, catalogue)])
    return text.getvalue()
