"""The semester commands' guarantees through the command line: two `semester record` runs into
one ledger at once lose nothing; a damaged ledger is refused by every command, untouched; a
document graded with another seed, or an override out of range, is a usage error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from grader.semester.ledger import open_ledger

ROOT = Path(__file__).resolve().parents[2]
SEED = "commands"
LAB = "lab01_graph"


def grader(*words: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`python -m grader WORDS`, as an instructor runs it."""
    env = {**os.environ, "GRADER_LANG": "en"}
    return subprocess.run([sys.executable, "-m", "grader", *words], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The reference solution graded once; its document."""
    out = tmp_path_factory.mktemp("graded")
    done = grader("grade", LAB, f"solutions/{LAB}", "--out", str(out), "--seed", SEED,
                  "--workers", "1")
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads((out / LAB / "scores.json").read_text(encoding="utf-8"))
    return doc


def report_folder(folder: Path, doc: dict[str, Any], students: list[str]) -> Path:
    """A report folder holding the document under each student's id."""
    for student in students:
        (folder / student).mkdir(parents=True)
        copy = {**doc, "submission": {**doc["submission"], "id": student, "student_id": student}}
        (folder / student / "scores.json").write_text(json.dumps(copy), encoding="utf-8")
    return folder


def test_two_records_into_one_ledger_at_once_lose_nothing(graded: dict[str, Any],
                                                          tmp_path: Path) -> None:
    ledger = tmp_path / "course.ledger"
    folders = [report_folder(tmp_path / name, graded, [f"{name}{i:03d}" for i in range(150)])
               for name in ("a", "b")]
    env = {**os.environ, "GRADER_LANG": "en"}
    runs = [subprocess.Popen([sys.executable, "-m", "grader", "semester", "record", LAB,
                              str(folder), "--ledger", str(ledger), "--seed", SEED], cwd=ROOT,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for folder in folders]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    with open_ledger(ledger) as opened:
        students = sorted(e.student for e in opened.entries())
    assert students == sorted(f"{n}{i:03d}" for n in "ab" for i in range(150))


def test_a_damaged_ledger_is_refused_by_every_command_and_left_as_it_was(
        graded: dict[str, Any], tmp_path: Path) -> None:
    ledger = tmp_path / "course.ledger"
    for run in range(3):
        folder = report_folder(tmp_path / f"run{run}", graded, [f"r{run}-{i:03d}" for i in range(60)])
        assert grader("semester", "record", LAB, str(folder), "--ledger", str(ledger),
                      "--seed", SEED).returncode == 0
    kept = ledger.with_name("course.ledger.bak")
    with open_ledger(kept) as backup:
        assert len(backup.entries()) == 120  # the state before the last record
    with ledger.open("r+b") as handle:
        handle.truncate(ledger.stat().st_size // 2)
    damaged = ledger.read_bytes()
    for words in (["grades"], ["verify"], ["record", LAB, str(tmp_path / "run0"), "--seed", SEED],
                  ["extend", "r0-001", LAB, "--until", "2026-10-01T00:00:00Z", "--reason", "x"]):
        done = grader("semester", *words, "--ledger", str(ledger))
        assert done.returncode == 2, (words, done.stdout, done.stderr)
        assert f"ledger {ledger} is damaged" in done.stderr and str(kept) in done.stderr, done.stderr
        assert ledger.read_bytes() == damaged, words
    shutil.copy(kept, ledger)  # what the message says to do
    with open_ledger(ledger) as restored:
        assert len(restored.entries()) == 120


def test_documents_of_another_seed_are_refused(graded: dict[str, Any], tmp_path: Path) -> None:
    folder = report_folder(tmp_path / "run", graded, ["s1"])
    done = grader("semester", "record", LAB, str(folder), "--ledger", str(tmp_path / "l"),
                  "--seed", "another")
    assert done.returncode == 2 and "was not graded with this seed" in done.stderr, done.stderr


def test_an_override_outside_the_labs_range_is_refused(graded: dict[str, Any],
                                                       tmp_path: Path) -> None:
    ledger = tmp_path / "course.ledger"
    folder = report_folder(tmp_path / "run", graded, ["s1"])
    assert grader("semester", "record", LAB, str(folder), "--ledger", str(ledger),
                  "--seed", SEED).returncode == 0
    done = grader("semester", "override", "s1", LAB, "--score", "1000", "--reason", "x",
                  "--ledger", str(ledger))
    assert done.returncode == 2 and "outside 0..81" in done.stderr, done.stderr
    with open_ledger(ledger) as opened:
        assert [e.kind for e in opened.entries()] == ["grade"]
