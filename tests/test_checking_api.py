"""One import for check authors: the suites import the grader only through `grader.checking`,
whose `__all__` is exactly what they use, and the lab's own modules through
`grader.checking.<lab>`."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import grader.checking
from grader.common.labs import LABS

ROOT = Path(__file__).resolve().parent.parent
SUITES = sorted([*ROOT.glob("grader/grading/suites/*/test_*.py"), *ROOT.glob("labs/*/tests/test_*.py")])


def grader_imports(path: Path) -> list[tuple[str, list[str]]]:
    """Each `from grader... import names` of the file, with the names."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names if alias.name.startswith("grader")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("grader"):
            found.append((node.module or "", [alias.name for alias in node.names]))
    return found


@pytest.mark.parametrize("path", SUITES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_suite_imports_the_grader_only_through_grader_checking(path: Path) -> None:
    lab = path.parts[-2] if path.parts[-3] == "suites" else path.parts[-3]
    allowed = {"grader.checking", f"grader.checking.{lab}"}
    elsewhere = [module for module, _ in grader_imports(path) if module not in allowed]
    assert not elsewhere, f"{path.name} imports {elsewhere}: import from grader.checking"


def test_grader_checking_exports_exactly_what_the_suites_use() -> None:
    used = {name for path in SUITES for module, names in grader_imports(path)
            if module == "grader.checking" for name in names}
    assert sorted(grader.checking.__all__) == sorted(used), (
        f"exported but unused: {sorted(set(grader.checking.__all__) - used)}; "
        f"used but not exported: {sorted(used - set(grader.checking.__all__))}")
    missing = [name for name in grader.checking.__all__ if not hasattr(grader.checking, name)]
    assert not missing, missing


@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_lab_has_its_scenarios_and_verdicts_under_grader_checking(lab: str) -> None:
    module = importlib.import_module(f"grader.checking.{lab}")
    assert module.__all__ == ["scenarios", "verdicts"]
    assert module.scenarios.__name__ == f"grader.grading.child.scenarios.{lab}"
    assert module.verdicts.__name__ == f"grader.grading.checking.verdicts.{lab}"


PUBLIC_MODULES = ("grader.checking", "grader.results.report_folder", "grader.results.class_files",
                  "grader.results.gradebook", "grader.results.lms_summary",
                  "grader.results.lms.registry", "grader.results.lms.target",
                  "grader.results.lms.canvas", "grader.results.lms.moodle",
                  "grader.results.lms.fill_in", "grader.results.lms.sheet",
                  "grader.results.lms.feedback_return", "grader.results.lms.moodle_strings",
                  "grader.platforms.platform",
                  "grader.platforms.registry")


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_the_outputs_wing_declares_what_it_exports(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} declares no __all__"
    assert all(hasattr(module, item) for item in exported), name
