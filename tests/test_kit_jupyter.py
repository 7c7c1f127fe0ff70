"""The kit README's Jupyter section, followed as written, from a Jupyter that is not the kit's.

The release's zip is unpacked outside the repository. A second virtual environment made in tmp,
with jupyter_client, nbclient, nbformat and ipykernel from the package index (as a student's own
Jupyter would have them), stands for the student's Jupyter: its nbclient executes the lab
notebook's check cell. Before the README's steps, its own kernel (python3) stops at the check
cell with the "No module named 'grader'" the section is about. Then the section's shell lines run
in the kit as written (`make venv`, `pip install ipykernel`, `ipykernel install`), except that
`--user` becomes `--prefix <tmp>` and JUPYTER_PATH / JUPYTER_DATA_DIR / HOME point into tmp, so
the test registers nothing in the machine's own Jupyter folders; the registered kernel then
runs every lab's check cell and the check's feedback shows. Colab's step (`%pip install` of
the uploaded zip, then the check cell, in a folder holding only the notebook and the zip) runs
in the outside environment's own kernel. VS Code's step, picking the kit's `.venv`, starts the
same interpreter as the registered kernel; VS Code itself is not run.
"""

from __future__ import annotations

import html
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
    KERNEL_DISPLAY,
    KERNEL_NAME,
    jupyter_section,
    with_jupyter_section,
)
from grader.common.labs import COURSE_ROOT, LABS
from grader.results.i18n import LANGUAGES, Catalogue

RELEASE = list(LABS)[-1]  # its kit holds every lab's notebook
OUTSIDE_PACKAGES = ("jupyter_client", "nbclient", "nbformat", "ipykernel")
CHECK_IMPORT = "from grader.notebook import check"

# Run by the outside environment's Python: execute one notebook with a kernel, print its outputs.
DRIVER = """\
import json, sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
path, kernel, folder = sys.argv[1:4]
notebook = nbformat.read(path, as_version=4)
try:
    NotebookClient(notebook, timeout=300, kernel_name=kernel,
                   resources={"metadata": {"path": folder}}).execute()
except CellExecutionError:
    pass
print(json.dumps([cell.get("outputs", []) for cell in notebook.cells]))
"""


def _student_env(base: Path) -> dict[str, str]:
    """A student's shell: no repository venv on PATH, HOME and every Jupyter folder in tmp,
    this machine's pip settings (how it reaches the package index)."""
    path = [entry for entry in os.environ.get("PATH", "").split(os.pathsep)
            if entry and not Path(entry).resolve().is_relative_to(COURSE_ROOT)]
    env = {"PATH": os.pathsep.join(path), "HOME": str(base / "home"), "LANG": "C.UTF-8",
           "NO_COLOR": "1", "JUPYTER_PATH": str(base / "prefix" / "share" / "jupyter"),
           "JUPYTER_DATA_DIR": str(base / "home" / "jupyter-data"),
           "JUPYTER_CONFIG_DIR": str(base / "home" / "jupyter-config"),
           "JUPYTER_RUNTIME_DIR": str(base / "home" / "jupyter-runtime"),
           "IPYTHONDIR": str(base / "home" / "ipython")}
    env.update({name: value for name, value in os.environ.items() if name.startswith("PIP_")})
    return env


def _run(command: list[str] | str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900, shell=isinstance(command, str))
    assert done.returncode == 0, f"{command}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout


def section_commands(readme: str) -> list[str]:
    """The shell lines of the README's Jupyter section (its first ```sh block)."""
    section = readme.split("### Jupyter", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, section[:800]
    return [line for line in block[1].splitlines() if line.strip()]


class Student:
    """The unpacked kit, the outside Jupyter's environment, and a notebook run by its nbclient."""

    def __init__(self, base: Path, kit: Path, archive: Path) -> None:
        self.base, self.kit, self.archive = base, kit, archive
        self.env = _student_env(base)
        self.outside = base / "outside-jupyter"
        (base / "home").mkdir()
        (base / "driver.py").write_text(DRIVER, encoding="utf-8")

    def execute(self, folder: Path, kernel: str, *sources: str) -> list[str]:
        """Run `sources` as the cells of a notebook in `folder` with `kernel`; each cell's text."""
        cells = [{"cell_type": "code", "source": source, "metadata": {}, "outputs": [],
                  "execution_count": None} for source in sources]
        notebook = self.base / "cells.ipynb"
        notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                        "nbformat_minor": 5}), encoding="utf-8")
        printed = _run([str(self.outside / "bin" / "python"), str(self.base / "driver.py"),
                        str(notebook), kernel, str(folder)], folder, self.env)
        texts = []
        for outputs in json.loads(printed):
            texts.append("".join(
                html.unescape(html.unescape(output.get("data", {}).get("text/html", "")))
                + output.get("data", {}).get("text/plain", "") + output.get("text", "")
                + "".join(output.get("traceback", [])) + output.get("evalue", "")
                for output in outputs))
        return texts


