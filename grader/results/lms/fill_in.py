"""Filling in the gradebook an LMS exported: whichever target's file it is, its scores written in.

Side: trusted (class files). The instructor downloads the file from the LMS (Canvas: Grades,
Export; Moodle: the assignment's "Download grading worksheet") and the grader writes its scores
into it, so that headers, identifiers, column names, points and the file's dialect (delimiter,
BOM, line ends) stay exactly as the LMS wrote them (`grader.results.lms.sheet`). Which LMS's file
it is comes from its header; where the scores go is that LMS target's to say
(`grader.results.lms.canvas`, `grader.results.lms.moodle`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.results.gradebook import graded_of
from grader.results.lms.registry import TARGETS
from grader.results.lms.sheet import GradebookError, Sheet, read_sheet
from grader.results.lms.target import LmsTarget
from grader.results.score_document import Document

__all__ = ["Filled", "GradebookError", "absent", "check", "fill", "kind_of", "target_of"]


def target_of(sheet: Sheet) -> LmsTarget:
    """The target whose exported gradebook this is, from its header."""
    header = sheet.records[0][0]
    for target in TARGETS:
        if target.reads_gradebook(header):
            return target
    raise GradebookError("neither " + " nor ".join(t.gradebook_kind for t in TARGETS))


def kind_of(sheet: Sheet) -> str:
    """"canvas" or "moodle" (a target's name): which LMS's file this is, from its header."""
    return target_of(sheet).name


@dataclass(frozen=True)
class Filled:
    """A downloaded gradebook, filled in."""

    kind: str                 # canvas | moodle
    text: str
    absent: tuple[str, ...]   # graded students the file has no row for


def check(raw: bytes, label: str, lab: str, points: float | None,
          canvas_column_wanted: str | None) -> str:
    """Refuse, before grading, a gradebook that cannot be filled in; returns its kind."""
    sheet = read_sheet(raw, label)
    target = target_of(sheet)
    target.check_gradebook(sheet, lab, points, canvas_column_wanted)
    return target.name


def fill(raw: bytes, label: str, docs: Sequence[Document], lab: str,
         points: float | None, canvas_column_wanted: str | None,
         templates: Path | None = None) -> Filled:
    """The downloaded gradebook with the graded students' scores written in (`templates`: a
    course's overrides, for the comments)."""
    sheet = read_sheet(raw, label)
    target = target_of(sheet)
    absent = target.fill_gradebook(sheet, docs, lab, points, canvas_column_wanted, templates)
    return Filled(target.name, sheet.text(), tuple(absent))


def absent(raw: bytes, label: str, docs: Sequence[Document]) -> tuple[str, ...]:
    """The graded students the downloaded gradebook has no row for (it gives them no grade)."""
    sheet = read_sheet(raw, label)
    target = target_of(sheet)
    ids = target.gradebook_ids(sheet)
    graded = {str(doc.submission.student_id) for doc in graded_of(docs, target.name)}
    return tuple(sorted(graded - ids))
