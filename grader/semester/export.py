"""The counted grades into the LMS's gradebook files (Canvas's import CSV, Moodle's worksheet).

Side: trusted process. Each student's counted attempt's score document, its score replaced by
the grade the policy gives (or the instructor's override), goes through the same writers `grade`
uses (the LMS target's fresh gradebook, `grader.results.lms.registry`, or
`grader.results.lms.fill_in` to fill in the gradebook the LMS exported, never blanking a grade the
LMS has). A student with no accepted attempt is left out:
the LMS keeps whatever it has.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from grader.results.lms import fill_in
from grader.results.lms.registry import target_named
from grader.results.score_document import ScoreDocument, Submission, parse, parse_record, to_json
from grader.semester.attempts import Grade
from grader.semester.recording import document_digest


class ExportRefused(ValueError):
    """A counted attempt whose document is gone or changed since it was recorded."""


def final_document(grade: Grade, lms: str) -> ScoreDocument | None:
    """The counted attempt's document with the final grade as its score, for `lms`; None when
    no attempt was accepted."""
    if grade.counted is None:
        return None
    entry = grade.counted.graded
    path = Path(entry.doc_path or "")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ExportRefused(f"{path}: the document of {grade.student}'s counted attempt cannot "
                            f"be read ({exc.strerror})") from None
    if document_digest(raw) != entry.doc_digest:
        raise ExportRefused(f"{path}: the document of {grade.student}'s counted attempt changed "
                            "since it was recorded")
    doc = parse(json.loads(raw))
    submission = parse_record(Submission, {**to_json(doc.submission), "lms": lms,
                                           "student_id": grade.student})
    return dataclasses.replace(doc, score=grade.final, submission=submission)


def gradebook_text(grades: Sequence[Grade], lms: str, points: float,
                   canvas_column: str | None, lang: str,
                   download: Path | None = None) -> str:
    """The gradebook file of `lms` holding the final grades (out of `points`)."""
    docs = [doc for grade in grades if (doc := final_document(grade, lms)) is not None]
    if download is not None:
        return fill_in.fill(download.read_bytes(), download.name, docs, grades[0].lab, points,
                            canvas_column).text
    target = target_named(lms)
    if target is None:  # argparse offers only the targets' names
        raise ExportRefused(f"{lms} is not an LMS the grader writes a gradebook for")
    settings = {"points": points, "canvas_column": canvas_column, "gradebook": None}
    return target.fresh_gradebook(docs, settings, lang) or ""  # the command line asks a column
