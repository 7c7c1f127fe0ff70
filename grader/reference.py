"""Running scenarios against the reference solution, in the trusted process."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from grader.labs import Lab
from grader.sandbox.scenario import Scenario


class ReferenceUnavailable(RuntimeError):
    """The lab's reference solution is not present (for example in the student kit)."""


def load_reference_class(lab: Lab) -> Any:
    """Import the reference solution's class under a private module name."""
    path = lab.solution_dir / lab.files[0]
    if not path.is_file():
        raise ReferenceUnavailable(f"no reference solution at {path}")
    return load_class(path, lab.class_name, f"_grader_reference_{lab.name}")


def load_class(path: Path, class_name: str, module_name: str) -> Any:
    """Import `class_name` from the file at `path` as module `module_name` (trusted code only)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return getattr(module, class_name)


def run_reference(value_class: Any, scen: Scenario, params: dict[str, Any]) -> Any:
    """Run a scenario in-process and return its result as the same plain data the child sends."""
    result = scen.load()(value_class, **params)
    return json.loads(json.dumps(result))
