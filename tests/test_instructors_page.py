"""docs/instructors.md, run as written: every command of its shell blocks, in the page's order,
in one shell (so `export GRADER_SEED=...` holds for the commands after it), from a fresh folder
holding this repository's `.venv` and the downloads the page names (a Canvas and a Moodle
download built as the LMSs name them, tests/platforms/lms_archives.py, and the gradebooks of
tests/data/lms/). Each command must exit 0; the test prints every command with its exit code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "instructors.md"
LMS_DATA = ROOT / "tests" / "data" / "lms"
RC_MARK = "::instructors-page-rc::"
sys.path.insert(0, str(ROOT / "tests" / "platforms"))
from lms_archives import CANVAS_FILES, moodle_files, write_zip  # noqa: E402


def shell_commands(markdown: str) -> list[str]:
    """The commands of the page's ```sh blocks, in order; a line ending in `\\` continues."""
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.M | re.S):
        pending = ""
        for line in block.splitlines():
            pending += line
            if pending.endswith("\\"):
                pending = pending[:-1] + " "
                continue
            if pending.strip() and not pending.lstrip().startswith("#"):
                commands.append(pending.strip())
            pending = ""
    return commands


def downloads(folder: Path) -> None:
    """What the page says is in downloads/: the LMSs' submission zips and gradebooks."""
    folder.mkdir(parents=True)
    write_zip(folder / "submissions.zip", CANVAS_FILES)
    write_zip(folder / "CS101-Lab 01-12345.zip", moodle_files("4.1"))
    shutil.copyfile(LMS_DATA / "canvas_gradebook_export.csv", folder / "Grades-CS101.csv")
    shutil.copyfile(LMS_DATA / "moodle_worksheet_es.csv",
                    folder / "Grades-CS101-Lab 01-12345.csv")


def test_the_page_has_the_course_in_order() -> None:
    """Seed, grade (Canvas, Moodle), gradebook back, feedback back, Gradescope, PrairieLearn."""
    commands = shell_commands(PAGE.read_text(encoding="utf-8"))
    firsts = [next(i for i, c in enumerate(commands) if word in c) for word in (
        "GRADER_SEED=", "--lms canvas", "--lms moodle", "--points 10 --out", "canvas_feedback.zip",
        "export gradescope", "export prairielearn")]
    assert firsts == sorted(firsts), commands


@pytest.mark.slow  # five gradings of a class (about 30 s): `make test`, not `make test-fast`
@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(), reason="no .venv: make venv")
def test_every_command_of_the_instructors_page_runs_as_written(tmp_path: Path) -> None:
    commands = shell_commands(PAGE.read_text(encoding="utf-8"))
    assert len(commands) >= 8, commands
    work = tmp_path / "course"
    work.mkdir()
    (work / ".venv").symlink_to(ROOT / ".venv")
    downloads(work / "downloads")
    script = "\n".join(f"{command}\necho \"{RC_MARK}$?\"" for command in commands)
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANG", "LC_ALL", "LANGUAGE", "GRADER_SEED", "GRADER_LANG")}
    env.update(NO_COLOR="1", GRADER_LANG="en")
    done = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True,
                          text=True, timeout=1200, check=False)
    codes = [int(code) for code in re.findall(rf"{re.escape(RC_MARK)}(\d+)", done.stdout)]
    report = "\n".join(f"exit {code}: {' '.join(command.split())}" for command, code in zip(commands, codes,
                                                                           strict=False))
    print(report)
    assert len(codes) == len(commands), (report, done.stdout[-2000:], done.stderr[-3000:])
    assert codes == [0] * len(commands), (report, done.stderr[-3000:])
    out = work / "out" / "lab01"
    for name in ("class.csv", "dashboard.html", "canvas_gradebook.csv", "canvas_feedback.zip",
                 "gradebook_download.csv", "gradebook.json"):
        assert (out / name).is_file(), name  # what the page's table says OUT holds
    assert (work / "out" / "lab01-moodle" / "moodle_feedback.zip").is_file()
    assert (work / "exports" / "lab01_autograder.zip").is_file()
    assert "public seed" not in done.stderr  # the seed the page exports was used
