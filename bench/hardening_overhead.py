"""Benchmark: what the sandbox's hardening costs per check, for every isolation mode, on one machine.

Runs the same lab01 scenario many times against the reference solution and prints, per mode,
the median time per scenario run and the median time to start a sandbox (the zygote, its jail
and the import probe):
- in-process (`--debug` mode's runner: no isolation at all);
- limits (a forked child per scenario, audit guard, limits; how "none");
- uid (the jail's own uid, seccomp, Landlock where the kernel has it; how "setuid");
- jail through user namespaces (how "userns": namespaces, new root, pid namespace's sweep);
- jail as root (how "root").
Every mode this process can enter is measured (all of them as root on Linux); the others are
listed as unavailable. As root the "userns" entry first takes a uid of its own, as root without
CAP_SYS_ADMIN would; an unprivileged grader enters the same way minus that setuid.

Usage: python bench/hardening_overhead.py [--runs 300] [--starts 10]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from grader.grading.child.scenarios.lab01_graph import diamond
from grader.grading.sandbox import Limits, Sandbox
from grader.grading.sandbox.inprocess import InProcessRunner
from grader.grading.sandbox.jail import HOW_LEVEL, HOWS, can_enter, jail_for
from grader.labs import COURSE_ROOT

SOLUTION = COURSE_ROOT / "solutions" / "lab01_graph" / "value.py"


def median_run(runner, runs: int) -> float:  # type: ignore[no-untyped-def]
    """Median seconds of one scenario run (after one warm-up run)."""
    runner.run(diamond, {"x": 1.5, "y": -2.0})
    times = []
    for index in range(runs):
        started = time.perf_counter()
        outcome = runner.run(diamond, {"x": 1.5 + index, "y": -2.0})
        times.append(time.perf_counter() - started)
        assert outcome.ok, outcome
    return statistics.median(times)


def median_start(workdir: Path, how: str, starts: int) -> float:
    """Median seconds from a new Sandbox to the answer of its first scenario."""
    times = []
    for _ in range(starts):
        started = time.perf_counter()
        with Sandbox(workdir, "value", "Value", ("value.py",), Limits(),
                     jail=jail_for(how)) as sandbox:
            outcome = sandbox.run(diamond, {"x": 1.5, "y": -2.0})
        times.append(time.perf_counter() - started)
        assert outcome.ok, outcome
    return statistics.median(times)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="minigrad-overhead-") as tmp:
        root = Path(tmp)
        os.chmod(root, 0o711)
        workdir = root / "submission"
        workdir.mkdir(mode=0o755)
        shutil.copy(SOLUTION, workdir / "value.py")
        os.chmod(workdir / "value.py", 0o644)
        runner = InProcessRunner(workdir, "value", "Value", ("value.py",))
        figures: dict[str, tuple[float, float] | None] = {
            "in-process": (median_run(runner, args.runs), 0.0)}
        for how in reversed(HOWS):  # weakest first
            label = f"{HOW_LEVEL[how]} ({how})"
            if not can_enter(how):
                figures[label] = None
                continue
            with Sandbox(workdir, "value", "Value", ("value.py",), Limits(),
                         jail=jail_for(how)) as sandbox:
                per_run = median_run(sandbox, args.runs)
            figures[label] = (per_run, median_start(workdir, how, args.starts))
    base = figures["in-process"]
    assert base is not None
    print(f"median over {args.runs} runs of lab01's diamond scenario, and over {args.starts} "
          f"sandbox starts:")
    print(f"  {'mode':18s} {'per scenario':>14s} {'over in-process':>16s} {'sandbox start':>14s}")
    for name, measured in figures.items():
        if measured is None:
            print(f"  {name:18s} {'unavailable here':>14s}")
            continue
        per_run, start = measured
        print(f"  {name:18s} {per_run * 1000:11.2f} ms {(per_run - base[0]) * 1000:+13.2f} ms "
              f"{start * 1000:11.1f} ms")


if __name__ == "__main__":
    main()
