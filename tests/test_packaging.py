"""The built wheel grades on its own: templates, labs, solutions and hidden suites travel in it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUGGY = ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-mul"


@pytest.fixture(scope="module")
def built(wheelhouse: Path, wheel_build_output: str) -> tuple[Path, str]:
    """The wheel, built as `pip install` builds it (isolated, quiet), and what the build printed:
    the run's wheelhouse built it (tests/conftest.py) and kept its output."""
    [wheel] = wheelhouse.glob("minigrad_labs-*.whl")
    return wheel, wheel_build_output


def test_building_the_package_prints_no_setuptools_warning(built: tuple[Path, str]) -> None:
    """What `pip install` shows on a first `make venv` (issue 17: about 1,000 lines of them)."""
    _, printed = built
    noisy = _warnings_in(printed)
    assert noisy == [], "the build warns (pyproject.toml [project] / [tool.setuptools]):\n" + \
        "\n".join(noisy[:10])


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, built: tuple[Path, str],
              wheelhouse: Path) -> Path:
    """A fresh virtual environment holding only the built wheel and its dependencies (from the
    run's wheelhouse, tests/conftest.py: no index, no download)."""
    root = tmp_path_factory.mktemp("wheel")
    wheel, _ = built
    venv.create(root / "venv", with_pip=False)
    python = root / "venv" / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                    "--no-index", "--find-links", str(wheelhouse), str(wheel)], check=True,
                   capture_output=True)
    return python


def run_outside_the_tree(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_installed_wheel_grades_a_submission_and_renders_feedback(
        installed: Path, tmp_path: Path) -> None:
    located = run_outside_the_tree(installed, "-c", "import grader; print(grader.__file__)",
                                   cwd=tmp_path)
    assert not located.stdout.startswith(str(ROOT)), f"imported from the source tree: {located.stdout}"
    completed = run_outside_the_tree(installed, "-m", "grader", "grade", "lab01_graph",
                                     str(BUGGY), "--out", str(tmp_path / "out"),
                                     "--seed", "wheel", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr[-2000:]
    doc = json.loads((tmp_path / "out" / BUGGY.name / "scores.json").read_text(encoding="utf-8"))
    assert doc["status"] == "graded", doc.get("reason")
    assert 0 < doc["score"] < doc["max_score"], "the buggy fixture should lose some points only"
    assert "grad-overwrite" in doc["pitfalls"]
    assert any(c["visibility"] == "hidden" for c in doc["checks"]), "the hidden suite did not run"
    html = (tmp_path / "out" / BUGGY.name / "feedback.html").read_text(encoding="utf-8")
    assert "<html" in html and doc["checks"][0]["title"].split("`")[0][:20] in html


def _warnings_in(printed: str) -> list[str]:
    return [line for line in printed.splitlines()
            if re.search(r"warning|deprecat", line, re.IGNORECASE)
            and "is neither a file nor a directory" not in line]  # this machine's pip.conf


def test_a_fresh_editable_install_prints_no_warning(tmp_path: Path) -> None:
    """`pip install -e .` as `make venv` runs it (with the upgraded pip: this run's), in a new
    virtual environment (the project's dependencies aside: --no-deps keeps the test quick; they
    are wheels, not built here)."""
    venv.create(tmp_path / "venv", with_pip=False)
    python = tmp_path / "venv" / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                           "--quiet", "--no-deps", "-e", str(ROOT)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    noisy = _warnings_in(done.stdout + done.stderr)
    assert noisy == [], "the editable install warns:\n" + "\n".join(noisy[:10])


def test_runtime_dependencies_are_what_the_grader_imports() -> None:
    """pyproject's [project] dependencies name exactly the distributions whose modules the grader
    package imports (the import closure of every module of grader/ and of the plugins a shard
    loads by name, `-p`; function-level imports marked for the kit's sake included): nothing
    installed that the runtime never imports (hypothesis once was), nothing imported that only
    arrives as another dependency's dependency. Colab's own module does not count: the notebook
    check imports it only inside Colab, which provides it."""
    import tomllib

    from grader.authoring.kit_contents import Closure, import_closure, normalise
    from grader.grading.shard import PLUGINS

    package = ROOT / "grader"
    modules = [".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for path in sorted(package.rglob("*.py"))]
    closure = import_closure([], [*modules, *PLUGINS], package, marked_too=True)
    imported = Closure(closure.files, closure.external - {"google"}).distributions()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {normalise(re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0])
                for spec in project["dependencies"]}
    assert declared == imported, (f"declared, never imported: {sorted(declared - imported)}; "
                                  f"imported, not declared: {sorted(imported - declared)}")
