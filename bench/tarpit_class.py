"""Benchmark: what tarpits cost a class, with a budget per submission.

Grades a lab01 class of `--size` students (copies of the reference solution) in which
`--tarpits` of them, next to each other (so in one shard), take 1.5 s for every operation,
with each submission's budget set to `--budget` seconds; then the same class without tarpits.
Prints both wall times, the tarpits' own durations, what the tarpits add over the clean class
against the sum of their budgets, and how many classmates kept full marks.

Usage: python bench/tarpit_class.py [--size 40] [--tarpits 7] [--budget 6] [--workers 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from grader.common.labs import get_lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for

LAB = get_lab("lab01_graph")
SOLUTION = (LAB.solution_dir / LAB.main_file).read_text(encoding="utf-8")
TARPIT = SOLUTION + """

import time


def _slow(operation):
    def slowly(self, other):
        time.sleep(1.5)  # under the 2 s limit of a scenario: every check passes, slowly
        return operation(self, other)
    return slowly


Value.__add__, Value.__mul__ = _slow(Value.__add__), _slow(Value.__mul__)
"""


def grade(root: Path, size: int, tarpits: int, budget: float, workers: int
          ) -> tuple[float, list[dict[str, Any]]]:
    """Seconds to grade the class, and its documents in order."""
    first = 5 if size > 5 + tarpits else 0
    paths = []
    for number in range(size):
        folder = root / f"s{number:02d}"
        folder.mkdir(parents=True)
        tarpit = first <= number < first + tarpits
        (folder / "value.py").write_text(TARPIT if tarpit else SOLUTION, encoding="utf-8")
        paths.append(folder)
    plan = GradingPlan(LAB, suites_for(LAB, hidden=True), seed="bench", lang="en",
                       budget_s=budget)
    options = BatchOptions(out_dir=root / "out", workers=workers, shard_timeout_s=60.0)
    started = time.monotonic()
    docs = grade_class(plan, paths, options, lambda *_: None)
    return time.monotonic() - started, docs


def main() -> None:
    """Grade both classes and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument("--tarpits", type=int, default=7)
    parser.add_argument("--budget", type=float, default=6.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        clean, _ = grade(Path(scratch) / "clean", args.size, 0, args.budget, args.workers)
        seconds, docs = grade(Path(scratch) / "tarpits", args.size, args.tarpits, args.budget,
                              args.workers)
    tarpit_docs = [d for d in docs if "over-budget" in {(c["detail"] or {}).get("kind")
                                                         for c in d["checks"]}]
    full = sum(d["score"] == d["max_score"] > 0 for d in docs)  # the tarpits never have it
    print(f"class of {args.size}, {args.workers} workers, budget {args.budget:g} s")
    print(f"without tarpits: {clean:.1f} s")
    print(f"with {args.tarpits} tarpits: {seconds:.1f} s "
          f"(+{seconds - clean:.1f} s; their budgets sum to {args.tarpits * args.budget:g} s)")
    print("tarpits' own durations: "
          + ", ".join(f"{d['duration_s']:.1f}" for d in tarpit_docs) + " s")
    print(f"full marks: {full} of {args.size - args.tarpits} classmates; "
          f"grader errors: {sum(d['status'] == 'grader-error' for d in docs)}")
    for doc in (d for d in docs if d["score"] < d["max_score"]  # classmates that lost points
                and "over-budget" not in {(c["detail"] or {}).get("kind") for c in d["checks"]}):
        lost = sorted({f"{c['id']}: {(c['detail'] or {}).get('kind')}" for c in doc["checks"]
                       if c["status"] != "passed"})
        print(f"  {doc['submission']['id']} lost {doc['max_score'] - doc['score']:g}: {lost}")


if __name__ == "__main__":
    main()
