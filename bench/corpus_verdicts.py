"""Graded verdicts on a corpus of engines: each engine's score and pitfalls, hidden suite included.

Usage: python bench/corpus_verdicts.py [CORPUS ...] [--lab LAB ...] [--workers N] [--seed SEED]
                                       [--json OUT] [--before BEFORE.json]
(default corpus: tests/blind; tests/independent has the same layout.)

Every engine (`<corpus>/<lab>/<engine>/` with its NOTE.toml) is graded with the lab's public
and hidden suites, as `grade` grades a submission. Prints one line per engine: its intent,
score / max and the pitfalls its feedback names, then per lab how many bugs lost points and how
many correct engines got full marks. `--json` writes the verdicts; `--before` reads a file
written that way by another checkout (main, say) and prints both scores side by side, so the
same corpus graded before and after a change is one table. The seed matters only to the
random-graph checks, which must not move a verdict (tests/test_seed_stability.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.public_catch_rate import Engine, engines  # noqa: E402
from grader.common.labs import LABS  # noqa: E402
from grader.grading.batch import BatchOptions, grade_class  # noqa: E402
from grader.grading.shard import GradingPlan, suites_for  # noqa: E402

DEFAULT_CORPUS = ROOT / "tests" / "blind"


def grade_all(lab: str, found: list[Engine], workers: int, seed: str) -> list[dict[str, Any]]:
    """The graded documents (public + hidden suites) of the engines, in their order."""
    plan = GradingPlan(LABS[lab], suites_for(LABS[lab], hidden=True), seed, "en")
    with tempfile.TemporaryDirectory(prefix="corpus-verdicts-") as out:
        options = BatchOptions(out_dir=Path(out), workers=workers, shard_timeout_s=900)
        return grade_class(plan, [e.path for e in found], options, lambda *_: None)


def verdict(corpus: Path, engine: Engine, doc: dict[str, Any]) -> dict[str, Any]:
    """What a reader of the table needs from one document."""
    return {"corpus": corpus.name, "lab": engine.lab, "engine": engine.path.name, "intent": engine.intent,
            "status": doc["status"], "score": doc.get("score"), "max_score": doc.get("max_score"),
            "pitfalls": sorted(doc.get("pitfalls") or [])}


def shown(row: dict[str, Any] | None) -> str:
    """`score/max pitfalls`, or `-` for an engine the other run did not grade."""
    if row is None:
        return "-"
    if row["status"] != "graded":
        return row["status"]
    return f"{row['score']:g}/{row['max_score']:g} {','.join(row['pitfalls']) or '(none)'}"


def summary(rows: list[dict[str, Any]]) -> str:
    """Bugs that lost points and correct engines with full marks."""
    def full(row: dict[str, Any]) -> bool:
        return row["status"] == "graded" and row["score"] == row["max_score"]
    bugs = [r for r in rows if r["intent"] == "bug"]
    correct = [r for r in rows if r["intent"] == "correct"]
    return (f"bugs losing points {sum(not full(r) for r in bugs)}/{len(bugs)}, "
            f"correct with full marks {sum(full(r) for r in correct)}/{len(correct)}")


def main() -> None:
    """Grade each corpus with the graded suites and print every engine's verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="*", type=Path, default=[DEFAULT_CORPUS])
    parser.add_argument("--lab", action="append", choices=sorted(LABS), help="default: all")
    parser.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    parser.add_argument("--seed", default="corpus-verdicts")
    parser.add_argument("--json", type=Path, help="write the verdicts here")
    parser.add_argument("--before", type=Path, help="verdicts of another run, shown beside")
    args = parser.parse_args()
    before = {(r["corpus"], r["lab"], r["engine"]): r for r in json.loads(args.before.read_text())} \
        if args.before else {}
    rows: list[dict[str, Any]] = []
    for corpus in args.corpus:
        for lab in args.lab or sorted(LABS):
            found = engines(corpus, lab)
            if not found:
                continue
            lab_rows = [verdict(corpus, e, d) for e, d in
                        zip(found, grade_all(lab, found, args.workers, args.seed), strict=True)]
            print(f"{corpus.name}/{lab}: {summary(lab_rows)}")
            if before:
                print(f"    before: {summary([r for k, r in before.items() if k[:2] == (corpus.name, lab)])}")
            for row in lab_rows:
                old = shown(before.get((corpus.name, lab, row["engine"]))) if before else ""
                print(f"    {row['engine']:<28} {row['intent']:<8} {shown(row):<60} {old}")
            rows += lab_rows
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
