"""The late penalty of one attempt: how late, the late days it uses, the percent taken off, its sentence.

Side: trusted process. Pure functions of the policy and the times: each started unit (day or
hour) late costs `penalty_percent`, up to `penalty_cap_percent`; a student's late days cover
whole started days first; an attempt later than `cutoff_hours` after its due date is not
accepted. An attempt whose time is unknown gets no penalty (or, if the policy says
`unknown_time = "cap_if_marked_late"`, the cap when the LMS marks it late), and its sentence says so.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from grader.results.i18n import Catalogue
from grader.results.score_document import Lateness as LatenessRecord
from grader.results.semester_note import lateness_sentence
from grader.semester.policy import UNITS, Policy, parse_time

DAY = 86400


@dataclass(frozen=True)
class Lateness:
    """What the policy makes of one attempt's time."""

    seconds: float | None  # after the (extended) due date; None: time unknown; <= 0: on time
    late_days_used: int = 0
    percent: float = 0.0
    capped: bool = False
    accepted: bool = True
    lms_late: bool | None = None  # the LMS's own flag, shown when the time is unknown

    @property
    def is_late(self) -> bool:
        """Known to be after the due date (an unknown time is not known to be late)."""
        return self.seconds is not None and self.seconds > 0


def lateness(policy: Policy, due: str, submitted_at: str | None, late_days_left: int,
             lms_late: bool | None = None) -> Lateness:
    """The lateness of an attempt submitted at `submitted_at` against `due` (ISO 8601 UTC)."""
    if submitted_at is None:  # nothing is guessed; the policy's rule for an LMS late flag
        marked = bool(lms_late) and policy.unknown_time == "cap_if_marked_late"
        return Lateness(None, percent=policy.penalty_cap_percent if marked else 0.0,
                        lms_late=lms_late)
    seconds = (parse_time(submitted_at) - parse_time(due)).total_seconds()
    if seconds <= 0:
        return Lateness(seconds)
    if policy.cutoff_hours is not None and seconds > policy.cutoff_hours * 3600:
        return Lateness(seconds, accepted=False)
    used = min(late_days_left, math.ceil(seconds / DAY))
    remaining = max(0.0, seconds - used * DAY)
    units = math.ceil(remaining / UNITS[policy.penalty_per])
    percent = units * policy.penalty_percent
    capped = percent > policy.penalty_cap_percent
    return Lateness(seconds, used, min(percent, policy.penalty_cap_percent), capped)


def penalised(score: float, late: Lateness) -> float:
    """The score after the penalty (a share of the score earned); 0 when not accepted."""
    if not late.accepted:
        return 0.0
    return round(score * (1 - late.percent / 100), 6)


def record(late: Lateness) -> LatenessRecord:
    """The lateness as a document's `semester` section keeps it (language-free): its typed record."""
    return LatenessRecord(**asdict(late))


def describe(late: Lateness, catalogue: Catalogue) -> str:
    """The sentence the student and the class CSV read about the attempt's time."""
    return lateness_sentence(record(late), catalogue)
