"""Benchmark: one `grade` run over a large lab01 class of mixed quality: wall time and peak memory.

The class cycles through the demo class's students, the lab01 fixtures (correct engines in many
styles and buggy ones) and, every SLOW_EVERY-th submission, a slow correct engine (the reference
solution with a sleep in `backward()`), so it holds correct, buggy and slow work. The fixtures
whose `backward()` never returns (grade_class.NEVER_RETURN) are left out, as in every lab01
class of these benchmarks: each costs its whole time budget, which bench/tarpit_class.py
measures on its own (about 19 copies in 1,000 would add some 70 s of waiting). Peak memory is
the largest sum of the proportional set sizes of the grader and every process under it (pytest
shards, shard zygotes, sandboxes: pages their forks share count once), sampled every SAMPLE_S
while it runs.

Usage: python bench/grade_scale.py [--students 1000] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grade_class import NEVER_RETURN

from grader.grading.sandbox import reaper

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "demo" / "class" / "lab01_graph", ROOT / "tests" / "fixtures" / "lab01_graph")
SOLUTION = ROOT / "solutions" / "lab01_graph" / "value.py"
SLOW_EVERY = 20
SLOW_SLEEP_S = 0.02  # per backward() call: slow, well within every limit
SAMPLE_S = 0.2


def make_class(folder: Path, students: int) -> list[Path]:
    """`students` submission folders: the demo class and the fixtures in turn, a slow engine
    every SLOW_EVERY-th."""
    sources = [p for root in SOURCES for p in sorted(root.iterdir())
               if (p / "value.py").is_file() and p.name not in NEVER_RETURN]
    slow = folder / "slow-engine"
    slow.mkdir(parents=True)
    code = SOLUTION.read_text(encoding="utf-8")
    code = code.replace("    def backward(self):\n",
                        f"    def backward(self):\n        __import__('time').sleep({SLOW_SLEEP_S})\n", 1)
    assert "sleep" in code, "the reference solution has no `def backward(self):` to slow down"
    (slow / "value.py").write_text(code, encoding="utf-8")
    paths = []
    for index in range(students):
        source = slow if index % SLOW_EVERY == SLOW_EVERY - 1 else sources[index % len(sources)]
        target = folder / f"s{index:04d}"
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("expected.toml", "__pycache__"))
        paths.append(target)
    return paths


def tree_memory(root_pid: int) -> int:
    """Bytes of memory root_pid and all its descendants hold: the sum of their proportional
    set sizes (a page shared by n forked processes counts 1/n in each, so the zygotes' shared
    pages count once), read from /proc."""
    total, pending = 0, [root_pid]
    while pending:
        pid = pending.pop()
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
                total += next(int(line.split()[1]) * 1024 for line in rollup
                              if line.startswith(b"Pss:"))
        except (OSError, StopIteration):
            continue
        pending.extend(reaper.child_pids(pid))
    return total


def main() -> None:
    """Grade the class once and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=0, help="0: the grader's default")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="minigrad-scale-") as tmp:
        paths = make_class(Path(tmp) / "class", args.students)
        out = Path(tmp) / "out"
        command = [sys.executable, "-m", "grader", "grade", "lab01_graph", *map(str, paths),
                   "--out", str(out), *(["--workers", str(args.workers)] if args.workers else [])]
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_memory(process.pid))
            time.sleep(SAMPLE_S)
        wall = time.perf_counter() - started
        reports = len(list(out.glob("*/scores.json")))
        dashboard = (out / "dashboard.html").stat().st_size if (out / "dashboard.html").exists() else 0
    load = os.getloadavg()
    print(f"class: {args.students} lab01_graph submissions (demo class, fixtures but the ones that "
          f"never return, a slow engine every {SLOW_EVERY}th), {os.cpu_count()} cores, "
          f"load {load[0]:.1f} {load[1]:.1f}")
    print(f"grade: exit {process.returncode}, {reports} reports in {wall:.1f} s "
          f"({wall / args.students:.3f} s each), peak memory {peak / 2**20:.0f} MB, "
          f"dashboard {dashboard / 1024:.0f} KB")


if __name__ == "__main__":
    main()
