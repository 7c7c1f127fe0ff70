"""A student's `check`: pytest in the grader's own process, and only the modules one lab needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grader.intake.notebook_module import _plain_v4_sources, notebook_module

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for folder in ("labs", "tests/data") for p in (ROOT / folder).rglob("*.ipynb"))
# What checking one lab folder has no use for: notebook and schema libraries, class files.
NOT_FOR_ONE_LAB = ("nbformat", "jsonschema", "grader.results.gradebook",
                   "grader.results.lms", "grader.results.class_files", "grader.platforms.registry",
                   "grader.results.dashboard", "grader.grading.merging",
                   "grader.grading.course_config", "grader.platforms.gradescope",
                   "grader.platforms.prairielearn",
                   # pytest's plugins grading leaves out (shard.UNUSED_PYTEST_PLUGINS) that
                   # `import pytest` does not import itself; a pool of shards
                   "_pytest.junitxml", "_pytest.unittest", "_pytest.pastebin", "_pytest.faulthandler",
                   "concurrent.futures")
PROBE = """
import json, subprocess, sys
started = []
real_popen = subprocess.Popen.__init__
def spy(self, args, *rest, **kwargs):
    started.append(list(map(str, args)) if isinstance(args, (list, tuple)) else [str(args)])
    real_popen(self, args, *rest, **kwargs)
subprocess.Popen.__init__ = spy
from grader.cli import main
code = main(["check", "lab01_graph", "--path", sys.argv[1]])
print(json.dumps({"code": code, "modules": sorted(sys.modules),
                  "pytest_children": [a for a in started if a[1:3] == ["-m", "pytest"]]}))
"""


def test_check_of_a_lab_folder_runs_pytest_here_and_imports_nothing_it_does_not_use() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / "solutions" / "lab01_graph")],
                          cwd=ROOT, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["code"] == 0, done.stdout[-2000:]
    assert "_pytest.main" in found["modules"], "pytest did not run in the grader's process"
    assert found["pytest_children"] == [], f"a pytest child was started: {found['pytest_children']}"
    loaded = [name for name in found["modules"]
              if any(name == bad or name.startswith(bad + ".") for bad in NOT_FOR_ONE_LAB)]
    assert loaded == [], f"check imported what one lab folder does not need: {loaded}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_plain_notebook_reads_as_nbformat_reads_it(path: Path) -> None:
    raw = path.read_bytes()
    expected = [c.source for c in nbformat.reads(raw.decode("utf-8"), as_version=4).cells
                if c.cell_type == "code"]
    assert _plain_v4_sources(raw) == expected, f"{path.name}: code cells read differently"


def test_an_older_or_broken_notebook_goes_to_nbformat() -> None:
    v3 = json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [
        {"cells": [{"cell_type": "code", "input": "x = 1", "outputs": [], "language": "python"}]}]})
    assert _plain_v4_sources(v3.encode()) is None
    assert notebook_module(v3.encode()).code == "x = 1\n"
    assert _plain_v4_sources(b"{not json") is None
    assert _plain_v4_sources(b'{"nbformat": 4, "cells": [{"cell_type": "code"}]}') is None


def test_a_grader_process_ends_with_its_code_and_its_objects_frozen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from grader.common.shutdown import finish

    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    with pytest.raises(SystemExit) as ended:
        finish(3)
    assert ended.value.code == 3 and frozen == [True]


@pytest.mark.parametrize(("words", "code"), [(["check", "no_such_lab"], 2), (["--help"], 0)])
def test_python_m_grader_exits_with_the_command_s_code(words: list[str], code: int) -> None:
    done = subprocess.run([sys.executable, "-m", "grader", *words], cwd=ROOT,
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == code, done.stderr[-2000:]
