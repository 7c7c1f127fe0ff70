"""`grade --ledger`: a class graded straight into the semester's ledger, by two real `grade`
processes at once, neither losing a row; a damaged ledger refused before anything is graded."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from grader.semester.ledger import open_ledger

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "lab01_graph"
POLICY = """
[semester]
penalty_percent = 10
penalty_cap_percent = 30

[due]
lab01_graph = "2026-09-14T23:59:00Z"
"""
# two classes (two sections graded by two processes): student -> submission
CLASSES = {"a": {"ana": ROOT / "solutions" / "lab01_graph", "ben": FIXTURES / "bfs-order"},
           "b": {"carla": FIXTURES / "grad-overwrite-in-add", "dan": ROOT / "solutions" / "lab01_graph"}}
TIMES = "student,submitted_at\nben,2026-09-16T02:59:00Z\ncarla,2026-09-14T20:00:00Z\n"


def grade(folder: Path, section: str, ledger: Path) -> subprocess.Popen[str]:
    """`python -m grader grade` of one section into the ledger, as an instructor runs it."""
    students = [str(folder / "submissions" / name) for name in CLASSES[section]]
    return subprocess.Popen(
        [sys.executable, "-m", "grader", "grade", "lab01_graph", *students, "--out",
         f"reports-{section}", "--seed", "course", "--workers", "1", "--ledger", str(ledger),
         "--policy", "semester.toml", "--times", "times.csv", "--by", "prof"],
        cwd=folder, env={**os.environ, "PYTHONPATH": str(ROOT), "GRADER_LANG": "en"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def course(tmp_path: Path) -> Path:
    """A course folder: the submissions, the policy and the times file."""
    for students in CLASSES.values():
        for name, source in students.items():
            shutil.copytree(source, tmp_path / "submissions" / name,
                            ignore=shutil.ignore_patterns("expected.toml", "__pycache__"))
    (tmp_path / "semester.toml").write_text(POLICY, encoding="utf-8")
    (tmp_path / "times.csv").write_text(TIMES, encoding="utf-8")
    return tmp_path


def test_two_grade_runs_writing_one_ledger_at_once_lose_nothing(tmp_path: Path) -> None:
    folder = course(tmp_path)
    ledger = folder / "course.ledger"
    open_ledger(ledger).close()
    # The test holds the ledger's write lock until both runs have graded every submission, so
    # both reach their transaction while the other's (here: the test's) is open, and wait.
    holder = sqlite3.connect(ledger, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    runs = {section: grade(folder, section, ledger) for section in CLASSES}
    deadline = time.monotonic() + 600
    while not all((folder / f"reports-{s}" / n / "scores.json").is_file()
                  for s in CLASSES for n in CLASSES[s]):
        assert time.monotonic() < deadline and all(r.poll() is None for r in runs.values()), {
            s: r.communicate() for s, r in runs.items() if r.poll() is not None}
        time.sleep(0.5)
    time.sleep(2)
    assert all(run.poll() is None for run in runs.values()), "a run did not wait for the ledger"
    holder.execute("ROLLBACK")
    holder.close()
    for section, run in runs.items():
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, (section, out[-2000:], err[-2000:])
        assert "Recorded 2 attempts of lab01_graph" in out, out
    with open_ledger(ledger) as kept:
        rows = kept.entries()
    grades = sorted((e.student, e.submitted_at) for e in rows if e.kind == "grade")
    assert grades == [("ana", None), ("ben", "2026-09-16T02:59:00Z"),
                      ("carla", "2026-09-14T20:00:00Z"), ("dan", None)]
    assert [e.kind for e in rows].count("policy") == 1  # the same policy is recorded once
    ben = json.loads((folder / "reports-a" / "ben" / "scores.json").read_text(encoding="utf-8"))
    assert ben["semester"]["late"]["percent"] == 20  # 1 day 3 h: two started days at 10%
    feedback = (folder / "reports-a" / "ben" / "feedback.md").read_text(encoding="utf-8")
    assert "late by 1 day 3 h: -20%" in feedback
    class_csv = (folder / "reports-b" / "class.csv").read_text(encoding="utf-8")
    assert "time_unknown" in class_csv and "on_time" in class_csv


def test_a_damaged_ledger_is_refused_before_anything_is_graded(tmp_path: Path) -> None:
    folder = course(tmp_path)
    ledger = folder / "course.ledger"
    ledger.write_bytes(b"not a ledger" * 100)
    run = grade(folder, "a", ledger)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 2, (out, err)
    assert "semester ledger:" in err and "refused" in err, err
    assert not (folder / "reports-a").exists()
