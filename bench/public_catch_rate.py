"""Public catch rate: how many of a corpus's buggy engines the public checks alone catch.

Usage: python bench/public_catch_rate.py [CORPUS ...] [--lab LAB ...] [--workers N] [--seed SEED]
(default corpus: tests/independent; the blind corpus is another folder of the same layout).

A corpus is `<corpus>/<lab>/<engine>/`, each engine folder holding the lab's file(s) and a
`NOTE.toml` whose `intent` is "bug" or "correct" (and a `description`). Every engine is graded
with the lab's public suite only, as `make check` runs it; a bug is caught when the student
would not see "every public check passed" (a check failed or not run, or the code could not be
graded), a correct engine passes when every public check passed. Prints, per lab, caught/total
for bugs and passed/total for correct engines, then each uncaught bug and each correct engine
that did not pass, with its description. The median in-suite time of the correct engines is what a student
waits for a clean result (the sandbox included, the interpreter's start-up not).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.common.labs import LABS  # noqa: E402
from grader.grading.batch import BatchOptions, grade_class  # noqa: E402
from grader.grading.shard import GradingPlan, suites_for  # noqa: E402

DEFAULT_CORPUS = ROOT / "tests" / "independent"


@dataclass(frozen=True)
class Engine:
    """One engine of a corpus and what its NOTE.toml says it is."""

    lab: str
    path: Path
    intent: str
    description: str


def engines(corpus: Path, lab: str) -> list[Engine]:
    """The engines of one lab in a corpus, sorted by folder name."""
    found = []
    for note in sorted((corpus / lab).glob("*/NOTE.toml")):
        meta = tomllib.loads(note.read_text(encoding="utf-8"))
        if meta.get("intent") in ("bug", "correct"):
            found.append(Engine(lab, note.parent, meta["intent"], meta.get("description", "")))
    return found


def all_public_passed(doc: dict[str, Any]) -> bool:
    """What `make check` calls a clean result: graded, and every public check passed."""
    return doc["status"] == "graded" and bool(doc["checks"]) and all(
        check["status"] == "passed" for check in doc["checks"])


def not_passed(doc: dict[str, Any]) -> str:
    """The checks that did not pass (or why nothing was graded), for the listing."""
    if doc["status"] != "graded":
        return doc["status"]
    return ", ".join(f"{c['id']} ({c['status']})" for c in doc["checks"] if c["status"] != "passed")


def grade_public(lab: str, found: list[Engine], workers: int, seed: str) -> list[dict[str, Any]]:
    """The public-only documents of the engines, in their order."""
    plan = GradingPlan(LABS[lab], suites_for(LABS[lab], hidden=False), seed, "en")
    with tempfile.TemporaryDirectory(prefix="public-catch-") as out:
        options = BatchOptions(out_dir=Path(out), workers=workers, shard_timeout_s=300)
        return grade_class(plan, [e.path for e in found], options, lambda *_: None)


def report(corpus: Path, lab: str, workers: int, seed: str) -> tuple[int, int, int, int]:
    """Grade one lab of a corpus, print its lines; return (caught, bugs, passed, correct)."""
    found = engines(corpus, lab)
    if not found:
        return 0, 0, 0, 0
    docs = grade_public(lab, found, workers, seed)
    bugs = [(e, d) for e, d in zip(found, docs, strict=True) if e.intent == "bug"]
    correct = [(e, d) for e, d in zip(found, docs, strict=True) if e.intent == "correct"]
    uncaught = [e for e, d in bugs if all_public_passed(d)]
    failing = [(e, d) for e, d in correct if not all_public_passed(d)]
    caught, passed = len(bugs) - len(uncaught), len(correct) - len(failing)
    rate = f"{100 * caught / len(bugs):.0f}%" if bugs else "-"
    # how long a student waits for a clean result: the suite's own time, the sandbox included
    seconds = sorted(d["duration_s"] for _, d in correct if all_public_passed(d))
    median = f"{statistics.median(seconds):.2f} s" if seconds else "-"
    print(f"{lab:<16} bugs caught {caught}/{len(bugs)} ({rate})   "
          f"correct passed {passed}/{len(correct)}   median in-suite time {median}")
    for engine in uncaught:
        print(f"    uncaught: {engine.path.name}: {engine.description}")
    for engine, doc in failing:
        print(f"    correct engine not passing: {engine.path.name}: {not_passed(doc)}")
    return caught, len(bugs), passed, len(correct)


def main() -> None:
    """Grade each corpus with the public suites and print the catch rates."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="*", type=Path, default=[DEFAULT_CORPUS])
    parser.add_argument("--lab", action="append", choices=sorted(LABS), help="default: all")
    parser.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    parser.add_argument("--seed", default="public-catch-rate")
    args = parser.parse_args()
    for corpus in args.corpus:
        print(f"corpus {corpus}")
        totals = [0, 0, 0, 0]
        for lab in args.lab or sorted(LABS):
            for index, count in enumerate(report(corpus, lab, args.workers, args.seed)):
                totals[index] += count
        caught, bugs, passed, correct = totals
        rate = f"{100 * caught / bugs:.0f}%" if bugs else "-"
        print(f"{'all labs':<16} bugs caught {caught}/{bugs} ({rate})   "
              f"correct passed {passed}/{correct}")


if __name__ == "__main__":
    main()
