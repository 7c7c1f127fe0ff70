"""Tests for grader.grading.batch's availability: one student's submission never stops, slows down or
swells the class; whatever it does ends in that student's own report."""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from grader.common.labs import get_lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for
from grader.results.report_folder import SHARD_RECORD, OutputUnwritable, class_files

CLASS_FILES = class_files()

sys.path.insert(0, str(Path(__file__).parent))
from test_submission import ZIP_DAMAGE, damaged_zip  # noqa: E402 - the broken zips intake refuses

LAB = get_lab("lab01_graph")
SOLUTION = (LAB.solution_dir / LAB.main_file).read_text(encoding="utf-8")
# Every operation takes 1.5 s: each scenario runs near or to its time limit (no budget: ~90 s).
TARPIT = SOLUTION + """

import time


def _slow(operation):
    def slowly(self, other):
        time.sleep(1.5)  # under the 2 s limit of a scenario: every check passes, slowly
        return operation(self, other)
    return slowly


Value.__add__, Value.__mul__ = _slow(Value.__add__), _slow(Value.__mul__)
"""
SURROGATES = SOLUTION + """

def _raise(self, other):
    raise ValueError("x \\ud800 \\x1b]52;c;aGk=\\x07 \\u202eevil")


Value.__mul__ = Value.__rmul__ = _raise
"""


def folder(root: Path, name: str, source: str) -> Path:
    """A submission folder holding value.py."""
    path = root / name
    path.mkdir(parents=True)
    (path / "value.py").write_text(source, encoding="utf-8")
    return path


def grade(paths: list[Path], out_dir: Path, *, budget_s: float = 60.0, resume: bool = False,
          shard_timeout_s: float = 120.0, progress: Any = None) -> list[dict[str, Any]]:
    """grade_class over the paths with the hidden suite, two workers."""
    plan = GradingPlan(LAB, suites_for(LAB, hidden=True), seed="availability", lang="en",
                       budget_s=budget_s)
    options = BatchOptions(out_dir=out_dir, workers=2, resume=resume,
                           shard_timeout_s=shard_timeout_s)
    return grade_class(plan, paths, options, progress or (lambda *_: None))


def full_marks(doc: dict[str, Any]) -> bool:
    return doc["status"] == "graded" and doc["score"] == doc["max_score"] > 0


def test_broken_zips_reserved_names_and_surrogates_are_their_own_reports(tmp_path: Path) -> None:
    paths = [folder(tmp_path, "ana", SOLUTION)]
    for how in ZIP_DAMAGE:
        (tmp_path / f"{how}.zip").write_bytes(damaged_zip(how, content=SOLUTION.encode()))
        paths.append(tmp_path / f"{how}.zip")
    with zipfile.ZipFile(tmp_path / "class.csv.zip", "w") as bundle:
        bundle.writestr("value.py", SOLUTION)
    paths += [tmp_path / "class.csv.zip", folder(tmp_path / "x", "dashboard.html", SOLUTION),
              folder(tmp_path, "surrogates", SURROGATES)]
    out = tmp_path / "out"
    docs = grade(paths, out)
    ids = [doc["submission"]["id"] for doc in docs]
    assert ids == ["ana", *ZIP_DAMAGE, "class.csv-2", "dashboard.html-2", "surrogates"], ids
    for doc in docs[1:5]:
        assert doc["status"] == "ungradable", doc["submission"]["id"]
        assert "cannot be read from the zip" in doc["reason"]["text"], doc["reason"]
    assert all(full_marks(doc) for doc in (docs[0], docs[5], docs[6])), [d["score"] for d in docs]
    assert docs[7]["status"] == "graded" and 0 < docs[7]["score"] < docs[7]["max_score"]
    for name in CLASS_FILES[:2]:
        assert (out / name).is_file(), f"{name} is not a file"
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [], "staging left"
    again = grade(paths, out, resume=True)
    assert [doc["submission"]["id"] for doc in again] == ids, "ids moved on --resume"
    assert [doc["graded_at"] for doc in again[5:]] == [doc["graded_at"] for doc in docs[5:]], \
        "--resume regraded reports it had"


