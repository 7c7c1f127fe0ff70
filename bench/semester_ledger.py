"""Print how long the semester ledger takes to write, open (checked whole) and grade a large course.

Usage: python bench/semester_ledger.py [STUDENTS]   (default 1000)
Appends four labs' attempts for STUDENTS students (three attempts each, in runs of 100 rows,
one transaction and one backup copy each, as `semester record` writes them), then times opening
the ledger (integrity check and the whole hash chain) and computing every counted grade.
"""

from __future__ import annotations

import datetime
import sys
import tempfile
import time
from pathlib import Path

from grader.semester.attempts import semester_grades
from grader.semester.ledger import Entry, open_ledger
from grader.semester.policy import Policy

LABS = ("lab01_graph", "lab02_ops", "lab03_backprop", "lab04_xor")
DUE = {lab: f"2026-{9 + i // 2:02d}-{14 if i % 2 == 0 else 28}T23:59:00Z" for i, lab in enumerate(LABS)}
RUN = 100


def attempts(students: int) -> list[Entry]:
    """Three attempts per student and lab: two and one day early, then a day late."""
    rows = []
    for lab in LABS:
        for attempt in range(3):
            due = datetime.datetime.fromisoformat(DUE[lab])
            moment = due + datetime.timedelta(days=1 if attempt == 2 else attempt - 2)
            when = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
            rows += [Entry("grade", f"{s:05d}", lab, submitted_at=when, score=50.0 + attempt,
                           max_score=100.0, doc_digest=f"sha256:{s}-{attempt}",
                           detail={"checks": {"c": "passed"}, "submission_digest": f"{s}-{attempt}"})
                     for s in range(students)]
    return rows


def main() -> None:
    """Print the figures."""
    students = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rows = attempts(students)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "course.ledger"
        started = time.perf_counter()
        with open_ledger(path) as ledger:
            for start in range(0, len(rows), RUN):
                ledger.append(rows[start:start + RUN], who="bench")
        written = time.perf_counter() - started
        started = time.perf_counter()
        ledger = open_ledger(path)
        opened = time.perf_counter() - started
        started = time.perf_counter()
        grades = semester_grades(ledger.entries(), Policy(due=DUE, penalty_percent=10,
                                                          penalty_cap_percent=30, late_days=1))
        graded = time.perf_counter() - started
        ledger.close()
        size = path.stat().st_size
    print(f"{len(rows)} rows ({students} students x 4 labs x 3 attempts) in {len(rows) // RUN} "
          f"transactions: {written:.2f} s ({written / (len(rows) // RUN) * 1000:.1f} ms each, "
          f"backup included); file {size / 1e6:.1f} MB")
    print(f"open and check (integrity, hash chain): {opened:.2f} s; "
          f"{len(grades)} counted grades: {graded:.2f} s")


if __name__ == "__main__":
    main()
