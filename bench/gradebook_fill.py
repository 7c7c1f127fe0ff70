"""Print how long filling in an LMS's exported gradebook takes for a large class.

Usage: python bench/gradebook_fill.py [STUDENTS]   (default 5000)
Builds a Canvas gradebook export (20 assignment columns and the totals) and a Moodle grading
worksheet with STUDENTS rows, as the LMSs write them (tests/data/lms/README.md), gives every
other student a graded score document, and times `grader.results.fill_in.fill` on each (the
comment of every graded Moodle row is rendered from its document's template).
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

from grader.results.lms import fill_in

ROOT = Path(__file__).resolve().parents[1]


def _csv(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def canvas_export(students: int) -> bytes:
    """A Canvas gradebook export of `students` rows."""
    titles = [f"Lab {n:02d} ({4300 + n})" for n in range(1, 21)]
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *titles,
              "Current Score", "Final Score"]
    rows = [header, ["    Points Possible", "", "", "", "", *["10.00"] * 20, "(read only)",
                     "(read only)"]]
    rows += [[f"Student {i}", str(100000 + i), f"S{i}", f"s{i}", "A", *["7.00"] * 20, "70", "70"]
             for i in range(students)]
    return _csv(rows)


def moodle_worksheet(students: int) -> bytes:
    """A Moodle grading worksheet of `students` rows (English site)."""
    rows = [["Identifier", "Full name", "Status", "Grade", "Maximum grade",
             "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
             "Feedback comments"]]
    rows += [[f"Participant {200000 + i}", f"Student {i}", "Submitted", "7.00", "10.00", "Yes",
              "-", "-", ""] for i in range(students)]
    return _csv(rows)


def docs(students: int, lms: str, first_id: int) -> list[dict[str, Any]]:
    """A graded score document for every other student."""
    base = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    result = []
    for i in range(0, students, 2):
        doc = dict(base)
        doc["submission"] = {**base["submission"], "id": f"s{i}", "student_id": str(first_id + i),
                             "lms": lms}
        result.append(doc)
    return result


def main() -> None:
    """Time both fill-ins and print one line each."""
    students = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    for name, raw, graded, column in (
            ("Canvas export", canvas_export(students), docs(students, "canvas", 100000),
             "4307"),
            ("Moodle worksheet", moodle_worksheet(students), docs(students, "moodle", 200000),
             None)):
        started = time.perf_counter()
        filled = fill_in.fill(raw, name, graded, "lab01_graph", None, column)
        elapsed = time.perf_counter() - started
        print(f"{name}: {students} rows ({len(raw) >> 10} KiB), {len(graded)} graded filled in "
              f"{elapsed:.2f} s; {len(filled.absent)} absent")


if __name__ == "__main__":
    main()
