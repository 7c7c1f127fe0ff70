"""Only the targets name an LMS: each LMS's download naming is its target's (one module of
grader/results/lms/), intake reads a class through the targets the registry hands it, and no
other module of the package holds an LMS's name in its code (docstrings and comments aside; the
`--canvas-column` option is the one exception, named in docs/outputs.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from grader.common.labs import get_lab
from grader.intake import lms as intake
from grader.results.lms import canvas, moodle
from grader.results.lms.registry import TARGETS, download_naming, guess_class

PACKAGE = Path(intake.__file__).resolve().parents[1]
TARGET_MODULES = {"results/lms/canvas.py", "results/lms/moodle.py", "results/lms/registry.py",
                  "results/lms/moodle_strings.py"}
OPTION = ("canvas_column", "canvas-column")


def code_strings(path: Path) -> list[str]:
    """The string constants of a module's code: docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


def names_an_lms(text: str) -> bool:
    lowered = text.lower()
    for option in OPTION:
        lowered = lowered.replace(option, "")
    return any(target.name in lowered for target in TARGETS)


def test_no_module_but_the_targets_names_an_lms_in_its_code() -> None:
    naming = sorted(
        f"{path.relative_to(PACKAGE)}: {text!r}" for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).as_posix() not in TARGET_MODULES
        for text in code_strings(path) if names_an_lms(text))
    assert naming == []


def test_the_check_sees_a_name_in_code() -> None:
    """The oracle above is not blind: the target modules do hold their names in code."""
    assert any(names_an_lms(text) for text in code_strings(Path(canvas.__file__)))
    assert any(names_an_lms(text) for text in code_strings(Path(moodle.__file__)))


def test_intake_imports_no_target() -> None:
    tree = ast.parse(Path(intake.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(module and module.startswith("grader.results") for module in imported)


@pytest.mark.parametrize("name", ["Ann_1_2_x_5_assignsubmission_file_value.py"])
def test_a_name_both_namings_follow_is_read_by_the_more_specific_first(tmp_path: Path,
                                                                       name: str) -> None:
    """Moodle's `_assignsubmission_` before Canvas's digits (`recognition_rank`), as
    `download_naming` and `guess_class` tried them before the naming moved into the targets."""
    assert canvas.CANVAS_FILE.match(name) and moodle.MOODLE_ENTRY.match(name)
    paths = []
    for prefix in ("Ann", "Bo"):
        paths.append(tmp_path / name.replace("Ann", prefix))
        paths[-1].write_text("x = 1\n", encoding="utf-8")
    assert download_naming(paths) == "moodle"
    assert guess_class(tmp_path, get_lab("lab01_graph")) == "moodle"
    assert intake.download_naming(paths, (canvas.TARGET,)) == "canvas"  # alone, Canvas reads it
