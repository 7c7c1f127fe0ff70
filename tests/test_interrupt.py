"""Ctrl-C and SIGTERM in the middle of `grade`: a real signal, then the reports counted."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo" / "class" / "lab01_graph"
STOP_WITHIN_S = 2.0  # on a machine that gives this run's processes a whole CPU
HANG_S = 60.0  # no exit by then: a hang, whatever the load (the grader's threads are dumped)
# A process that spins for SPIN_CPU_S of CPU time and prints how long that took on the clock:
# the clock seconds a second of CPU costs a process of this run's priority right now.
SPIN_CPU_S = 0.25
CLASS_SIZE = 40
REPORTS_BEFORE_SIGNAL = 3  # the signal comes mid-run: after this many reports, before the last
PROGRESS = re.compile(rf"\[\d+/{CLASS_SIZE}\] ")
SPINNER = ("import time\nstart, clock = time.process_time(), time.monotonic()\n"
           f"while time.process_time() - start < {SPIN_CPU_S}: pass\n"
           "print(time.monotonic() - clock)")


def make_class(folder: Path, size: int) -> list[Path]:
    """size submissions, copies of the demo students in turn."""
    students = sorted(path for path in DEMO.iterdir() if path.is_dir())
    paths = []
    for index in range(size):
        target = folder / f"s{index:03d}-{students[index % len(students)].name}"
        shutil.copytree(students[index % len(students)], target)
        paths.append(target)
    return paths


def finished_reports(out: Path) -> list[Path]:
    return sorted(path.parent for path in out.glob("*/scores.json"))


class Progress:
    """The grader's stderr, read as it comes: `reached` is set at the REPORTS_BEFORE_SIGNAL-th
    progress line (printed once a report exists) or at the end of the output, so the test waits
    for that event instead of polling the report folder."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self.reached = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.append(line)
            if len([seen for seen in self.lines if PROGRESS.match(seen)]) >= REPORTS_BEFORE_SIGNAL:
                self.reached.set()
        self.reached.set()

    def text(self, timeout: float) -> str:
        """Everything the grader printed on stderr, once it closed it."""
        self._thread.join(timeout)
        return "".join(self.lines)


@pytest.mark.parametrize(("signum", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_run_stops_within_two_seconds_and_keeps_each_finished_report(
        tmp_path: Path, signum: int, exit_code: int) -> None:
    paths = make_class(tmp_path / "class", CLASS_SIZE)
    out = tmp_path / "out"
    env = {**os.environ, "GRADER_LANG": "en", "NO_COLOR": "1", "PYTHONFAULTHANDLER": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", "grade", "lab01_graph", *map(str, paths),
         "--out", str(out), "--workers", "2", "--seed", "interrupt-test"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    progress = Progress(process.stderr)
    assert progress.reached.wait(240), "no report after 240 s"
    assert len(finished_reports(out)) >= REPORTS_BEFORE_SIGNAL, progress.text(0)
    assert process.poll() is None, "the run ended before it could be interrupted"
    sent = time.monotonic()
    process.send_signal(signum)
    spinner = subprocess.Popen([sys.executable, "-c", SPINNER], stdout=subprocess.PIPE, text=True)
    try:
        process.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: every thread's traceback
        process.wait()
        pytest.fail(f"no exit {HANG_S:g} s after {signum!r}: a hang:\n{progress.text(10)[-6000:]}")
    took = time.monotonic() - sent
    stderr = progress.text(HANG_S)
    # The limit is STOP_WITHIN_S of CPU share: a busy machine (load 8 on two cores) makes every
    # step of the stop slower on the clock, and fails no one; waiting for the running shards
    # (tens of seconds of grading) fails at any load.
    slowdown = max(1.0, float(spinner.communicate(timeout=HANG_S)[0]) / SPIN_CPU_S)
    assert took <= STOP_WITHIN_S * slowdown, (
        f"took {took:.2f} s to stop after {signum!r} (the machine gave a second of CPU in "
        f"{slowdown:.1f} s):\n{stderr[-1500:]}")
    assert process.returncode == exit_code, f"exit {process.returncode}\n{stderr[-1500:]}"

    said = re.search(rf"Interrupted: (\d+) of {CLASS_SIZE} reports written", stderr)
    assert said, f"no interruption line:\n{stderr[-1500:]}"
    reports = finished_reports(out)
    assert int(said.group(1)) == len(reports), (said.group(0), [p.name for p in reports])
    assert REPORTS_BEFORE_SIGNAL <= len(reports) < CLASS_SIZE, f"{len(reports)} reports: not a mid-run stop"
    folders = [path for path in out.iterdir() if path.is_dir()]
    assert sorted(folders) == reports, "a report folder without scores.json: half written"
    for folder in reports:
        names = sorted(path.name for path in folder.iterdir())
        assert names == ["feedback.html", "feedback.md", "scores.json"], (folder.name, names)
        doc = json.loads((folder / "scores.json").read_text(encoding="utf-8"))
        assert doc["status"] == "graded" and doc["checks"], (folder.name, doc["status"])
    lines = (out / "class.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + len(reports), "class.csv lists the finished reports"
    printed = [line for line in stderr.splitlines() if PROGRESS.match(line)]
    assert len(printed) == len(reports), "one progress line per finished report"