@pytest.fixture(scope="module")
def student(tmp_path_factory: pytest.TempPathFactory, built_kit) -> Student:
    """The release's zip unpacked outside the repository, and the outside Jupyter's environment
    (made while the kit is unpacked: a venv with the index's jupyter_client, nbclient, nbformat
    and ipykernel, nothing of this project)."""
    base = tmp_path_factory.mktemp("jupyter-student")
    assert not base.resolve().is_relative_to(COURSE_ROOT), f"{base} is inside the repository"
    archive = built_kit(RELEASE)[1]
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(base / "unpacked")
    student = Student(base, base / "unpacked" / archive.stem, archive)
    python = getattr(sys, "_base_executable", sys.executable)
    _run([python, "-m", "venv", str(student.outside)], base, student.env)
    _run([str(student.outside / "bin" / "python"), "-m", "pip", "install", "--quiet",
          *OUTSIDE_PACKAGES], base, student.env)
    return student


def _check_cell(lab: str, folder: Path) -> str:
    """The check cell of a lab's notebook, as the kit ships it."""
    notebook = json.loads((folder / f"{lab}.ipynb").read_text(encoding="utf-8"))
    cells = ["".join(cell["source"]) for cell in notebook["cells"]
             if cell["cell_type"] == "code" and CHECK_IMPORT in "".join(cell["source"])]
    assert len(cells) == 1, cells
    return cells[0]


def _not_written(lab: str) -> str:
    said = Catalogue.load("en").text("details.not-written.text", todo="1",
                                     file=f"{lab}.ipynb", where="")
    return said.split(" still")[0]


def test_every_kit_readme_has_the_jupyter_section_in_both_languages(built_kit) -> None:
    """The section as rendered, in each language, with this release's notebook and zip named."""
    for release in LABS:
        readme = (built_kit(release)[0] / "README.md").read_text(encoding="utf-8")
        for lang in LANGUAGES:
            section = jupyter_section(lang, release)
            assert section in readme, f"{release}: the {lang} Jupyter section"
            for said in (f"labs/{release}/{release}.ipynb", f"minigrad-labs-kit-{release}.zip",
                         "No module named 'grader'", f"--name {KERNEL_NAME}", KERNEL_DISPLAY,
                         "JupyterLab", "VS Code", "Colab"):
                assert said in section, f"{release} ({lang}): {said!r} not said"


def test_the_check_cell_runs_in_an_outside_jupyter_once_the_kernel_is_registered(
        student: Student) -> None:
    kit = student.kit
    first = LABS[RELEASE].name
    lab_folder = kit / "labs" / first
    before = student.execute(lab_folder, "python3", _check_cell(first, lab_folder))
    assert "ModuleNotFoundError" in before[0] and "No module named 'grader'" in before[0], before

    commands = section_commands((kit / "README.md").read_text(encoding="utf-8"))
    assert [shlex.split(line)[:4] for line in commands] == [
        ["make", "venv"], [".venv/bin/python", "-m", "pip", "install"],
        [".venv/bin/python", "-m", "ipykernel", "install"]], commands
    for line in commands:
        assert line.count("--user") <= 1
        _run(line.replace("--user", f"--prefix {shlex.quote(str(student.base / 'prefix'))}"),
             kit, student.env)
    spec = json.loads((student.base / "prefix" / "share" / "jupyter" / "kernels" / KERNEL_NAME
                       / "kernel.json").read_text(encoding="utf-8"))
    assert spec["display_name"] == KERNEL_DISPLAY
    assert Path(spec["argv"][0]).parent.parent.resolve() == (kit / ".venv").resolve(), spec
    assert not (student.base / "home" / ".local").exists(), "nothing registered under --user"

    for lab in LABS:  # every lab's notebook of the kit, as shipped (the stub)
        folder = kit / "labs" / lab
        text = student.execute(folder, KERNEL_NAME, _check_cell(lab, folder))[0]
        assert "ModuleNotFoundError" not in text, text[-3000:]
        assert _not_written(lab) in text, f"{lab}: {text[:3000]}"


def test_colab_steps_in_a_kernel_that_is_not_the_kits(student: Student) -> None:
    """Colab's bullet: a folder holding only the uploaded notebook and the kit's zip, the
    README's `%pip install` cell, then the check cell, in the outside environment's kernel."""
    readme = (student.kit / "README.md").read_text(encoding="utf-8")
    install = re.search(r"`(%pip install [^`]+)`", readme.split("### Jupyter", 1)[1])
    assert install, "the Colab step's install cell"
    lab = list(LABS)[0]
    content = student.base / "content"
    content.mkdir()
    shutil.copy(student.kit / "labs" / lab / f"{lab}.ipynb", content)
    shutil.copy(student.archive, content)
    texts = student.execute(content, "python3", install[1], _check_cell(lab, content))
    assert "ModuleNotFoundError" not in texts[1], texts
    assert _not_written(lab) in texts[1], texts[1][:3000]


def test_the_students_page_quotes_the_kit_readmes_jupyter_section() -> None:
    page = COURSE_ROOT / "docs" / "students.md"
    text = page.read_text(encoding="utf-8")
    assert text == with_jupyter_section(text), (
        "docs/students.md's kit-jupyter region is not the kit README's section; write it with "
        "grader.authoring.student_kit.with_jupyter_section")
