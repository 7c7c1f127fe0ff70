"""Ctrl-C and SIGTERM in the middle of `grade`: a real signal, then the reports counted."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo" / "class" / "lab01_graph"
STOP_WITHIN_S = 2.0


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


@pytest.mark.parametrize(("signum", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_run_stops_within_two_seconds_and_keeps_each_finished_report(
        tmp_path: Path, signum: int, exit_code: int) -> None:
    paths = make_class(tmp_path / "class", 40)
    out = tmp_path / "out"
    env = {**os.environ, "GRADER_LANG": "en", "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", "grade", "lab01_graph", *map(str, paths),
         "--out", str(out), "--workers", "2", "--seed", "interrupt-test"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while len(finished_reports(out)) < 3 and process.poll() is None:
        assert time.monotonic() < deadline, "no report after 240 s"
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be interrupted"
    sent = time.monotonic()
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=30)
    took = time.monotonic() - sent
    assert took <= STOP_WITHIN_S, f"took {took:.2f} s to stop after {signum!r}:\n{stderr[-1500:]}"
    assert process.returncode == exit_code, f"exit {process.returncode}\n{stderr[-1500:]}"

    said = re.search(r"Interrupted: (\d+) of 40 reports written", stderr)
    assert said, f"no interruption line:\n{stderr[-1500:]}"
    reports = finished_reports(out)
    assert int(said.group(1)) == len(reports), (said.group(0), [p.name for p in reports])
    assert 3 <= len(reports) < 40, f"{len(reports)} reports: not a mid-run stop"
    folders = [path for path in out.iterdir() if path.is_dir()]
    assert sorted(folders) == reports, "a report folder without scores.json: half written"
    for folder in reports:
        names = sorted(path.name for path in folder.iterdir())
        assert names == ["feedback.html", "feedback.md", "scores.json"], (folder.name, names)
        doc = json.loads((folder / "scores.json").read_text(encoding="utf-8"))
        assert doc["status"] == "graded" and doc["checks"], (folder.name, doc["status"])
    lines = (out / "class.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + len(reports), "class.csv lists the finished reports"
    progress = [line for line in stderr.splitlines() if re.match(r"\[\d+/40\] ", line)]
    assert len(progress) == len(reports), "one progress line per finished report"
