"""Which attempt counts: a student's attempts per lab from the ledger, the policy applied, one grade each.

Side: trusted process. A `grade` row is an attempt; a `regrade` row replaces the score of the
attempt it names (`detail.regrades`, that attempt's row); an `extension` row (or the policy's
[[extension]]) moves a student's due date; an `override` row sets the final grade, keeping the
grader's, or (with `detail.check`) one check's status, which moves every attempt's score by that
check's points. Labs are taken in due-date order, so late days are spent on the earliest labs first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from grader.semester.late import Lateness, lateness, penalised
from grader.semester.ledger import Entry
from grader.semester.policy import Extension, Policy, PolicyError


@dataclass(frozen=True)
class Attempt:
    """One graded submission of a student for a lab, with its latest (re)grading."""

    row: Entry  # the `grade` row that recorded it
    graded: Entry  # that row, or the latest `regrade` of it

    @property
    def when(self) -> str:
        """Its time, as the platform gave it, else when it was recorded (for ordering only)."""
        return self.row.submitted_at or self.row.at


@dataclass(frozen=True)
class Grade:
    """A student's grade for a lab under the policy."""

    student: str
    lab: str
    attempts: int
    counted: Attempt | None  # None: no attempt was accepted
    late: Lateness | None
    score: float  # the counted attempt's score, before the penalty
    max_score: float
    final: float  # after the penalty, or the override
    override: Entry | None = None
    extension: Extension | None = None
    # every attempt's lateness and its score after check overrides and penalty, by grade row seq
    each: dict[int, tuple[Lateness, float]] = field(default_factory=dict)
    check_overrides: tuple[Entry, ...] = ()


def check_override_delta(attempt: Attempt, overrides: Sequence[Entry]) -> float:
    """The points the instructor's check overrides move an attempt's score by: a check set to
    passed gains its points where it had not passed; set to anything else, it loses them where it
    had (the latest override of each check wins)."""
    statuses = attempt.graded.detail.get("checks", {})
    latest = {o.detail["check"]: o for o in overrides}
    delta = 0.0
    for check, override in latest.items():
        was, now = statuses.get(check), override.detail["status"]
        if was is None or (was == "passed") == (now == "passed"):
            continue
        # the check's points in this grading (a regrade may weigh it differently), else as
        # the override found them
        points = float(attempt.graded.detail.get("check_points", {}).get(
            check, override.detail["points"]))
        delta += points if now == "passed" else -points
    return delta


def attempt_score(attempt: Attempt, overrides: Sequence[Entry]) -> float:
    """An attempt's score with the instructor's check overrides applied (before any penalty)."""
    return (attempt.graded.score or 0.0) + check_override_delta(attempt, overrides)


def attempts_by_student(entries: Sequence[Entry], lab: str) -> dict[str, list[Attempt]]:
    """Each student's attempts at `lab`, in the order recorded, regrades applied."""
    rows = [e for e in entries if e.lab == lab]
    latest = {e.detail["regrades"]: e for e in rows if e.kind == "regrade"}
    result: dict[str, list[Attempt]] = {}
    for row in rows:
        if row.kind == "grade":
            result.setdefault(row.student, []).append(Attempt(row, latest.get(row.seq, row)))
    return result


def extensions(entries: Sequence[Entry], policy: Policy) -> dict[tuple[str, str], Extension]:
    """The extension in force per (student, lab): the policy file's, then the ledger's, latest wins."""
    found = {(x.student, x.lab): x for x in policy.extensions}
    for entry in entries:
        if entry.kind == "extension":
            found[entry.student, entry.lab] = Extension(entry.student, entry.lab,
                                                        entry.detail["until"], entry.detail["reason"])
    return found


def _counted(policy: Policy, scored: list[tuple[Attempt, Lateness, float]]) -> int:
    """The index, in `scored` (accepted attempts, in time order), of the one that counts."""
    indices = range(len(scored))
    if policy.counts == "best":
        return max(indices, key=lambda i: (scored[i][2], i))
    if policy.counts == "last_before_deadline":
        on_time = [i for i in indices if not scored[i][1].is_late]
        return on_time[-1] if on_time else len(scored) - 1
    return len(scored) - 1


def grade_of(policy: Policy, due: str, attempts: list[Attempt], late_days_left: int,
             extension: Extension | None, check_overrides: Sequence[Entry] = ()) -> Grade:
    """The grade of one student's attempts at one lab (at least one attempt)."""
    first = attempts[0].row
    deadline = extension.until if extension else due
    ordered = sorted(attempts, key=lambda a: (a.when, a.row.seq))
    scored = []
    each = {}
    last_late = None
    for attempt in ordered:
        late = lateness(policy, deadline, attempt.row.submitted_at, late_days_left,
                        attempt.row.late)
        last_late = late
        each[attempt.row.seq] = (late, penalised(attempt_score(attempt, check_overrides), late))
        if late.accepted:
            scored.append((attempt, late, each[attempt.row.seq][1]))
    maximum = attempts[-1].graded.max_score or 0.0
    kept = tuple(check_overrides)
    if not scored:
        return Grade(first.student, first.lab, len(attempts), None, last_late, 0.0, maximum, 0.0,
                     extension=extension, each=each, check_overrides=kept)
    attempt, late, final = scored[_counted(policy, scored)]
    return Grade(first.student, first.lab, len(attempts), attempt, late,
                 attempt_score(attempt, check_overrides), attempt.graded.max_score or 0.0, final,
                 extension=extension, each=each, check_overrides=kept)


def semester_grades(entries: Sequence[Entry], policy: Policy) -> list[Grade]:
    """Every student's grade for every lab with an attempt, by student then due date."""
    labs = sorted({e.lab for e in entries if e.kind == "grade"}, key=lambda lab: (
        policy.due.get(lab, ""), lab))
    missing = [lab for lab in labs if lab not in policy.due]
    if missing:
        raise PolicyError(f"the policy gives no due date for {', '.join(missing)}")
    granted = extensions(entries, policy)
    overrides = {(e.student, e.lab): e for e in entries
                 if e.kind == "override" and "check" not in e.detail}
    check_overrides: dict[tuple[str, str], list[Entry]] = {}
    for entry in entries:
        if entry.kind == "override" and "check" in entry.detail:
            check_overrides.setdefault((entry.student, entry.lab), []).append(entry)
    by_lab = {lab: attempts_by_student(entries, lab) for lab in labs}
    students = sorted({student for attempts in by_lab.values() for student in attempts})
    grades = []
    for student in students:
        left = policy.late_days
        for lab in labs:
            attempts = by_lab[lab].get(student)
            if not attempts:
                continue
            grade = grade_of(policy, policy.due[lab], attempts, left, granted.get((student, lab)),
                             check_overrides.get((student, lab), ()))
            left -= grade.late.late_days_used if grade.late and grade.counted else 0
            override = overrides.get((student, lab))
            if override is not None:
                grade = replace(grade, override=override, final=override.score or 0.0)
            grades.append(grade)
    return grades
