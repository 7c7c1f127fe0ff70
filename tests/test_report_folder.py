"""The report folder's names: every file the grader writes beside the reports is reserved, and a
student folder named like one of them can neither take its name nor overwrite it (red team).

The names are not taken from a list of ours alone: the files a real `grade --similarity` of an
LMS download writes are listed from disk, and each must be a reserved name; then each reserved
name is handed in as a student's folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.common.atomic import TEMPORARY_SUFFIX
from grader.common.labs import get_lab
from grader.grading.batch import class_members
from grader.results.lms.feedback_return import PARTIAL
from grader.results.lms.registry import TARGETS
from grader.results.report_folder import SIMILARITY_HTML, class_files, outputs, reserved_ids
from grader.semester import regrade
from grader.similarity import command

CLASS_FILES, OUTPUTS, RESERVED_IDS = class_files(), outputs(), reserved_ids()
ROOT = Path(__file__).resolve().parent.parent
LAB = get_lab("lab01_graph")
SOLUTION = ROOT / "solutions" / "lab01_graph" / "value.py"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`python -m grader ...` as an instructor runs it, in English."""
    env = {k: v for k, v in os.environ.items() if k not in ("GRADER_LANG", "LANG", "LC_ALL")}
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=ROOT,
                          env={**env, "GRADER_LANG": "en", "NO_COLOR": "1"},
                          capture_output=True, text=True, timeout=600, check=False)


def test_the_writers_take_their_names_from_the_report_folder() -> None:
    """The similarity report, the regrade diff and every LMS target's files are outputs."""
    written = {command.HTML_FILE, command.JSON_FILE, command.IDS_FILE, regrade.DIFF_FILE,
               *(name for target in TARGETS for name in target.class_files), *CLASS_FILES}
    assert written <= set(OUTPUTS), sorted(written - set(OUTPUTS))


def test_every_output_and_its_temporary_twins_are_reserved() -> None:
    for name in OUTPUTS:
        for twin in ("", TEMPORARY_SUFFIX, PARTIAL):
            assert name + twin in RESERVED_IDS, f"{name + twin} is not reserved"


@pytest.mark.parametrize("name", sorted(RESERVED_IDS))
def test_a_student_folder_named_as_an_output_gets_another_id(tmp_path: Path, name: str) -> None:
    """A folder (or zip) named as a reserved file, in any case, never gets that id."""
    folders = []
    for shown in (name, name.upper()):
        folder = tmp_path / shown.replace(".", "_dot_") / shown
        folder.mkdir(parents=True)
        shutil.copy(SOLUTION, folder / "value.py")
        folders.append(folder)
    archive = tmp_path / f"{name}.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.write(SOLUTION, "value.py")
    ids = [member.id for member in class_members([*folders, archive], LAB)]
    reserved = {reserved.casefold() for reserved in RESERVED_IDS}
    assert not [i for i in ids if i.casefold() in reserved], ids
    assert len({i.casefold() for i in ids}) == len(ids), ids


def canvas_download(folder: Path, students: dict[str, str]) -> Path:
    """A Canvas "Download Submissions" zip: one value.py per (sortable name, user id)."""
    path = folder / "submissions.zip"
    with zipfile.ZipFile(path, "w") as bundle:
        for index, (name, user) in enumerate(sorted(students.items())):
            bundle.write(SOLUTION, f"{name}_{user}_{9000 + index}_value.py")
    return path


def test_a_graded_download_writes_only_reserved_names_and_keeps_them(tmp_path: Path) -> None:
    """Grade a Canvas class with --similarity beside student folders named as the similarity
    report: every file the run leaves beside the reports is a reserved name, and the report is
    the grader's file (before the similarity names were reserved, the student's report folder
    took `similarity.html` and the run failed writing the report over it)."""
    out = tmp_path / "out"
    export = canvas_download(tmp_path, {"ana": "101", "bea": "102"})
    done = run("grade", LAB.name, export, "--lms", "canvas", "--out", out, "--similarity",
               "--points", "10", "--canvas-column", "Lab 1 (77)", "--workers", "1")
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in out.iterdir() if p.is_file())
    assert files and not [name for name in files if name not in RESERVED_IDS], files
    assert {"canvas_gradebook.csv", "canvas_feedback.zip", SIMILARITY_HTML} <= set(files)

    hostile = tmp_path / "hostile"
    for name in (SIMILARITY_HTML, "similarity.json"):
        (hostile / name).mkdir(parents=True)
        shutil.copy(SOLUTION, hostile / name / "value.py")
    out = tmp_path / "out-hostile"
    done = run("grade", LAB.name, *sorted(hostile.iterdir()), "--out", out, "--similarity",
               "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert (out / SIMILARITY_HTML).is_file() and (out / "similarity.json").is_file()
    reports = sorted(p.name for p in out.iterdir() if (p / "scores.json").is_file())
    assert len(reports) == 2 and not set(reports) & RESERVED_IDS, reports


def test_a_students_check_loads_no_class_file_module() -> None:
    """The notebook's check cell (and `check`) writes no report folder: the class files and the
    LMS targets are imported when a folder is written, not when a student's check starts."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, grader.notebook; print(sorted(m for m in sys.modules "
         "if m.startswith(('grader.results.lms', 'grader.results.class_files'))))"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True).stdout.strip()
    assert loaded == "[]", loaded
