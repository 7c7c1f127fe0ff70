"""A regrade's diff: for each student, the recorded score and checks against the new document's.

Side: trusted process. A new document is matched to the attempt of the same student whose
submission has the same digest (the same code graded again); its diff names the old score, the
new score and every check whose status changed, so no score moves without a line saying why.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.common.atomic import write_atomically
from grader.common.labs import Lab
from grader.results.i18n import Catalogue, format_number
from grader.results.report_folder import REGRADE_DIFF
from grader.semester.attempts import Attempt, attempts_by_student
from grader.semester.ledger import Entry
from grader.semester.recording import StoredDocument, checks_of, entry_of

DIFF_FILE = REGRADE_DIFF  # a name of the report folder: no student folder takes it


@dataclass(frozen=True)
class Change:
    """One regraded submission: its attempt before, its new document, and what moved."""

    attempt: Attempt
    document: StoredDocument
    checks: tuple[tuple[str, str, str], ...]  # (check id, old status, new status)

    @property
    def old_score(self) -> float:
        """The score recorded before."""
        return self.attempt.graded.score or 0.0

    @property
    def new_score(self) -> float:
        """The score of the new document."""
        return float(self.document.doc.score)

    @property
    def old_max(self) -> float:
        """The maximum recorded before."""
        return self.attempt.graded.max_score or 0.0

    @property
    def new_max(self) -> float:
        """The maximum of the new document."""
        return float(self.document.doc.max_score)

    @property
    def moved(self) -> bool:
        """Whether the score, the maximum or any check's status changed."""
        return bool(self.checks) or (self.old_score, self.old_max) != (self.new_score, self.new_max)


@dataclass(frozen=True)
class Regrade:
    """Every new document of a regrade: matched to its attempt, or unmatched (never recorded)."""

    changes: tuple[Change, ...]
    unmatched: tuple[StoredDocument, ...]


def changed_checks(old: dict[str, str], new: dict[str, str]) -> tuple[tuple[str, str, str], ...]:
    """The checks whose status differs (a check only one side has: status 'absent' on the other)."""
    return tuple((check, old.get(check, "absent"), new.get(check, "absent"))
                 for check in sorted(set(old) | set(new)) if old.get(check) != new.get(check))


def compare(entries: Sequence[Entry], lab: str, documents: Sequence[StoredDocument]) -> Regrade:
    """Match each new document to its student's attempt of the same submission and diff them."""
    attempts = attempts_by_student(entries, lab)
    changes, unmatched = [], []
    for document in documents:
        digest = document.doc.submission.digest
        same = [a for a in attempts.get(document.student, [])
                if a.row.detail.get("submission_digest") == digest]
        if not same:
            unmatched.append(document)
            continue
        attempt = same[-1]
        changes.append(Change(attempt, document, changed_checks(
            attempt.graded.detail.get("checks", {}), checks_of(document.doc))))
    return Regrade(tuple(changes), tuple(unmatched))


def regrade_entries(lab: Lab, regrade: Regrade, seed: str, base: Path) -> list[Entry]:
    """The `regrade` rows of every matched document (each keeps its attempt's time and flag)."""
    rows = []
    for change in regrade.changes:
        entry = entry_of(lab, change.document, seed, change.attempt.row.submitted_at, base,
                         kind="regrade", regrades=change.attempt.row.seq,
                         time_source=change.attempt.row.detail.get("time_source"))
        rows.append(entry)
    return rows


def diff_lines(regrade: Regrade, catalogue: Catalogue) -> list[str]:
    """One line per student whose score or checks moved, then the unchanged and unmatched counts."""
    lang = catalogue.lang
    lines = []
    for change in regrade.changes:
        if not change.moved:
            continue
        checks = "; ".join(catalogue.text("semester.regrade.check", check=check, old=old, new=new)
                           for check, old, new in change.checks)
        lines.append(catalogue.text(
            "semester.regrade.line", student=change.document.student,
            old=format_number(change.old_score, lang), new=format_number(change.new_score, lang),
            old_max=format_number(change.old_max, lang), max=format_number(change.new_max, lang),
            checks=checks or catalogue.text("semester.regrade.no_check")))
    unchanged = sum(not change.moved for change in regrade.changes)
    lines.append(catalogue.text("semester.regrade.summary", moved=str(len(regrade.changes) - unchanged),
                                unchanged=str(unchanged)))
    if regrade.unmatched:
        lines.append(catalogue.text("semester.regrade.unmatched", count=str(len(regrade.unmatched)),
                                    students=", ".join(d.student for d in regrade.unmatched)))
    return lines


def diff_csv(regrade: Regrade) -> str:
    """The diff as CSV, one row per moved student: old and new score and maximum, the checks."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["student", "submission", "old_score", "old_max_score", "new_score",
                     "max_score", "changed_checks"])
    for change in regrade.changes:
        if change.moved:
            writer.writerow([change.document.student, change.document.doc.submission.id,
                             format_number(change.old_score), format_number(change.old_max),
                             format_number(change.new_score), format_number(change.new_max),
                             " ".join(f"{c}:{o}->{n}" for c, o, n in change.checks)])
    return text.getvalue()


def write_diff(regrade: Regrade, out_dir: Path) -> Path:
    """Write the diff's CSV beside the reports; its path."""
    path = out_dir / DIFF_FILE
    write_atomically(path, diff_csv(regrade))
    return path
