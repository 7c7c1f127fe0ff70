"""The student kit: nothing students must not get; its Makefile and `check` work inside it."""

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

from grader.authoring.student_kit import (
    FORBIDDEN_IN_KIT,
    NOT_IN_KIT_DEPENDENCIES,
    build_kit,
    kit_files,
)
from grader.labs import COURSE_ROOT

DEV_DEPENDENCIES = ("ruff", "mypy", "jsonschema", "import-linter")


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("kit") / "minigrad-labs-kit-lab02_ops"
    return out, build_kit(out, "lab02_ops")


def test_kit_has_no_solutions_hidden_checks_or_fixtures(kit):
    folder, archive = kit
    for name in FORBIDDEN_IN_KIT:
        assert not (folder / name).exists(), f"{name} must not be in the student kit"
    names = zipfile.ZipFile(archive).namelist()
    leaked = [n for n in names if "/solutions/" in n or "/suites/" in n or "/tests/fixtures/" in n]
    assert leaked == [], f"the kit zip leaks {leaked[:5]}"
    assert (folder / "labs" / "lab01_graph" / "value.py").is_file(), "the stub must be in the kit"
    assert (folder / "labs" / "lab01_graph" / "tests").is_dir(), "public checks ship with the lab"


def test_kit_requirements_are_runtime_only(kit):
    folder, _ = kit
    requirements = (folder / "requirements.txt").read_text(encoding="utf-8").lower()
    for name in (*DEV_DEPENDENCIES, *NOT_IN_KIT_DEPENDENCIES):
        assert name not in requirements, f"the kit installs {name}:\n{requirements}"
    assert "pytest" in requirements and "jinja2" in requirements, requirements


def test_no_file_in_the_kit_imports_what_the_kit_does_not_install(kit):
    folder, _ = kit
    pattern = re.compile(r"^(from|import)\s+({})\b".format("|".join(NOT_IN_KIT_DEPENDENCIES)), re.M)
    importing = [str(path.relative_to(folder)) for path in kit_files(folder)
                 if path.suffix == ".py" and pattern.search(path.read_text(encoding="utf-8"))]
    assert importing == [], f"these kit files import a dependency the kit lacks: {importing}"


def _make(folder: Path, venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "GRADER_LANG": "en"}
    return subprocess.run(["make", "--no-print-directory", "-C", str(folder), f"VENV={venv}", *args],
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def ready_venv(tmp_path_factory: pytest.TempPathFactory, kit) -> Path:
    """A stand-in for the kit's .venv: this interpreter, marked as already installed."""
    folder, _ = kit
    venv = tmp_path_factory.mktemp("venv")
    (venv / "bin").mkdir()
    python = venv / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    (venv / ".installed").touch()
    os.utime(venv / ".installed", (2**31, 2**31))  # newer than requirements.txt
    return venv


def test_make_help_lists_only_what_works_in_the_kit(kit, ready_venv):
    folder, _ = kit
    result = _make(folder, ready_venv, "help")
    assert result.returncode == 0, result.stderr
    commands = {tuple(line.split("  ")[0].split()) for line in result.stdout.splitlines()}
    for instructor_only in ("test", "demo", "grade", "bench", "labs", "kit"):
        assert not any(instructor_only in command for command in commands), result.stdout
    for command in sorted(commands):
        if command[1:2] == ("clean",):
            continue  # would remove the stand-in venv; `make -n clean` below instead
        args = [arg.replace("<lab>", "lab01_graph") for arg in command[1:]]
        run = _make(folder, ready_venv, *args)
        assert run.returncode == 0, f"`{' '.join(command)}` fails in the kit:\n{run.stderr}"
    assert _make(folder, ready_venv, "-n", "clean").returncode == 0


def test_make_check_in_the_kit_grades_the_released_stub_and_the_notebook(kit, ready_venv):
    folder, _ = kit
    stub = _make(folder, ready_venv, "check")
    assert stub.returncode == 0, stub.stderr
    assert "Feedback for lab02_ops" in stub.stdout and "Score: 0 / " in stub.stdout, stub.stdout
    notebook = _make(folder, ready_venv, "check", "NOTEBOOK=1", "LAB=lab01_graph")
    assert notebook.returncode == 0, notebook.stderr
    assert "Feedback for lab01_graph" in notebook.stdout, notebook.stdout


def _check(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(folder), "GRADER_LANG": "en"}
    return subprocess.run([sys.executable, "-m", "grader", "check", *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_check_in_the_kit_grades_the_stub_zero_and_the_solution_full(kit, tmp_path):
    folder, _ = kit
    stub = _check(folder, "lab01_graph")
    assert stub.returncode == 0, stub.stderr
    assert "Score: 0 / " in stub.stdout, stub.stdout
    finished = tmp_path / "mine"
    finished.mkdir()
    shutil.copy(COURSE_ROOT / "solutions" / "lab01_graph" / "value.py", finished / "value.py")
    solved = _check(folder, "lab01_graph", "--path", str(finished), "--lang", "en")
    assert solved.returncode == 0, solved.stderr
    assert "All checks passed." in solved.stdout, solved.stdout


def test_check_of_a_lab_not_in_the_kit_is_a_one_line_usage_error(kit):
    folder, _ = kit
    result = _check(folder, "lab03_backprop")
    assert result.returncode == 2, result
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "lab03_backprop" in result.stderr, result.stderr


@pytest.mark.parametrize("lab", ["lab01_graph", "lab02_ops"])  # the labs of the kit fixture's release
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
