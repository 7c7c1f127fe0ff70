"""What one hostile submission costs the trusted side before and after the scenarios: intake
(reading, cleaning, scanning) and reporting (the score document, its renderings).

Usage: python bench/intake_costs.py [--source CHECKOUT] [--timeout S] [--case NAME ...]

Each case of issue 38 (the red-team fixtures' own `generate.py` write its input) runs in a
child process of its own, as grade_class's intake does (`batch._prepare_all`), then its
document is built and rendered as `write_reports` would. Prints per case: the input's bytes,
the outcome (prepared for the sandbox with its flags, ungradable, or the grader's error), the
seconds of intake (with the document: `_prepare_all`, or building the document of the last
case) and of reporting (scores.json and both feedback files written to memory), the child's
peak memory (max RSS, writing the input included), and the bytes of scores.json, feedback.md
and feedback.html. A case past --timeout is stopped and printed as such.

`--source /work/main` measures another checkout's grader on the same inputs (the "before"
figures of docs/limits.md); the default is this checkout.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REDTEAM = ROOT / "tests" / "fixtures" / "redteam"
# case -> (the red-team fixture whose generate.py writes it, the file of it handed in)
CASES = {
    "value.py padded with newlines to 1 MiB": ("pad-value-py-newlines", "value.py"),
    "notebook cell padded with 500,000 newlines": ("pad-notebook-cell-newlines",
                                                   "lab01_graph.ipynb"),
    "zip of 20,000 equal candidates": ("zip-20000-equal-candidates", "submission.zip"),
    "1,000 forbidden calls through a 16 KB alias": ("flag-amplifier", "value.py"),
    "notebook metadata nesting 300,000 lists": ("notebook-deep-nesting", "lab01_graph.ipynb"),
    "feedback of 10 checks whose messages are 16 K spaces": ("", ""),
}
SPACES_CHECKS = ("add-builds-node", "add-local-derivative", "add-passes-upstream-gradient",
                 "backward-calls-each-node-once", "backward-runs-in-topological-order",
                 "backward-seeds-output", "course-diamond-example", "course-example-graph",
                 "diamond-accumulates", "equal-data-leaves-stay-distinct")


def _generate(fixture: str, target: Path) -> None:
    spec = importlib.util.spec_from_file_location("generate", REDTEAM / fixture / "generate.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.generate(target)


def _intake(fixture: str, handed_in: str, scratch: Path) -> tuple[dict[str, Any], int, float]:
    """The case's document as grade_class would have it after intake, its input's bytes, and
    the seconds intake took (writing the input not counted)."""
    from grader.common.labs import get_lab
    from grader.grading.batch import BatchOptions, _prepare_all
    from grader.grading.shard import GradingPlan, suites_for
    from grader.intake.collect import Submission
    from grader.results.build import graded_document

    target = scratch / "in"
    target.mkdir()
    _generate(fixture, target)
    lab = get_lab("lab01_graph")
    path = target / handed_in
    source = target if handed_in == lab.main_file else path
    plan = GradingPlan(lab, suites_for(lab, hidden=False), "bench", "en", in_process=True)
    work = scratch / "work"
    work.mkdir()
    docs: list[dict[str, Any]] = []
    started = time.perf_counter()
    pending = _prepare_all(plan, [Submission("case", source)], BatchOptions(out_dir=None),
                           work, lambda doc, kept=False: docs.append(doc))
    for prepared in pending:  # the sandbox's part is not measured: no check, the flags
        record = {"id": prepared.id, "source": prepared.source, "digest": prepared.digest}
        docs.append(graded_document(lab.name, record, [], list(prepared.flags), "en",
                                    plan.isolation()))
    return docs[0], path.stat().st_size, time.perf_counter() - started


def _spaces_document() -> tuple[dict[str, Any], int, float]:
    """A document of failed checks whose exception messages are runs of spaces (the longest a
    document keeps), as the child would report them."""
    from grader.results.build import graded_document

    message = " " * 300_000 + "x"
    entries = [{"submission": "case", "check": check, "pitfall": "grad-overwrite", "weight": 1.0,
                "visibility": "hidden", "status": "failed", "output": None, "flags": [],
                "isolation": None, "problem": None, "duration_s": 0.0,
                "detail": {"kind": "exception",
                           "params": {"type": "ValueError", "message": message, "where": ""}}}
               for check in SPACES_CHECKS]
    isolation = {"level": "jail", "how": "root", "memory": "cgroup"}
    record = {"id": "case", "source": "case", "digest": ""}
    started = time.perf_counter()
    doc = graded_document("lab01_graph", record, entries, [], "en", isolation)
    return doc, len(message), time.perf_counter() - started


def child(case: str) -> None:
    """Run one case in this process; print its figures as one JSON line."""
    from grader.results.render import render_feedback

    fixture, handed_in = CASES[case]
    with tempfile.TemporaryDirectory(prefix="minigrad-bench-intake-") as scratch:
        doc, input_bytes, intake_s = (_intake(fixture, handed_in, Path(scratch)) if fixture
                                      else _spaces_document())
        started = time.perf_counter()
        scores = len(json.dumps(doc, indent=2, ensure_ascii=False).encode("utf-8"))
        markdown = len(render_feedback(doc, "markdown").encode("utf-8"))
        html = len(render_feedback(doc, "html").encode("utf-8"))
        report_s = time.perf_counter() - started
    reason = ((doc.get("reason") or {}).get("params") or {})
    outcome = doc["status"] if doc["status"] != "graded" else "prepared"
    if doc["status"] == "grader-error":
        outcome += f" ({reason.get('reference', {}).get('params', {}).get('error', '')[:60]})"
    print(json.dumps({"input": input_bytes, "outcome": outcome, "flags": len(doc["flags"]),
                      "scores": scores, "markdown": markdown, "html": html,
                      "intake_s": intake_s, "report_s": report_s}))


def measure(case: str, source: Path, timeout: float) -> dict[str, Any]:
    """One case in a child process importing the grader of `source`: its figures, its wall
    time and peak memory; stopped after `timeout` seconds."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, __file__, "--child", case, "--source", str(source)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                               start_new_session=True)
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            _, status, usage = os.wait4(process.pid, 0)
            return {"stopped": True, "wall": time.monotonic() - started,
                    "rss_mb": usage.ru_maxrss / 1024}
        time.sleep(0.05)
    wall = time.monotonic() - started
    assert process.stdout is not None and process.stderr is not None
    out, err = process.stdout.read().decode(), process.stderr.read().decode()
    if not out.strip():
        return {"failed": err.strip().splitlines()[-1:] or [f"exit {status}"], "wall": wall,
                "rss_mb": usage.ru_maxrss / 1024}
    return {**json.loads(out.strip().splitlines()[-1]), "wall": wall,
            "rss_mb": usage.ru_maxrss / 1024}


