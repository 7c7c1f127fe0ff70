"""Check declarations: reading and validating the `check` marker every graded test carries.

Side: trusted process.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pytest

from grader.i18n import LANGUAGES, Catalogue

KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
ALLOWED_KEYS = {"id", "pitfall", "weight", "requires", "defers_to", "timeout"}


def check_case(*values: Any, id: str, pitfall: str, weight: float,  # noqa: A002 (the marker's key)
               requires: tuple[str, ...] = (), defers_to: tuple[str, ...] = (),
               timeout: float | None = None) -> Any:
    """One parameter of a parametrized check, carrying its own check marker.

    `@pytest.mark.parametrize("op", [check_case("neg", id="example-neg-forward", ...), ...])` makes each
    parameter a check with its own id, pitfall, weight and prerequisites.
    """
    marker = pytest.mark.check(id=id, pitfall=pitfall, weight=weight, requires=requires,
                               defers_to=defers_to,
                               **({} if timeout is None else {"timeout": timeout}))
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
    return CheckSpec(check_id, pitfall, float(weight), tuple(requires),
                     None if timeout is None else float(timeout), visibility, test,
                     tuple(defers_to))


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
