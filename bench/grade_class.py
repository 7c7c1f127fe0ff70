"""Benchmark: grade one generated class both ways in one run and print both times and the ratio.

- grader: `python -m grader grade lab01_graph <class> --out ...` (hidden + public suites,
  sandboxed, all cores);
- baseline: what instructors script today, `pytest --json-report` run once per submission
  on a 40-test in-process suite (bench/naive_lab01), one after the other.

Usage: python bench/grade_class.py [--lab lab01_graph] [--students 40] [--repeat 3] [--grader-only]
(the baseline exists for lab01 only; other labs, or --grader-only, time the grader alone)
Figures are medians over the repeats, measured in the same run on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
NAIVE_SUITE = ROOT / "bench" / "naive_lab01" / "test_naive_lab01.py"


# lab01 fixtures whose backward() never returns: the baseline (bench/naive_lab01, pytest with
# no time limit) would wait on them forever, so lab01 classes leave them out; classes of other
# labs, graded by the grader alone, keep every fixture (it stops them at their time limit).
NEVER_RETURN = frozenset({"backward-never-returns"})


def python_env() -> dict[str, str]:
    """The environment, with bytecode written as a student's, an instructor's or a platform's
    Python writes it (a PYTHONDONTWRITEBYTECODE left in a shell would time compiling, on every
    run, whatever the environment holds no bytecode for)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def make_class(folder: Path, students: int, lab: str, fixtures: Path = FIXTURES) -> list[Path]:
    """A class of `students` folders cycling through the lab's fixtures (correct and buggy),
    those in NEVER_RETURN left out."""
    sources = sorted(p for p in (fixtures / lab).iterdir()
                     if (p / "expected.toml").is_file() and p.name not in NEVER_RETURN)
    paths = []
    for index in range(students):
        student = folder / f"student{index:03d}"
        shutil.copytree(sources[index % len(sources)], student,
                        ignore=shutil.ignore_patterns("expected.toml", "__pycache__"))
        paths.append(student)
    return paths


def time_grader(paths: list[Path], out: Path, lab: str) -> tuple[float, list[float]]:
    """Wall time of one grader run over the class, and each submission's in-suite duration."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "grade", lab, *map(str, paths),
                    "--out", str(out)], cwd=ROOT, env=python_env(), check=True,
                   stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    durations = [json.loads((out / p.name / "scores.json").read_text())["duration_s"]
                 for p in paths]
    return wall, durations


def time_baseline(paths: list[Path], out: Path) -> tuple[float, list[float]]:
    """Wall time of the per-submission pytest loop, and each submission's wall time."""
    per_submission = []
    started = time.perf_counter()
    for path in paths:
        one = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pytest", str(NAIVE_SUITE), "-q",
                        "-p", "no:cacheprovider", "--json-report",
                        f"--json-report-file={out / (path.name + '.json')}"],
                       cwd=ROOT, env={**python_env(), "MINIGRAD_SUBMISSION": str(path / "value.py")},
                       check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=120)
        per_submission.append(time.perf_counter() - one)
    return time.perf_counter() - started, per_submission


def main() -> None:
    """Run the comparison and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lab", default="lab01_graph")
    parser.add_argument("--grader-only", action="store_true", help="skip the baseline")
    parser.add_argument("--fixtures", type=Path, default=FIXTURES,
                        help="the fixtures folder the class is made from (to compare two "
                             "versions of the grader on the same class)")
    args = parser.parse_args()
    baseline = args.lab == "lab01_graph" and not args.grader_only
    with tempfile.TemporaryDirectory(prefix="minigrad-bench-") as tmp:
        folder = Path(tmp)
        paths = make_class(folder / "class", args.students, args.lab, args.fixtures)
        grader_walls, baseline_walls, in_suite, baseline_each = [], [], [], []
        for run in range(args.repeat):
            wall, durations = time_grader(paths, folder / f"grader-{run}", args.lab)
            grader_walls.append(wall)
            in_suite.extend(durations)
            if not baseline:
                continue
            wall, each = time_baseline(paths, folder / f"baseline-{run}")
            baseline_walls.append(wall)
            baseline_each.extend(each)
    n = args.students
    grader_wall = statistics.median(grader_walls)
    print(f"class: {n} {args.lab} submissions (correct and buggy), {args.repeat} runs, "
          f"{os.cpu_count()} cores")
    print(f"grader   : {grader_wall:.2f} s per class (median), "
          f"{grader_wall / n:.3f} s amortized per submission; "
          f"median in-suite time per submission {statistics.median(in_suite):.3f} s")
    if not baseline:
        return
    baseline_wall = statistics.median(baseline_walls)
    print(f"baseline : {baseline_wall:.2f} s per class (median), "
          f"median {statistics.median(baseline_each):.3f} s per submission")
    print(f"ratio    : baseline / grader = {baseline_wall / grader_wall:.1f}x")


if __name__ == "__main__":
    main()
