"""Benchmark: what the sandbox's hardening costs per check, for every isolation mode, on one machine.

Runs the same lab01 scenario many times against the reference solution and prints, per mode,
the median time per scenario run, its overhead over the fork floor (a bare fork, exit and wait
of a warm Python process: what no forked child can cost less than), and the median time to
start a sandbox (its zygote forked from a running shard zygote, its jail and the import probe:
what each submission of a class costs), and cold (a shard zygote of its own started too: what
one submission alone costs):
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.common.labs import COURSE_ROOT
from grader.grading.child.scenarios.lab01_graph import diamond
from grader.grading.sandbox import Limits, Sandbox
from grader.grading.sandbox.inprocess import InProcessRunner
from grader.grading.sandbox.jail import HOW_LEVEL, HOWS, can_enter, jail_for
from grader.grading.sandbox.shard_zygote import ShardZygote

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


# A bare Python (-I -S, as the zygotes run) that imports what a zygote imports, then times a
# fork, an _exit and a wait, and prints the median.
FLOOR_SOURCE = """
import ctypes, json, math, os, random, statistics, sys, time
times = []
for _ in range(int(sys.argv[1])):
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    times.append(time.perf_counter() - started)
print(statistics.median(times))
"""


def fork_floor(runs: int) -> float:
    """Median seconds of a bare fork, _exit and wait of a warm Python of a zygote's size."""
    measured = subprocess.run([sys.executable, "-I", "-S", "-c", FLOOR_SOURCE, str(runs)],
                              check=True, capture_output=True, text=True)
    return float(measured.stdout)


def median_start(workdir: Path, how: str, starts: int, shared: bool) -> float:
    """Median seconds from a new Sandbox to the answer of its first scenario; `shared`: its
    zygote forked from one shard zygote that is already running, as in a class."""
    jail = jail_for(how)
    interpreter = jail.interpreter if jail else sys.executable
    if jail is not None:
        jail.release()
    shard = ShardZygote(interpreter) if shared else None
    times = []
    try:
        if shard is not None:  # started before the clock runs: a class starts it once
            with Sandbox(workdir, "value", "Value", ("value.py",), Limits(),
                         jail=jail_for(how), shard_zygote=shard) as sandbox:
                sandbox.load_problem()
        for _ in range(starts):
            started = time.perf_counter()
            with Sandbox(workdir, "value", "Value", ("value.py",), Limits(),
                         jail=jail_for(how), shard_zygote=shard) as sandbox:
                outcome = sandbox.run(diamond, {"x": 1.5, "y": -2.0})
            times.append(time.perf_counter() - started)
            assert outcome.ok, outcome
    finally:
        if shard is not None:
            shard.close()
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
        floor = fork_floor(args.runs)
        figures: dict[str, tuple[float, float, float] | None] = {
            "in-process": (median_run(runner, args.runs), 0.0, 0.0)}
        for how in reversed(HOWS):  # weakest first
            label = f"{HOW_LEVEL[how]} ({how})"
            if not can_enter(how):
                figures[label] = None
                continue
            with Sandbox(workdir, "value", "Value", ("value.py",), Limits(),
                         jail=jail_for(how)) as sandbox:
                per_run = median_run(sandbox, args.runs)
            figures[label] = (per_run, median_start(workdir, how, args.starts, shared=True),
                              median_start(workdir, how, args.starts, shared=False))
    base = figures["in-process"]
    assert base is not None
    load = os.getloadavg()
    print(f"median over {args.runs} runs of lab01's diamond scenario, and over {args.starts} "
          f"sandbox starts (load {load[0]:.1f}); fork floor {floor * 1000:.2f} ms:")
    print(f"  {'mode':18s} {'per scenario':>14s} {'over the floor':>15s} "
          f"{'start in a class':>17s} {'start cold':>11s}")
    for name, measured in figures.items():
        if measured is None:
            print(f"  {name:18s} {'unavailable here':>14s}")
            continue
        per_run, start, cold = measured
        over = f"{(per_run - floor) * 1000:+12.2f} ms" if start else f"{'':15s}"
        print(f"  {name:18s} {per_run * 1000:11.2f} ms {over} {start * 1000:14.1f} ms "
              f"{cold * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
