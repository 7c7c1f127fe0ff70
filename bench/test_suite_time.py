"""How long the project's own test suite takes: `make test-fast` and `make test`, wall and CPU
time, with the machine's load before and after (a benchmark figure, never a timed assert).

    python bench/test_suite_time.py                 # both tiers, in this checkout
    python bench/test_suite_time.py --clone         # in a fresh clone of this checkout's HEAD
    python bench/test_suite_time.py --write-docs    # also put them in docs/development.md
    python bench/test_suite_time.py --hog 8         # beside 8 busy loops (load about 8)
    python bench/test_suite_time.py --twice         # two `make test` in two fresh clones at once

The venv is built before timing (`make venv`, not counted). CPU time is the user + system
time of make and every process it waited for (getrusage of the children), so it does not grow
with other people's load the way wall time does; the load average says how busy the machine
was. The figures of docs/development.md are measured on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_block import replace_block  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "development.md"  # the page that shows the figures
TARGETS = ("test-fast", "test")
BEGIN, END = "<!-- suite-times -->", "<!-- /suite-times -->"
SUMMARY = re.compile(r"^=*\s*(\d+ passed.*?) in [\d.]+s", re.MULTILINE)


@dataclass
class Timing:
    """One make target, timed."""

    target: str
    wall_s: float
    cpu_s: float
    load_before: float
    load_after: float
    code: int
    summary: str
    note: str = ""  # after the command in the figures' table


def timed(target: str, where: Path) -> Timing:
    """Run `make <target>` in `where` and time it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    completed = subprocess.run(["make", "--no-print-directory", target], cwd=where,
                               capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = SUMMARY.findall(completed.stdout)
    lines = completed.stdout.strip().splitlines()
    summary = found[-1] if found else (lines[-1] if lines else "")
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout[-3000:] + completed.stderr[-3000:])
    return Timing(target, wall, cpu, load_before, os.getloadavg()[0], completed.returncode,
                  summary)


def start_hog(count: int) -> list[subprocess.Popen[bytes]]:
    """`count` processes that spin until stopped (a CPU hog)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop_hog(hog: list[subprocess.Popen[bytes]]) -> None:
    """Stop the hog's processes (these, by their pids)."""
    for process in hog:
        process.kill()
        process.wait()


def twice(scratch: Path) -> list[Timing]:
    """`make test` in two fresh clones started together; each one's timing."""
    clones = [fresh_clone(scratch / f"clone-{index}") for index in (1, 2)]
    for clone in clones:
        subprocess.run(["make", "--no-print-directory", "venv"], cwd=clone, check=True,
                       capture_output=True)
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    runs = [subprocess.Popen(["/usr/bin/time", "-o", str(clone / "cpu.txt"), "-f", "%U %S",
                              "make", "--no-print-directory", "test"], cwd=clone,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for clone in clones]
    timings = []
    for index, (clone, run) in enumerate(zip(clones, runs, strict=True), 1):
        output, _ = run.communicate()
        found = SUMMARY.findall(output)
        if run.returncode != 0:
            sys.stderr.write(output[-3000:])
        user, system = (clone / "cpu.txt").read_text().split()[-2:]
        timings.append(Timing("test", time.monotonic() - started,
                              float(user) + float(system), load_before, os.getloadavg()[0],
                              run.returncode,
                              found[-1] if found else output.strip().splitlines()[-1],
                              f" (run {index} of 2 at once)"))
    return timings


def fresh_clone(into: Path) -> Path:
    """A clone of this checkout's HEAD (committed work only), as CI would see it."""
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(into)],
                   check=True)
    return into


def figures(timings: list[Timing], command: str) -> str:
    """The lines of docs/development.md for the timings."""
    cores = os.cpu_count() or 1
    rows = [f"| `make {t.target}`{t.note} | {t.wall_s:.0f} s | {t.cpu_s:.0f} s | "
            f"{t.load_before:.1f} / {t.load_after:.1f} | {t.summary} |" for t in timings]
    return "\n".join([
        BEGIN,
        f"Measured with `{command}` on {platform.machine()}, {cores} cores, "
        f"{time.strftime('%Y-%m-%d')}:",
        "",
        "| target | wall | CPU (user + system) | load before / after | tests |",
        "|---|---|---|---|---|",
        *rows,
        END,
    ])


def main() -> int:
    """Time the tiers and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clone", action="store_true", help="time a fresh clone of HEAD")
    parser.add_argument("--only", choices=TARGETS, help="time one tier only")
    parser.add_argument("--write-docs", action="store_true",
                        help="write the figures into docs/development.md")
    parser.add_argument("--hog", type=int, default=0, metavar="N", help="beside N busy loops")
    parser.add_argument("--twice", action="store_true",
                        help="two `make test` runs in two fresh clones at once")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="minigrad-suite-time-"))
    # mkdtemp makes it 0700: uid 65534 could not read the clone, and the red team's
    # normal-user mode would skip itself, timing a smaller suite than CI runs.
    os.chmod(scratch, 0o755)
    hog = start_hog(args.hog)
    try:
        if args.twice:
            timings = twice(scratch)
        else:
            where = fresh_clone(scratch / "clone") if args.clone else ROOT
            subprocess.run(["make", "--no-print-directory", "venv"], cwd=where, check=True,
                           capture_output=True)
            timings = [timed(target, where) for target in ([args.only] if args.only else TARGETS)]
        for timing in timings:
            timing.note += f" (beside {args.hog} busy loops)" if args.hog else ""
        for timing in timings:
            print(f"make {timing.target}{timing.note}: {timing.wall_s:.1f} s wall, {timing.cpu_s:.1f} s CPU, "
                  f"load {timing.load_before:.1f} -> {timing.load_after:.1f}, exit "
                  f"{timing.code}: {timing.summary}", flush=True)
        command = " ".join(["python bench/test_suite_time.py", *sys.argv[1:]])
        command = command.replace(" --write-docs", "")
        block = figures(timings, command)
        print(block)
        if args.write_docs:
            replace_block(PAGE, BEGIN, END, block)
        return max(t.code for t in timings)
    finally:
        stop_hog(hog)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