@pytest.fixture(scope="module")
def tarpit_class(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """40 students, 7 of them tarpits next to each other in the class, 4 s budgets, and a
    shard limit (20 s + 4 s per submission) that 7 tarpits without budgets would pass."""
    root = tmp_path_factory.mktemp("tarpits")
    paths = [folder(root, f"s{n:02d}", TARPIT if 5 <= n < 12 else SOLUTION) for n in range(40)]
    return grade(paths, root / "out", budget_s=4.0, shard_timeout_s=20.0)


def test_tarpits_are_stopped_at_their_budget_with_the_checks_they_finished(
        tarpit_class: list[dict[str, Any]]) -> None:
    for doc in tarpit_class[5:12]:
        statuses = {check["status"] for check in doc["checks"]}
        kinds = {(check["detail"] or {}).get("kind") for check in doc["checks"]}
        assert doc["status"] == "graded" and "over-budget" in kinds, (doc["submission"], kinds)
        assert "passed" in statuses, f"{doc['submission']['id']}: no finished check kept"
        assert doc["duration_s"] < 30, f"{doc['submission']['id']}: {doc['duration_s']} s"


def test_every_classmate_of_the_tarpits_keeps_a_complete_report(
        tarpit_class: list[dict[str, Any]]) -> None:
    others = tarpit_class[:5] + tarpit_class[12:]
    lost = {doc["submission"]["id"]: (doc["status"], doc["score"]) for doc in others
            if not full_marks(doc)}
    assert not lost, f"classmates of the tarpits lost points: {lost}"
    assert len(others) == 33


def test_a_tarpit_report_says_what_stopped_it(tarpit_class: list[dict[str, Any]]) -> None:
    text = json.dumps(tarpit_class[5], ensure_ascii=False)
    assert "all of its checks may take together" in text, "the over-budget sentence is missing"


def test_resume_after_a_staging_folder_was_left_removes_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    paths = [folder(tmp_path, "ana", SOLUTION)]
    grade(paths, out)
    (out / ".ana.abcd_123").mkdir()  # a report folder half written when the disk filled up
    (out / ".ana.abcd_123" / "scores.json").write_text("{", encoding="utf-8")
    shutil.copytree(out / "ana", out / ".ana.old.efgh5678")
    grade(paths, out, resume=True)
    assert sorted(p.name for p in out.iterdir()) == sorted(["ana", *CLASS_FILES[:2], SHARD_RECORD]), \
        sorted(p.name for p in out.iterdir())


def test_a_read_only_report_folder_stops_grading_naming_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(out)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,ro", str(out)], check=True)
        with pytest.raises(OutputUnwritable) as caught:
            grade([folder(tmp_path, "ana", SOLUTION)], out)
    finally:
        subprocess.run(["umount", "-l", str(out)], check=False)
    # the first file it writes (the shard record, then the reports) names the folder
    assert caught.value.errno == errno.EROFS and caught.value.path.parent == out, caught.value
    assert caught.value.kept == 0


def test_a_report_folder_that_vanishes_stops_grading_naming_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    paths = [folder(tmp_path, name, SOLUTION) for name in ("ana", "ben", "carla")]

    def remove_out(done: int, total: int, doc: dict[str, Any], kept: bool) -> None:
        shutil.rmtree(out)

    with pytest.raises(OutputUnwritable) as caught:
        grade(paths, out, progress=remove_out)
    assert caught.value.errno == errno.ENOENT and caught.value.path.parent == out, caught.value
    assert caught.value.kept == 1


# A shard's thread waits forever; Ctrl-C is delivered to that thread, not to the main one (the
# kernel may pick any thread of the process). The main thread must still see it.
SIGNAL_IN_A_WORKER = """
import os, signal, threading
from concurrent.futures import ThreadPoolExecutor
from grader.grading.batch import wait_for_each

started, never = threading.Event(), threading.Event()
worker = []

def shard():
    worker.append(threading.get_ident())
    started.set()
    never.wait()

future = ThreadPoolExecutor(max_workers=1).submit(shard)
started.wait()
threading.Timer(0.3, signal.pthread_kill, (worker[0], signal.SIGINT)).start()
try:
    wait_for_each([future])
except KeyboardInterrupt:
    print("interrupted", flush=True)
    os._exit(0)
"""


def test_ctrl_c_delivered_to_a_shard_thread_still_stops_the_wait() -> None:
    try:
        result = subprocess.run([sys.executable, "-c", SIGNAL_IN_A_WORKER], capture_output=True,
                                text=True, timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail("the main thread never saw the Ctrl-C its shard thread received")
    assert result.stdout.strip() == "interrupted", result.stderr[-2000:]
