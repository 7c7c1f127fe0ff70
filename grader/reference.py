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
    """Import the reference solution's class (or module) in this trusted process."""
    if not (lab.solution_dir / lab.files[0]).is_file():
        raise ReferenceUnavailable(f"no reference solution in {lab.solution_dir}")
    return load_exports(lab.solution_dir, lab.module, lab.class_name, lab.support_files)


def load_exports(directory: Path, module: str, class_name: str | None,
                 siblings: tuple[str, ...] = ()) -> Any:
    """Import `module` from `directory` and return its `class_name` (or the module if None).

    Sibling modules it imports by name (for example `from value import Value`) are loaded
    from the same directory and removed from sys.modules afterwards, so two labs or two
    submissions never share them.
    """
    names = [module, *(Path(name).stem for name in siblings)]
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.path.insert(0, str(directory))
    try:
        spec = importlib.util.spec_from_file_location(module, Path(directory) / f"{module}.py")
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[module] = loaded
        spec.loader.exec_module(loaded)
    finally:
        sys.path.remove(str(directory))
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    return getattr(loaded, class_name) if class_name else loaded


def run_reference(value_class: Any, scen: Scenario, params: dict[str, Any]) -> Any:
    """Run a scenario in-process and return its result as the same plain data the child sends."""
    result = scen.load()(value_class, **params)
    return json.loads(json.dumps(result))
