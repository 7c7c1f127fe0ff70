"""Each lab's fixture class (its buggy and correct fixtures, the reference solution and the
unedited stub), graded once per test session and shared (a test helper, not a test module).

`tests/test_lab_fixtures.py` proves every fixture's checks from these documents, and the
browser tests open the lab01 fixtures' feedback pages the same batch wrote: one grading of
each class per session (the `graded` fixture of tests/conftest.py; under xdist, each lab's
tests share a group, so the class is graded on one worker only).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.common.labs import LABS, Lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEED = "fixtures"
# tests/data/verdicts/<lab>.txt: what the grader concluded about each fixture, one line per
# fixture and check (written and compared by tests/test_lab_fixtures.py).
VERDICTS = ROOT / "tests" / "data" / "verdicts"
FEEDBACK_ROW = "(feedback)"  # the check cell of a fixture's line about its whole document


def snapshot_rows(lab: str) -> list[list[str]]:
    """The rows of a lab's verdict snapshot: [fixture, check, status, pitfall named, detail
    kind], or [fixture, FEEDBACK_ROW, status, pitfalls named, flags] ('-' for none)."""
    text = (VERDICTS / f"{lab}.txt").read_text(encoding="utf-8")
    return [line.split() for line in text.splitlines() if line and not line.startswith("#")]


@dataclass(frozen=True)
class Fixture:
    """One fixture submission and what its expected.toml promises."""

    folder: str  # the lab's name, e.g. lab01_graph
    name: str
    path: Path
    expected: dict[str, Any]

    @property
    def id(self) -> str:
        """<lab>/<defect>, the test id."""
        return f"{self.folder}/{self.name}"

    @property
    def correct(self) -> bool:
        """A correct engine in another style."""
        return self.name.startswith("correct-")


def lab_of(folder: str) -> Lab:
    """The registered lab a fixture folder is named after."""
    return LABS[folder]


def discover() -> list[Fixture]:
    """Every fixture with an expected.toml, sorted by lab and name."""
    fixtures = []
    for path in sorted(FIXTURES.glob("lab*/*/expected.toml")):
        with path.open("rb") as handle:
            expected = tomllib.load(handle)
        fixtures.append(Fixture(path.parent.parent.name, path.parent.name, path.parent, expected))
    return fixtures


ALL_FIXTURES = discover()
LAB_FOLDERS = sorted({f.folder for f in ALL_FIXTURES if f.folder in LABS})


@dataclass
class LabRun:
    """A lab's documents: by fixture name, plus the reference solution and the stub; out_dir
    holds the reports grade_class wrote (out_dir/<fixture name>/feedback.html, ...)."""

    out_dir: Path
    fixtures: dict[str, dict[str, Any]] = field(default_factory=dict)
    solution: dict[str, Any] = field(default_factory=dict)
    stub: dict[str, Any] = field(default_factory=dict)


def grade_lab(folder: str, out_dir: Path) -> LabRun:
    """Grade the lab's fixtures, its reference solution and its stub as one class."""
    lab = lab_of(folder)
    fixtures = [f for f in ALL_FIXTURES if f.folder == folder]
    paths = [f.path for f in fixtures] + [lab.solution_dir, lab.student_dir]
    spec = GradingPlan(lab, suites_for(lab, hidden=True), SEED, "en")
    # A hung shard becomes grader-error documents (failures here), not a stalled run.
    options = BatchOptions(out_dir=out_dir, workers=max(2, os.cpu_count() or 1),
                           shard_timeout_s=240)
    docs = grade_class(spec, paths, options, lambda *_: None)
    *fixture_docs, solution, stub = docs
    return LabRun(out_dir, {f.name: doc for f, doc in zip(fixtures, fixture_docs, strict=True)},
                  solution, stub)
