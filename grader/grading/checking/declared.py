"""The checks a lab declares, read from its suites' markers without running pytest.

Side: trusted process. Imports the public and hidden suite modules (trusted code) and reads
their `check` markers, so a course file can be validated, and the docs' generated tables counted,
before anything is graded.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grader.common.labs import LABS, Lab
from grader.grading.checking.marker import CheckSpec, spec_from_marker


def _marks(obj: Any) -> Iterator[Any]:
    """The `check` marks of a test function, its parametrized cases' included."""
    for mark in getattr(obj, "pytestmark", []):
        if mark.name == "check":
            yield mark
        elif mark.name == "parametrize":
            for case in mark.args[1]:
                yield from (inner for inner in getattr(case, "marks", ()) if inner.name == "check")


def _module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"declared_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def declared_checks(lab: Lab, hidden: bool = True) -> list[CheckSpec]:
    """Every check of the lab's public suite, then of its hidden one (when present and asked),
    in the order each suite defines them, validated as the plugin validates it at collection
    (`spec_from_marker`)."""
    folders = [("public", lab.public_tests)]
    if hidden and lab.hidden_tests.is_dir():
        folders.append(("hidden", lab.hidden_tests))
    found = []
    for visibility, folder in folders:
        for path in sorted(folder.glob("test_*.py")):
            module = _module(path)
            for name, test in vars(module).items():  # in the order the suite defines them
                if name.startswith("test_"):
                    for mark in _marks(test):
                        found.append(spec_from_marker(f"{path.name}::{name}", mark.args,
                                                      mark.kwargs, visibility))
    return found


def declared_by_lab() -> dict[str, list[CheckSpec]]:
    """Every registered lab's checks, public and hidden, by lab name (what `build-labs` counts
    in the docs' generated tables)."""
    return {name: declared_checks(lab) for name, lab in LABS.items()}
