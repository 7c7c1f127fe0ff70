"""The architecture, checked from the source: two sides of the sandbox, layers without cycles.

`lint-imports` (in `make test`) enforces the layer contracts of pyproject.toml; these tests
add what a contract cannot say: every module states its side, and no import cycle exists.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "grader"
# Folders by their path in the package: the sandbox side, and the rest of grading.
SANDBOX_SIDE = ("grading/child",)
TRUSTED_SIDE = ("grading",)


def modules() -> list[Path]:
    """Every module of the package, hidden suites excluded (they are pytest files, not modules)."""
    return sorted(p for p in PACKAGE.rglob("*.py") if "suites" not in p.relative_to(PACKAGE).parts)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def grader_imports(path: Path) -> set[str]:
    """The grader modules a file imports, at any depth (function-level imports included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("grader")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("grader"):
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    known = {module_name(p) for p in modules()}
    return {name for name in found if name in known}


def in_part(path: Path, parts: tuple[str, ...]) -> bool:
    where = path.relative_to(PACKAGE).as_posix()
    return any(where == part or where.startswith(part + "/") for part in parts)


@pytest.mark.parametrize("path", [p for p in modules() if in_part(p, SANDBOX_SIDE)],
                         ids=lambda p: module_name(p))
def test_sandbox_side_module_imports_only_the_sandbox_side(path: Path) -> None:
    trusted = sorted(name for name in grader_imports(path) if not name.startswith("grader.grading.child"))
    assert trusted == [], f"{module_name(path)} runs in the sandbox child but imports {trusted}"


@pytest.mark.parametrize("path", [p for p in modules() if in_part(p, TRUSTED_SIDE)],
                         ids=lambda p: module_name(p))
def test_module_docstring_states_its_side(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    side = "Side: sandbox child" if in_part(path, SANDBOX_SIDE) else "Side: trusted"
    assert side in docstring, f"{module_name(path)}: its docstring should say '{side} ...'"


def test_no_import_cycles() -> None:
    graph = {module_name(p): grader_imports(p) for p in modules()}
    # A package's __init__ importing its own submodules is not a cycle of the design.
    graph = {name: {dep for dep in deps if not name.startswith(dep + ".")}
             for name, deps in graph.items()}
    cycles: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for dep in sorted(graph.get(name, ())):
            if state.get(dep) == "open":
                cycles.append(path[path.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)
