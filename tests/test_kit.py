"""The student kit: nothing students must not get, and `check` works inside it."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.authoring.student_kit import FORBIDDEN_IN_KIT, build_kit
from grader.labs import COURSE_ROOT


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("kit") / "minigrad-labs-kit"
    return out, build_kit(out)


def test_kit_has_no_solutions_hidden_checks_or_fixtures(kit):
    folder, archive = kit
    for name in FORBIDDEN_IN_KIT:
        assert not (folder / name).exists(), f"{name} must not be in the student kit"
    names = zipfile.ZipFile(archive).namelist()
    leaked = [n for n in names if "/solutions/" in n or "/suites/" in n or "/tests/fixtures/" in n]
    assert leaked == [], f"the kit zip leaks {leaked[:5]}"
    assert (folder / "labs" / "lab01_graph" / "value.py").is_file(), "the stub must be in the kit"
    assert (folder / "labs" / "lab01_graph" / "tests").is_dir(), "public checks ship with the lab"


def _check(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run([sys.executable, "-m", "grader", "check", "lab01_graph", *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_check_in_the_kit_grades_the_stub_zero_and_the_solution_full(kit, tmp_path):
    folder, _ = kit
    stub = _check(folder)
    assert stub.returncode == 0, stub.stderr
    assert "Score: 0 / " in stub.stdout, stub.stdout
    finished = tmp_path / "mine"
    finished.mkdir()
    shutil.copy(COURSE_ROOT / "solutions" / "lab01_graph" / "value.py", finished / "value.py")
    solved = _check(folder, "--path", str(finished), "--lang", "en")
    assert solved.returncode == 0, solved.stderr
    assert "All checks passed." in solved.stdout, solved.stdout


@pytest.mark.parametrize("lab", ["lab01_graph", "lab04_xor"])
def test_the_notebook_instructions_work_as_written_in_the_kit(kit, lab):
    """The command the notebook's first cell gives, run as written at the root of the kit."""
    folder, _ = kit
    notebook = json.loads((folder / "labs" / lab / f"{lab}.ipynb").read_text(encoding="utf-8"))
    intro = "".join(notebook["cells"][0]["source"])
    commands = sorted(set(re.findall(r"`(make check [^`]*NOTEBOOK=1[^`]*)`", intro)))
    assert commands, f"the notebook of {lab} gives no command to check it: {intro}"
    venv = Path(__file__).resolve().parent.parent / ".venv"  # the kit's Makefile would create its own; reuse this one as is
    for command in commands:
        argv = [*shlex.split(command), f"VENV={venv}", "-o", f"{venv}/.installed"]
        env = {**os.environ, "PYTHONPATH": str(folder), "GRADER_LANG": "en"}
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        assert f"Submission: {lab}" in done.stdout and "Score: 0 / " in done.stdout, done.stdout
