"""Benchmark: what the sandbox's hardening costs per check, in one run on one machine.

Runs the same lab01 scenario many times against the reference solution three ways and prints
the median time per scenario run:
- in-process (`--debug` mode's runner: no isolation at all);
- sandbox without the jail (a forked child per scenario, audit guard, limits);
- sandbox with the jail (as above, plus namespaces, new root, own uid, per-scenario uid sweep;
  needs root on Linux, skipped otherwise).

Usage: python bench/hardening_overhead.py [--runs 300]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from grader.child.scenarios.lab01_graph import diamond
from grader.labs import COURSE_ROOT
from grader.sandbox import Limits, Sandbox
from grader.sandbox.inprocess import InProcessRunner
from grader.sandbox.jail import default_jail

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


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="minigrad-overhead-") as tmp:
        root = Path(tmp)
        os.chmod(root, 0o711)
        workdir = root / "submission"
        workdir.mkdir(mode=0o755)
        shutil.copy(SOLUTION, workdir / "value.py")
        os.chmod(workdir / "value.py", 0o644)
        figures = {"in-process": median_run(
            InProcessRunner(workdir, "value", "Value", ("value.py",)), args.runs)}
        with Sandbox(workdir, "value", "Value", ("value.py",), Limits()) as sandbox:
            figures["sandbox, no jail"] = median_run(sandbox, args.runs)
        jail = default_jail()
        if jail is not None:
            with Sandbox(workdir, "value", "Value", ("value.py",), Limits(), jail=jail) as sandbox:
                figures["sandbox + jail"] = median_run(sandbox, args.runs)
    base = figures["in-process"]
    print(f"median time per scenario run over {args.runs} runs of lab01's diamond scenario:")
    for name, seconds in figures.items():
        print(f"  {name:18s} {seconds * 1000:7.2f} ms   (+{(seconds - base) * 1000:.2f} ms "
              f"over in-process)")


if __name__ == "__main__":
    main()
