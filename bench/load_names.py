"""Pitfall names under load: each lab's fixture class graded idle and beside busy loops, compared.

Usage: python bench/load_names.py [--lab LAB ...] [--busy N] [--workers N] [--json OUT]

Issue 32: a pitfall is named from what a scenario shows, never from the machine's speed. This
grades the fixtures of each lab (tests/fixtures/<lab>/, with the fixtures' seed) twice: once as
the machine is, once with N processes spinning `while 1: pass` beside it (8 by default). It
prints the machine's 1-minute load average at the end of each run, the fixtures whose pitfall names (the
document's `pitfalls`) or failed checks differ between the two runs, and exits 1 if any does.
The busy loops are this script's own children, ended by their process ids when it finishes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.common.labs import LABS  # noqa: E402
from grader.grading.batch import BatchOptions, grade_class  # noqa: E402
from grader.grading.shard import GradingPlan, suites_for  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
SEED = "fixtures"  # the fixture tests' seed (tests/graded_classes.py)


def fixture_paths(lab: str) -> list[Path]:
    """The lab's fixture folders (those with an expected.toml), sorted by name."""
    return sorted(p for p in (FIXTURES / lab).iterdir() if (p / "expected.toml").is_file())


def names(lab: str, workers: int) -> dict[str, dict[str, Any]]:
    """Each fixture's pitfall names and failed checks, graded with both suites."""
    plan = GradingPlan(LABS[lab], suites_for(LABS[lab], hidden=True), SEED, "en")
    paths = fixture_paths(lab)
    with tempfile.TemporaryDirectory(prefix="load-names-") as out:
        options = BatchOptions(out_dir=Path(out), workers=workers, shard_timeout_s=1800)
        docs = grade_class(plan, paths, options, lambda *_: None)
    return {path.name: {"status": doc["status"], "pitfalls": sorted(doc.get("pitfalls") or []),
                        "failed": sorted(c["id"] for c in doc.get("checks", [])
                                         if c["status"] == "failed")}
            for path, doc in zip(paths, docs, strict=True)}


def busy_loops(count: int) -> list[subprocess.Popen[bytes]]:
    """`count` processes that spin on a CPU until they are ended."""
    return [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(count)]


def end(loops: list[subprocess.Popen[bytes]]) -> None:
    """End the busy loops this script started, one by one, by their own process."""
    for loop in loops:
        loop.terminate()
    for loop in loops:
        loop.wait()


def differences(idle: dict[str, dict[str, Any]], busy: dict[str, dict[str, Any]]) -> list[str]:
    """One line per fixture whose names or failed checks moved between the two runs."""
    lines = []
    for name in sorted(idle):
        if idle[name] != busy.get(name):
            lines.append(f"    {name}: idle {idle[name]} / busy {busy.get(name)}")
    return lines


def main() -> int:
    """Grade each lab's fixtures as the machine is and beside busy loops; print what moved."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lab", action="append", choices=sorted(LABS), help="default: all")
    parser.add_argument("--busy", type=int, default=8, help="busy loops beside the second run")
    parser.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 1))
    parser.add_argument("--json", type=Path, help="write both runs' names here")
    args = parser.parse_args()
    moved = 0
    report: dict[str, Any] = {}
    for lab in args.lab or sorted(LABS):
        started = time.monotonic()
        idle = names(lab, args.workers)
        idle_s = time.monotonic() - started
        load = os.getloadavg()[0]  # the last minute's, so the run's own (a 1-minute average)
        loops = busy_loops(args.busy)
        try:
            time.sleep(2)  # let the loops take their share before grading starts
            started = time.monotonic()
            busy = names(lab, args.workers)
            busy_s = time.monotonic() - started
            busy_load = os.getloadavg()[0]
        finally:
            end(loops)
        lines = differences(idle, busy)
        moved += len(lines)
        print(f"{lab}: {len(idle)} fixtures; as the machine is (load {load:.1f}) {idle_s:.0f} s, "
              f"beside {args.busy} busy loops (load {busy_load:.1f}) {busy_s:.0f} s; "
              f"names or failed checks moved: {len(lines)}")
        print("\n".join(lines) if lines else "    none")
        report[lab] = {"idle": idle, "busy": busy, "idle_load": load, "busy_load": busy_load}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
