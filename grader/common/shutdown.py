"""Ending a grader process: what grading built is freed with the process, not object by object.

Side: trusted process. At exit the interpreter collects every object it tracks before it frees
them; after a check or a platform's submission (pytest, the catalogues, the templates, the
documents) that collection is a tenth of the whole run (`bench/performance.py`'s check row).
`gc.freeze()` moves them out of the collector's reach, so the teardown skips it; files are
closed, atexit handlers run and the exit code is kept as with a plain `sys.exit`.
"""

from __future__ import annotations

import gc
import sys
from typing import NoReturn


def finish(code: int) -> NoReturn:
    """Exit with `code`, sparing the interpreter's final collection."""
    gc.freeze()
    sys.exit(code)
