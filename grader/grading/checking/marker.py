"""Check declarations: reading and validating the `check` marker every graded test carries.

Side: trusted process.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import pytest

from grader.results.i18n import LANGUAGES, Catalogue

KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
ALLOWED_KEYS = {"id", "pitfall", "weight", "requires", "defers_to", "timeout", "todo", "random",
                "random_defers", "clause"}
FLAGS = ("random", "random_defers")  # the marker keys that are True or absent


def check_case(*values: Any, id: str, pitfall: str, weight: float,  # noqa: A002 (the marker's key)
               requires: tuple[str, ...] = (), defers_to: tuple[str, ...] = (),
               timeout: float | None = None, todo: int | tuple[int, ...] | None = None,
               random_defers: bool = False, clause: str | tuple[str, ...] = ()) -> Any:
    """One parameter of a parametrized check, carrying its own check marker.

    `@pytest.mark.parametrize("op", [check_case("neg", id="example-neg-forward", ...), ...])` makes each
    parameter a check with its own id, pitfall, weight and prerequisites.
    """
    marker = pytest.mark.check(id=id, pitfall=pitfall, weight=weight, requires=requires,
                               defers_to=defers_to,
                               **({} if timeout is None else {"timeout": timeout}),
                               **({} if todo is None else {"todo": todo}),
                               **({"random_defers": True} if random_defers else {}),
                               **({"clause": clause} if clause else {}))
    return pytest.param(*values, id=id, marks=marker)


class CheckDefinitionError(Exception):
    """A check is declared wrongly; the message is one line naming the test."""


@dataclass(frozen=True)
class CheckSpec:
    """What a check declares where it is defined."""

    id: str
    pitfall: str
    weight: float
    requires: tuple[str, ...]
    timeout_s: float | None
    visibility: str
    test: str
    # Checks this one defers its blame to: it always runs, but a failure while one of these
    # did not pass is reported as not run (the bug is theirs), and a pass is a pass.
    defers_to: tuple[str, ...] = ()
    # The stub's TODOs this check judges (`todo=3` or `todo=(2, 4)`): the public checks say it,
    # so that `check("TODO 3")` in a notebook shows them.
    todos: tuple[int, ...] = ()
    # `random=True`: the lab's random-graph check, whose `defers_to` the rule completes
    # (`with_random_deferrals`); `random_defers=True`: a check that random check defers to.
    random: bool = False
    random_defers: bool = False
    # The clauses of the lab's contract this check holds (`clause="seed"` or a tuple): keys of
    # the lab's table in docs/contract-clauses.md, whose checks column build-labs writes.
    clauses: tuple[str, ...] = ()


def _todos(test: str, value: Any) -> tuple[int, ...]:
    """A marker's todo= as a tuple of TODO numbers, refusing anything else."""
    numbers = value if isinstance(value, tuple) else (value,)
    if not numbers or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1
                              for n in numbers):
        raise CheckDefinitionError(f"{test}: todo= must be a TODO number or a tuple of them, "
                                   f"not {value!r}")
    return tuple(numbers)


def _clauses(test: str, value: Any) -> tuple[str, ...]:
    """A marker's clause= as a tuple of kebab-case keys, refusing anything else."""
    keys = value if isinstance(value, tuple | list) else (value,)
    if not keys or not all(isinstance(k, str) and KEBAB.match(k) for k in keys):
        raise CheckDefinitionError(f"{test}: clause= must be a kebab-case key of the lab's "
                                   f"contract table or a tuple of them, not {value!r}")
    return tuple(keys)