def _row(case: str, figures: dict[str, Any], timeout: float) -> str:
    if figures.get("stopped"):
        return (f"{case:54} stopped after {timeout:g} s (no outcome)   "
                f"peak {figures['rss_mb']:.0f} MB")
    if "failed" in figures:
        return f"{case:54} the child failed: {figures['failed']}"
    return (f"{case:54} {figures['input'] / 1024:8.0f} KiB  {figures['outcome']:22} "
            f"{figures['flags']:4} flags  intake {figures['intake_s']:7.2f} s  "
            f"report {figures['report_s']:6.2f} s  "
            f"peak {figures['rss_mb']:5.0f} MB  scores.json {figures['scores'] / 1024:8.0f} KiB  "
            f"feedback.md {figures['markdown'] / 1024:8.0f} KiB  "
            f"feedback.html {figures['html'] / 1024:8.0f} KiB")


def main() -> None:
    """Parse the arguments; run the cases (or, with --child, one case here)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT, help="the grader checkout to measure")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per case")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only this case")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(args.source.resolve()))
    if args.child:
        child(args.child)
        return
    print(f"grader: {args.source.resolve()}  (python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})")
    for case in args.case or list(CASES):
        print(_row(case, measure(case, args.source.resolve(), args.timeout), args.timeout),
              flush=True)


if __name__ == "__main__":
    main()
