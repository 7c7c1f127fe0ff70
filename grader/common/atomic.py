"""Writing a file so that whoever reads it sees the old text or the new one, never half of it.

Side: trusted process. The grader's outputs are read while it may still be writing them (a
platform reading results.json, a resumed `grade` reading the class files), so each is written
beside itself under a temporary name and moved into place by one rename, which POSIX makes
atomic on one file system.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

TEMPORARY_SUFFIX = ".tmp"  # the twin a write leaves only while it runs


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write `content` (text as UTF-8) to `path` through its temporary twin and one rename; a
    failed write leaves no twin behind and raises the OSError."""
    temporary = path.with_name(path.name + TEMPORARY_SUFFIX)
    try:
        temporary.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):  # on a read-only folder, even this fails
            temporary.unlink(missing_ok=True)
        raise
