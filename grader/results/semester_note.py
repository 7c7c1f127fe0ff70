"""The semester's note on a score document: lateness, penalty, the grade that counts, the instructor's adjustments.

Side: trusted process (renders data, runs nothing). `python -m grader semester` (and `grade
--ledger`) adds a `semester` section to a document: language-free facts (the time, seconds
late, late days used, the percent taken off, the score after it, extensions and overrides with
who and why). This module turns the section into sentences in the reader's language, for the
feedback templates (`templates/partials/semester_note.*.j2`), class.csv and the dashboard.
"""

from __future__ import annotations

import math

from grader.results.i18n import Catalogue, format_number
from grader.results.score_document import Lateness, Semester

TIME_STATUSES = ("on_time", "late", "time_unknown", "not_accepted")
# class.csv's columns of the semester (blank without a ledger): for programs, numbers with a point.
SEMESTER_COLUMNS = ("submitted_at", "time_status", "late_by_hours", "penalty_percent",
                    "counted_score")


def duration_text(seconds: float, catalogue: Catalogue) -> str:
    """`1 day 3 h`, `5 h 1 min`, `40 min`: the lateness rounded up to the minute, in the reader's words."""
    minutes = math.ceil(seconds / 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = []
    if days:
        parts.append(catalogue.text("semester.late.days", days=str(days)))
    if hours:
        parts.append(catalogue.text("semester.late.hours", hours=str(hours)))
    if minutes or not parts:
        parts.append(catalogue.text("semester.late.minutes", minutes=str(minutes)))
    return " ".join(parts)


def time_status(late: Lateness) -> str:
    """One of TIME_STATUSES for a lateness record (`seconds` None: the time is unknown)."""
    if late.seconds is None:
        return "time_unknown"
    if not late.accepted:
        return "not_accepted"
    return "late" if late.seconds > 0 else "on_time"


def lateness_sentence(late: Lateness, catalogue: Catalogue) -> str:
    """"late by 1 day 3 h: -10%": what the policy made of an attempt's time, in the reader's language."""
    if late.seconds is None:  # time_status: time_unknown
        if late.percent:  # the policy's rule for an LMS late flag without a time
            return catalogue.text("semester.late.unknown_penalised",
                                  percent=format_number(late.percent, catalogue.lang))
        key = "semester.late.unknown_marked_late" if late.lms_late else "semester.late.unknown"
        return catalogue.text(key)
    status = time_status(late)
    if status == "on_time":
        return catalogue.text("semester.late.on_time")
    duration = duration_text(late.seconds, catalogue)
    if status == "not_accepted":
        return catalogue.text("semester.late.cut_off", duration=duration)
    used = late.late_days_used
    params = {"duration": duration, "percent": format_number(late.percent, catalogue.lang),
              "days": str(used)}
    key = "semester.late.penalty"
    if used:
        key = "semester.late.penalty_late_days" if late.percent else "semester.late.late_days_only"
    text = catalogue.text(key, **params)
    return text + catalogue.text("semester.late.capped_suffix") if late.capped else text


def _status(status: str, catalogue: Catalogue) -> str:
    """A check's status in the reader's words (`absent`: the check was not in that grading)."""
    key = f"ui.check_status.{status}"
    return catalogue.text(key) if catalogue.has(key) else status


def note_lines(section: Semester | None, catalogue: Catalogue,
               with_counted: bool = True) -> list[str]:
    """The semester's sentences for one document's `semester` section (none without one); the
    last says the grade that counts (`with_counted`). The extension and the overrides are the
    free-form objects the schema leaves them (`{until, reason}`, `{who, reason, score}`,
    `{check, status, was, who, reason}`: grader.semester.annotation.section_of writes them)."""
    if section is None:
        return []
    lang = catalogue.lang
    lines = [lateness_sentence(section.late, catalogue)]
    extension = section.extension
    if extension:
        lines.append(catalogue.text("semester.grades.extension", until=extension["until"],
                                    reason=extension["reason"]))
    for change in section.check_overrides:
        lines.append(catalogue.text("semester.note.check_override", check=change["check"],
                                    status=_status(change["status"], catalogue),
                                    was=_status(change["was"], catalogue), who=change["who"],
                                    reason=change["reason"]))
    override = section.override
    if override:
        lines.append(catalogue.text("semester.grades.override", who=override["who"],
                                    reason=override["reason"],
                                    was=format_number(section.score, lang)))
    if not with_counted:
        return lines
    if section.counts:
        lines.append(catalogue.text("semester.note.counted", score=format_number(
            section.counted_score, lang), max_score=format_number(section.max_score, lang)))
    else:
        lines.append(catalogue.text("semester.note.not_counted"))
    return lines


def semester_cells(section: Semester | None) -> list[str]:
    """class.csv's SEMESTER_COLUMNS for a document's section (blank cells without one)."""
    if section is None:
        return [""] * len(SEMESTER_COLUMNS)
    late = section.late
    seconds = late.seconds
    return [section.submitted_at or "", time_status(late),
            format_number(round(seconds / 3600, 2)) if seconds and seconds > 0 else "",
            format_number(late.percent), format_number(section.counted_score)]
