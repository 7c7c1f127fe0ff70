"""docs/semester.md: every command of the page runs as written, and prints what the page shows.

The page's files (`<!-- file: NAME -->` before a block) are written as shown; its `sh` blocks
run in order with bash, in a folder whose `submissions/` holds three students' lab01 folders
(ana: the reference solution; ben: bfs-order; carla: grad-overwrite-in-add); the blocks marked
`<!-- output: ... -->` are compared with what the commands printed and wrote.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "semester.md"
BLOCK = re.compile(r"(?:<!-- (?P<mark>file|output): (?P<name>[^ ]+) -->\n)?```(?P<lang>\w+)\n"
                   r"(?P<body>.*?)```", re.S)
STUDENTS = {"ana": ROOT / "solutions" / "lab01_graph",
            "ben": ROOT / "tests" / "fixtures" / "lab01_graph" / "bfs-order",
            "carla": ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-add"}


def blocks() -> list[dict[str, str]]:
    """The page's fenced blocks, in order, with their marks."""
    return [match.groupdict() for match in BLOCK.finditer(PAGE.read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Run the page in a fresh course folder; the folder and the sh blocks' output."""
    folder = tmp_path_factory.mktemp("course")
    for student, source in STUDENTS.items():
        shutil.copytree(source, folder / "submissions" / student,
                        ignore=shutil.ignore_patterns("expected.toml", "__pycache__"))
    for block in blocks():
        if block["mark"] == "file":
            (folder / block["name"]).write_text(block["body"], encoding="utf-8")
    script = "set -euo pipefail\n" + "".join(b["body"] for b in blocks() if b["lang"] == "sh")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
           "GRADER_LANG": "en", "PYTHONPATH": str(ROOT)}
    env.pop("GRADER_SEED", None)
    done = subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    return {"folder": folder, "stdout": done.stdout}


def shown(name: str) -> str:
    """The body of the block the page marks as the output `name`."""
    [body] = [b["body"] for b in blocks() if b["mark"] == "output" and b["name"] == name]
    return body


def test_the_page_has_every_semester_command() -> None:
    commands = " ".join(b["body"] for b in blocks() if b["lang"] == "sh")
    for action in ("record", "grades", "extend", "override", "regrade", "export", "verify"):
        assert f"python -m grader semester {action} " in commands, action
    for option in ("--dry-run", "--check ", "--status ", "grade lab01_graph"):
        assert option in commands, option
    assert any(" --ledger " in line for line in commands.splitlines() if "grader grade " in line)


def test_the_feedback_says_what_the_page_shows(course: dict[str, object]) -> None:
    folder = course["folder"]
    assert isinstance(folder, Path)
    feedback = (folder / "reports" / "lab01-regrade" / "ben" / "feedback.md").read_text(
        encoding="utf-8")
    assert "".join(f"{line}\n" for line in feedback.splitlines()
                   if line.startswith("- **Semester:**")) == shown("ben-feedback")


def test_the_regrade_prints_what_the_page_shows(course: dict[str, object]) -> None:
    stdout = str(course["stdout"])
    expected = shown("regrade")
    assert stdout.count(expected) == 2, stdout  # the dry run, then the regrade


def test_the_grades_file_is_what_the_page_shows(course: dict[str, object]) -> None:
    folder = course["folder"]
    assert isinstance(folder, Path)
    assert (folder / "grades.csv").read_text(encoding="utf-8") == shown("grades.csv")


def test_the_moodle_worksheet_holds_the_grades_the_page_shows(course: dict[str, object]) -> None:
    folder = course["folder"]
    assert isinstance(folder, Path)
    rows = list(csv.DictReader((folder / "moodle-lab01.csv").open(encoding="utf-8")))
    got = "".join(f"{r['Identifier'].removeprefix('Participant ')} {r['Grade']}\n" for r in rows)
    assert got == shown("moodle-lab01")


def test_the_replay_finds_the_sample_identical(course: dict[str, object]) -> None:
    assert str(course["stdout"]).rstrip().endswith("Replayed 3 gradings: 3 identical.")