def spec_from_marker(test: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                     visibility: str) -> CheckSpec:
    """Build a CheckSpec from a `check` marker's arguments, refusing anything malformed."""
    if args:
        raise CheckDefinitionError(f"{test}: the check marker takes keyword arguments only")
    unknown = set(kwargs) - ALLOWED_KEYS
    if unknown:
        raise CheckDefinitionError(f"{test}: unknown check marker keys {sorted(unknown)}")
    for key in ("id", "pitfall", "weight"):
        if key not in kwargs:
            raise CheckDefinitionError(f"{test}: the check marker needs {key}=")
    check_id, pitfall, weight = kwargs["id"], kwargs["pitfall"], kwargs["weight"]
    for label, value in (("id", check_id), ("pitfall", pitfall)):
        if not isinstance(value, str) or not KEBAB.match(value):
            raise CheckDefinitionError(f"{test}: check {label} {value!r} is not kebab-case")
    if (isinstance(weight, bool) or not isinstance(weight, int | float)
            or not math.isfinite(weight) or weight <= 0):
        raise CheckDefinitionError(f"{test}: check weight {weight!r} must be a positive number")
    requires = kwargs.get("requires", ())
    defers_to = kwargs.get("defers_to", ())
    for key, ids in (("requires", requires), ("defers_to", defers_to)):
        if not isinstance(ids, tuple | list) or not all(isinstance(r, str) for r in ids):
            raise CheckDefinitionError(f"{test}: {key}= must be a tuple of check ids")
    timeout = kwargs.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or not math.isfinite(timeout) or timeout <= 0):
        raise CheckDefinitionError(f"{test}: timeout {timeout!r} must be a positive number")
    todos = _todos(test, kwargs["todo"]) if "todo" in kwargs else ()
    for flag in FLAGS:
        if flag in kwargs and kwargs[flag] is not True:
            raise CheckDefinitionError(f"{test}: {flag}= is True or left out, not {kwargs[flag]!r}")
    if "random" in kwargs and "random_defers" in kwargs:
        raise CheckDefinitionError(f"{test}: a random check (random=True) defers to others; it "
                                   "cannot say random_defers=True as well")
    clauses = _clauses(test, kwargs["clause"]) if "clause" in kwargs else ()
    return CheckSpec(check_id, pitfall, float(weight), tuple(requires),
                     None if timeout is None else float(timeout), visibility, test,
                     tuple(defers_to), todos, "random" in kwargs, "random_defers" in kwargs,
                     clauses)


def with_random_deferrals(specs: Iterable[CheckSpec]) -> list[CheckSpec]:
    """The specs in order, each random check's `defers_to` completed by the rule: it defers to
    every check defined before it that says `random_defers=True`. A flag no random check
    follows would mean nothing, and is refused naming its test."""
    completed: list[CheckSpec] = []
    flagged: list[CheckSpec] = []
    waiting: list[CheckSpec] = []  # flagged checks no random check follows yet
    for spec in specs:
        if spec.random:
            computed = tuple(f.id for f in flagged if f.id not in spec.defers_to)
            spec = replace(spec, defers_to=(*spec.defers_to, *computed))
            waiting = []
        elif spec.random_defers:
            flagged.append(spec)
            waiting.append(spec)
        completed.append(spec)
    if waiting:
        raise CheckDefinitionError(f"{waiting[0].test}: random_defers=True, but no random check "
                                   "(random=True) is defined after it")
    return completed


def validate_suite(specs: Iterable[CheckSpec]) -> None:
    """Unique ids, prerequisites declared earlier, and every text present in every language."""
    catalogues = [Catalogue.load(lang) for lang in LANGUAGES]
    seen: set[str] = set()
    for spec in specs:
        if spec.id in seen:
            raise CheckDefinitionError(f"{spec.test}: check id {spec.id!r} is used twice")
        for key, ids in (("requires", spec.requires), ("defers to", spec.defers_to)):
            for required in ids:
                if required not in seen:
                    raise CheckDefinitionError(
                        f"{spec.test}: {key} {required!r}, which is not a check defined before it")
        for catalogue in catalogues:
            for key in (f"pitfalls.{spec.pitfall}.title", f"checks.{spec.id}.title",
                        f"checks.{spec.id}.hint"):
                if not catalogue.has(key):
                    raise CheckDefinitionError(
                        f"{spec.test}: the {catalogue.lang} catalogue has no {key}")
        seen.add(spec.id)
