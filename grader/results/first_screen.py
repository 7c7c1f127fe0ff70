"""The short first screen of `check`: what to do first in full, the rest one line per TODO.

Side: trusted process (results). On the terminal, without `--all`, the checks to look at are
cut down so a student sees what to do first in one screen: every failure of written code in
full (the feedback on real bugs), the first "not written yet" failure (the lowest TODO) in
full, and every other check that did not pass (later "not written yet" failures, checks that
did not run) counted in one line per TODO it waits for. Which TODOs a check judges comes from
the `todo=` of its marker (grader.grading.checking.todos.public_checks_by_todo), read by the
caller: this module only groups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grader.results.messages import is_not_written
from grader.results.score_document import Check, to_json_or_none

# Unwritten TODOs counted one line each; past this many lines, the later ones share one line.
MAX_TODO_LINES = 4


@dataclass(frozen=True)
class Waiting:
    """Checks summed up in one line: `count` checks that wait for TODO `todo` (None: for no
    TODO of their own), or for one of TODOs `todo` to `last`; `unwritten`: that TODO is not
    written yet (else a failed check above holds them back)."""

    todo: int | None
    count: int
    unwritten: bool
    last: int | None = None


def first_screen(attention: Sequence[Check],
                 todos_of: Mapping[str, tuple[int, ...]]) -> tuple[list[Check], list[Waiting]]:
    """The checks shown in full and the one-line summaries of the others, in TODO order.

    `attention` are the checks that did not pass, in the suite's order; `todos_of` maps a
    check's id to the TODOs it judges."""
    unwritten = [check for check in attention if _not_written(check)]
    first = min(unwritten, key=lambda check: _own_todo(check) or 0, default=None)
    shown = [check for check in attention if check is first or
             (check.status != "not-run" and not _not_written(check))]
    next_todo = _next_todo(unwritten)
    counts: dict[int | None, int] = {}
    for check in attention:
        if any(check is kept for kept in shown):
            continue
        todo = _own_todo(check) if _not_written(check) else max(todos_of.get(check.id, ()),
                                                                 default=None)
        counts[todo] = counts.get(todo, 0) + 1
    waiting = [Waiting(todo, count, todo is not None and next_todo is not None and todo >= next_todo)
               for todo, count in sorted(counts.items(), key=lambda item: (item[0] is None,
                                                                            item[0] or 0))]
    return shown, _later_merged(waiting)


def _later_merged(waiting: list[Waiting]) -> list[Waiting]:
    """The lines, with the unwritten TODOs past the first MAX_TODO_LINES - 1 in one line."""
    unwritten = [line for line in waiting if line.unwritten]
    if len(unwritten) <= MAX_TODO_LINES:
        return waiting
    kept, later = unwritten[:MAX_TODO_LINES - 1], unwritten[MAX_TODO_LINES - 1:]
    merged = Waiting(later[0].todo, sum(line.count for line in later), True, later[-1].todo)
    return [*(line for line in waiting if not line.unwritten or line in kept), merged]


def _not_written(check: Check) -> bool:
    return check.status == "failed" and is_not_written(to_json_or_none(check.detail))


def _own_todo(check: Check) -> int | None:
    """The TODO a "not written yet" failure ran into (None: a NotImplementedError of its own)."""
    todo = _params(check).get("todo")
    return todo if isinstance(todo, int) else None


def _next_todo(unwritten: Sequence[Check]) -> int | None:
    """The lowest TODO still as the stub has it, as the "not written yet" failures say."""
    numbers = [_params(check).get("next") for check in unwritten]
    found = [number for number in numbers if isinstance(number, int)]
    return min(found, default=None)


def _params(check: Check) -> Mapping[str, Any]:
    """The params of a check's detail (empty without a detail)."""
    return (check.detail.params if check.detail is not None else None) or {}
