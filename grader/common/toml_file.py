"""Reading an instructor's TOML file (the course file, the semester policy) with one-line errors.

Side: trusted process. A file that cannot be read or is not TOML raises the caller's error class
with a message naming the file and why, never a traceback.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_toml(path: Path, error: type[Exception]) -> dict[str, Any]:
    """The file's tables; `error(message)` naming the file when it cannot be read or parsed."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({exc})") from None
