"""deploy/build_image.py (the image recipe `make image` runs), imported for the tests (a test
helper: deploy/ is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "build_image.py"


def _load() -> Any:
    if "build_image" in sys.modules:
        return sys.modules["build_image"]
    spec = importlib.util.spec_from_file_location("build_image", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_image"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


build_image = _load()
