"""What intake may spend on a submission: the caps applied before the work, the parsers'
failures that are the submission's, and the time budget of reading it.

Side: trusted process (intake). Every operation on a submission's bytes is linear in them and
starts only once a cap bounds them (docs/limits.md holds the whole cost model):

- sizes: a lab file or notebook is read only up to 1 MiB (`collect.MAX_FILE_BYTES`), a zip by
  the archive's limits (`archive`), its central directory parsed once per zip;
- nesting: a notebook's JSON is refused past `MAX_JSON_DEPTH` brackets, counted in one pass
  before any parser recurses over it (`json_too_deep`);
- counts: at most `MAX_CANDIDATES` files read as candidates for one lab file;
- time: `IntakeBudget`, a deadline that the loops over a submission's entries and cells
  check (`charge`), for whatever the caps above leave;
- failures: whatever a parser raises on a submission's text (`PARSE_ERRORS`) is that
  submission's, never the grader's.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import time
from collections.abc import Iterator

# What ast.parse, compile and json.loads raise on text a student wrote: a syntax error, a null
# byte (ValueError before Python 3.12), nesting past the parser's or the interpreter's limit
# (RecursionError, MemoryError "too many nested parentheses"), an integer literal too long.
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)

# How deep a notebook's JSON may nest: nbformat's own documents nest about 6 deep, a cell's
# JSON output a few more; json.loads and nbformat's validator recurse once per level.
MAX_JSON_DEPTH = 100
# Files read as candidates for one lab file (copies of value.py, notebooks): past this the
# submission is refused before any of them is read.
MAX_CANDIDATES = 50
# Seconds intake may spend reading one submission (whatever the caps leave; a 1 MiB file
# takes well under one).
INTAKE_BUDGET_S = 20.0

# The characters that matter to JSON nesting: brackets, and what starts, ends or escapes a string.
_JSON_STRUCTURE = re.compile(r'[\[\]{}"\\]')


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON text nests more than `limit` arrays and objects, brackets inside strings
    not counted. One pass over the structural characters (a one-character class: no
    backtracking), stopping at the first level past the limit."""
    depth, in_string, escaped_at = 0, False, -1
    for found in _JSON_STRUCTURE.finditer(text):
        at, char = found.start(), found.group()
        if in_string:
            if at == escaped_at:
                continue
            if char == "\\":
                escaped_at = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


class IntakeOverrun(Exception):
    """Reading one submission took longer than its budget."""

    def __init__(self, limit_s: float) -> None:
        super().__init__(f"reading the submission took over {limit_s:g} s")
        self.limit_s = limit_s


class IntakeBudget:
    """A deadline for reading one submission."""

    def __init__(self, limit_s: float) -> None:
        self.limit_s = limit_s
        self.deadline = time.monotonic() + limit_s

    def charge(self) -> None:
        """IntakeOverrun once the deadline has passed."""
        if time.monotonic() > self.deadline:
            raise IntakeOverrun(self.limit_s)


_CURRENT: contextvars.ContextVar[IntakeBudget | None] = contextvars.ContextVar(
    "intake_budget", default=None)


@contextlib.contextmanager
def budget(limit_s: float | None = None) -> Iterator[IntakeBudget]:
    """Read one submission within `limit_s` (INTAKE_BUDGET_S when not given): `charge` checks
    this budget while it lasts."""
    current = IntakeBudget(INTAKE_BUDGET_S if limit_s is None else limit_s)
    token = _CURRENT.set(current)
    try:
        yield current
    finally:
        _CURRENT.reset(token)


def charge() -> None:
    """IntakeOverrun when the submission being read is past its budget; nothing outside one
    (an LMS export is the instructor's, read without one)."""
    current = _CURRENT.get()
    if current is not None:
        current.charge()
