"""Which schema a scenario's reply must match: its lab's own, or PLAIN.

Side: trusted process. `Sandbox.run` (and the debug runner) checks a scenario's reply against
its schema here before any verdict reads it (`sandbox.checked_reply`): a reply of another
shape (an empty list where an int belongs, 130,000 recorded calls padded through a closure, a
trace row of the wrong shape) is a protocol breach on that check, never the grader's error.

Each lab's scenario module declares its scenarios' schemas beside them (`REPLIES`, in the
language of `grader.grading.child.schema`), so a student kit holds its own lab's only; the
table is read from the module that defined the scenario, already imported. A scenario with no
schema (one a test defines) gets PLAIN: any plain data, within the caps of a generous but
bounded shape.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from grader.grading.child.scenario import Scenario
from grader.grading.child.schema import (
    Bool,
    ListOf,
    MapOf,
    Num,
    OneOf,
    ReplySchema,
    Str,
)
from grader.grading.child.schema import (
    mismatch as schema_mismatch,
)

# Any plain data, bounded: the schema of a scenario no lab declares (tests' own).
_SCALAR = OneOf(Num(nullable=True), Bool(), Str())
_KEY = 4096
_INNER = OneOf(_SCALAR, ListOf(_SCALAR, 1000), MapOf(_SCALAR, 1000, _KEY))
_MIDDLE = OneOf(_INNER, ListOf(_INNER, 1000), MapOf(_INNER, 1000, _KEY))
PLAIN = OneOf(_MIDDLE, ListOf(_MIDDLE, 1000), MapOf(_MIDDLE, 1000, _KEY))


def declared(scen: Scenario) -> ReplySchema | None:
    """The schema the scenario's own module declares for it (its REPLIES), or None."""
    replies = getattr(sys.modules.get(scen.module), "REPLIES", None)
    return replies.get(scen) if isinstance(replies, dict) else None


def schema_of(scen: Scenario) -> ReplySchema:
    """The schema of a scenario's reply (PLAIN for one no lab declares)."""
    found = declared(scen)
    return PLAIN if found is None else found


def mismatch(scen: Scenario, value: Any, params: Mapping[str, Any]) -> str | None:
    """Where a reply departs from its scenario's schema (in the schema's words), or None."""
    return schema_mismatch(value, schema_of(scen), params)
