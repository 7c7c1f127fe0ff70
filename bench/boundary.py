"""Benchmark: the boundary's red team (issues 38 and 39), per class and per mode, worst case.

For each mode this machine can reproduce (tests/sandbox/modes.py: root, unprivileged,
container), prints:
- per attack of tests/test_redteam_boundary.py, its class of three (the attack first, then two
  correct classmates in its shard; lab04's trace attack beside two copies of the solution):
  the seconds the class took, the largest report
  (scores.json bytes), the attack's status, flags and checks that ended as the grader's error,
  and the classmates' scores;
- the memory one submission's process held outside RLIMIT_AS per route
  (tests/sandbox/memory_routes.py: memfd pages, user.* xattrs on /tmp, System V segments), up
  to --limit MiB each;
- the colluding pair (tests/fixtures/redteam/collusion): each one's score alone and graded together.

Run it from the checkout whose grader is measured (a copy of main with this script, the
fixtures and the helpers copied in gives the "before" figures).

Usage: python bench/boundary.py [--modes root unprivileged container] [--limit 1536]
                                [--attacks NAME ...] [--class-timeout 900]
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

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "sandbox")]  # this checkout's grader, measured
import modes  # noqa: E402 - the helper that reproduces each mode on this machine

CORPUS = ROOT / "tests" / "fixtures" / "redteam"
PAIR = CORPUS / "collusion"
ATTACKS = ("pad-recorder-through-closure", "forged-status-quotes-inputs",
           "memfd-hoard", "xattr-hoard", "sysv-shm-outlives",
           "lock-on-shared-stdlib")
CLASSMATES = ("control-eq-returns-value", "control-slots-and-properties")
TRACE_ATTACK = CORPUS / "lab04" / "trace-row-of-the-wrong-shape"
LAB04_SOLUTION = ROOT / "solutions" / "lab04_xor"


def run_in_mode(mode: str, script: str, args: list[str], timeout: float,
                base: Path) -> tuple[str, float]:
    """Run a helper script of tests/sandbox in `mode`; (its stdout, seconds), or a note."""
    scratch = modes.grader_owned(base / "tmp", mode)
    python = modes.python_for(mode, base / "python")
    started = time.monotonic()
    try:
        completed = subprocess.run(
            [*modes.prefix(mode), python, str(ROOT / "tests" / "sandbox" / script), *args],
            env=modes.environment(mode, TMPDIR=str(scratch), PYTHONPATH=str(ROOT)), cwd=ROOT,
            capture_output=True,
            text=True, timeout=timeout, check=False, start_new_session=True)
    except subprocess.TimeoutExpired:
        return f"did not finish in {timeout:.0f} s", time.monotonic() - started
    if completed.returncode != 0:
        return f"exit {completed.returncode}: {completed.stderr[-300:]}", 0.0
    return completed.stdout, time.monotonic() - started


def grade(mode: str, classes: list[dict], workers: int, timeout: float,
          base: Path, lab: str = "lab01_graph") -> list[dict] | str:
    """grade_classes.py in `mode`: each class's result, or why there is none."""
    answer = modes.grader_owned(base / "answer", mode)
    out = modes.grader_owned(base / "out", mode)
    listing = base / "classes.json"
    listing.write_text(json.dumps(classes), encoding="utf-8")
    printed, seconds = run_in_mode(mode, "grade_classes.py",
                                   [str(answer / "result.json"), str(out), lab,
                                    "boundary", str(workers), str(listing)], timeout, base)
    result = answer / "result.json"
    if not result.is_file():
        return printed.strip() or f"no result after {seconds:.0f} s"
    return json.loads(result.read_text(encoding="utf-8"))["classes"]


def describe_class(name: str, result: dict) -> str:
    """One line per class of three."""
    docs = result["docs"]
    if result["error"] or len(docs) != 3:
        return f"  {name:32} {result['seconds']:6.1f} s  error: {result['error']}"
    attacker, *mates = docs
    biggest = max(len(json.dumps(doc, indent=2).encode()) for doc in docs)
    errors = sum(c["status"] == "error" for doc in docs for c in doc["checks"])
    flags = ",".join(sorted({f["id"] for f in attacker["flags"]})) or "-"
    quoted = "quoted" if "leaked-inputs" in json.dumps(attacker["flags"]) else "-"
    mates_said = " ".join(f"{d['score']:g}/{d['max_score']:g}" if d["status"] == "graded"
                          else d["status"] for d in mates)
    return (f"  {name:32} {result['seconds']:6.1f} s  report {biggest / 1024:6.1f} KB  "
            f"attack {attacker['status']} {attacker['score']:g}/{attacker['max_score']:g}  "
            f"grader errors {errors}  flags {flags} (inputs {quoted})  classmates {mates_said}")


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", default=["root", "unprivileged", "container"])
    parser.add_argument("--limit", type=int, default=1536, help="MiB tried per memory route")
    parser.add_argument("--attacks", nargs="+", default=list(ATTACKS))
    parser.add_argument("--class-timeout", type=float, default=900.0)
    args = parser.parse_args()
    for mode in args.modes:
        why = modes.why_unavailable(mode)
        if why:
            print(f"{mode}: unavailable ({why})")
            continue
        base = Path(tempfile.mkdtemp(prefix=f"minigrad-bench-boundary-{mode}-", dir="/var/tmp"))
        os.chmod(base, 0o755)
        try:
            printed, _ = run_in_mode(mode, "memory_routes.py", [str(args.limit)], 300, base)
            try:
                found = json.loads(printed.strip().splitlines()[-1])
                isolation, routes = found["isolation"], found["routes"]
            except (ValueError, IndexError, KeyError):
                isolation, routes = {}, {"unparsed": printed[-200:]}
            print(f"{mode}: isolation {isolation}")
            print("  memory held outside RLIMIT_AS, per route (MiB, or the error): "
                  + ", ".join(f"{k} {v}" for k, v in routes.items()))
            for attack in args.attacks:
                classes = [{"name": attack, "submissions": [
                    str(CORPUS / attack), *(str(CORPUS / c) for c in CLASSMATES)]}]
                graded = grade(mode, classes, 1, args.class_timeout, base / attack)
                print(describe_class(attack, graded[0]) if isinstance(graded, list)
                      else f"  {attack:32} {graded}")
            graded = grade(mode, [{"name": "trace", "submissions": [
                str(TRACE_ATTACK), str(LAB04_SOLUTION), str(LAB04_SOLUTION)]}], 1,
                args.class_timeout, base / "lab04", "lab04_xor")
            print(describe_class("lab04 trace-row-of-the-wrong-shape", graded[0])
                  if isinstance(graded, list) else f"  lab04 trace: {graded}")
            holder, reader = str(PAIR / "holder"), str(PAIR / "reader")
            alone = grade(mode, [{"name": "holder", "submissions": [holder]},
                                 {"name": "reader", "submissions": [reader]}], 1, 600,
                          base / "alone")
            together = grade(mode, [{"name": "pair", "submissions": [holder, reader]}], 2, 600,
                             base / "together")
            if isinstance(alone, list) and isinstance(together, list):
                print(f"  collusion: alone holder {alone[0]['docs'][0]['score']:g}, reader "
                      f"{alone[1]['docs'][0]['score']:g}; together "
                      + ", ".join(f"{d['score']:g}" for d in together[0]["docs"]))
            else:
                print(f"  collusion: {alone if isinstance(alone, str) else together}")
        finally:
            subprocess.run(["rm", "-rf", str(base)], check=False)


if __name__ == "__main__":
    main()
