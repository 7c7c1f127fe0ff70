"""What goes back to a course after grading: an LMS download graded without --lms refused, and
one total per student, rounded once, whatever the platform."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lms_archives import CANVAS_FILES, SOLUTION, canvas_export, moodle_export, write_zip

from grader.intake import lms
from grader.platforms import gradescope
from grader.results import fill_in
from grader.results.gradebook import scaled

ROOT = Path(__file__).resolve().parents[2]
LMS_DATA = ROOT / "tests" / "data" / "lms"


def grader(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`python -m grader ARGS` as an instructor runs it, in English."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LANGUAGE")}
    env.update(GRADER_LANG="en", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


# --- an LMS download graded without --lms ------------------------------------------------------


def unpacked(export: Path, folder: Path) -> Path:
    """The download unpacked as an instructor would (`unzip`), without the grader's help."""
    shutil.unpack_archive(export, folder, "zip")
    return folder


@pytest.mark.parametrize("kind", ["canvas", "moodle"])
def test_a_download_graded_without_lms_is_refused_naming_the_option(tmp_path: Path,
                                                                   kind: str) -> None:
    """Its zip, its unpacked folder, and its entries one by one (`DIR/*`, what the hint for a
    folder of student folders suggests) are each refused in one line naming --lms KIND, before
    any grading: graded anyway, one student's files would be several students."""
    export = canvas_export(tmp_path / "in") if kind == "canvas" else moodle_export(tmp_path / "in")
    folder = unpacked(export, tmp_path / "unpacked")
    entries = sorted(folder.iterdir())
    assert lms.download_naming(entries) == kind == lms.download_naming([export])
    for given in ([export], [folder], entries):
        result = grader("grade", "lab01_graph", *given, "--out", tmp_path / "out")
        assert result.returncode == 2, result
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert f"--lms {kind}" in result.stderr and not (tmp_path / "out").exists(), result.stderr


def test_submissions_not_named_as_a_download_are_not_taken_for_one(tmp_path: Path) -> None:
    """One student's zip, student folders, and files whose names merely hold numbers."""
    one = write_zip(tmp_path / "ana.zip", {"lab01_graph/value.py": SOLUTION,
                                          "lab01_graph/notes_2_3.txt": b""})
    students = []
    for name in ("ana", "ben_2", "carla_2024_v2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "value.py").write_bytes(SOLUTION)
        students.append(tmp_path / name)
    assert lms.download_naming([one]) is None
    assert lms.download_naming(students) is None
    # a single Canvas-named file is one submission as given (a class needs two)
    [name] = [n for n in CANVAS_FILES if n.endswith("value.py")][:1]
    assert lms.download_naming([tmp_path / name]) is None


# --- one rounding ------------------------------------------------------------------------------


def doc_of(passed: int, total: int) -> dict:
    """A graded document of `total` checks of weight 1, `passed` of them passed."""
    doc = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    template = next(c for c in doc["checks"] if c["status"] == "passed")
    checks = []
    for index in range(total):
        check = copy.deepcopy(template)
        ok = index < passed
        check.update(max_score=1.0, score=1.0 if ok else 0.0, status="passed" if ok else "failed")
        checks.append(check)
    return {**doc, "checks": checks, "score": float(passed), "max_score": float(total)}


@pytest.mark.parametrize(("passed", "total", "points", "expected"), [
    (98, 119, 10.0, "8.24"),   # issue 33: Gradescope's rounded checks added up to 8.26
    (1, 3, 10.0, "3.33"), (2, 3, 10.0, "6.67"), (1, 8, 1.0, "0.12"), (119, 119, 7.5, "7.5"),
])
def test_every_platform_gives_the_total_rounded_once(passed: int, total: int, points: float,
                                                     expected: str) -> None:
    """The same number in Gradescope's recorded score, Canvas's filled export and Moodle's
    worksheet: the exact share of the points rounded once to hundredths."""
    doc = doc_of(passed, total)
    doc["submission"] = {**doc["submission"], "student_id": "1001", "lms": "canvas"}
    assert scaled(doc, points) == float(expected)
    assert gradescope.results(doc, points=points)["score"] == float(expected)
    header = "Student,ID,SIS User ID,SIS Login ID,Section,Lab (4321)\n"
    export = header + f"    Points Possible,,,,,{points}\n\"Doe, Jane\",1001,S1,jd,A,\n"
    filled = fill_in.fill(export.encode(), "e.csv", [doc], "lab01_graph", None, "4321").text
    assert filled.splitlines()[-1].rsplit(",", 1)[1] == expected, filled
