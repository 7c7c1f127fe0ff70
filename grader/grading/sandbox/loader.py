"""Importing a lab's module from a folder without leaving it in sys.modules.

Side: trusted process. Used for the reference solution and by the debug runner, which runs a
student's own code in-process on the student's own machine (`check --debug`).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any


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
