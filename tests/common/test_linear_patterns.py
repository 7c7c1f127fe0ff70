"""Every regular expression the grader compiles at module level runs in time linear in its text,
found by walking the package, not by a list (issue 38: `^\\s*get_ipython` under re.M and
`\\s*[breaks]+\\s*` were quadratic over student text).

Each pattern is searched through texts made of its own characters (every character its source
names, and the white space, digits, quotes and backticks student text is full of), each text
repeated to 1 K and to 8 K characters: eight times the text may cost at most LINEAR_RATIO
times the time (a quadratic pattern costs 64 times), or under FLOOR_S. docs/limits.md lists
the patterns built inside functions, each read by hand.

Side: trusted (the project's own tests).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time
from typing import Any

import pytest

import grader

SMALL, LARGE = 1 << 10, 8 << 10
LINEAR_RATIO = 24
FLOOR_S = 0.05  # per text: a linear pattern takes microseconds over 8 K characters
REPEATS = 3  # a text over the floor is timed again, the fastest kept (a busy machine stalls)
SKIPPED_MODULES = ("grader.__main__",)
EXTRA_CHARACTERS = " \t\n\r\x0b\x0c\u2028a1_-.,:`'\"#(){}[]\\"
# Old patterns proven quadratic by this test before they were replaced (its own control).
# Old patterns the test would have caught, with one of the texts it would have caught them on
# (its own control, kept short: the other texts cost seconds each on a quadratic pattern).
QUADRATIC_CONTROLS = {"collect._EXPORT_MARK before issue 38":
                      (re.compile(rb"^# In\[[ 0-9]*\]:|^\s*get_ipython\(\)", re.M), "\n"),
                      "render._LINE_BREAKS before issue 38":
                      (re.compile(r"\s*[\r\n\u2028\u2029\x0b\x0c\x85]+\s*"), " ")}


def module_patterns() -> dict[str, re.Pattern[Any]]:
    """Every compiled pattern held by a module of the grader package, by `module.NAME`."""
    found: dict[str, re.Pattern[Any]] = {}
    for info in pkgutil.walk_packages(grader.__path__, "grader."):
        if info.name in SKIPPED_MODULES:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and value not in found.values():
                found[f"{info.name}.{name}"] = value
    return found


PATTERNS = module_patterns()


def texts(pattern: re.Pattern[Any], size: int, units: list[str] | None = None) -> list[Any]:
    """Texts of `size` characters from the pattern's own characters: each repeated, and each
    pair of them alternating (or the `units` given, repeated), as str or bytes like the pattern."""
    source = pattern.pattern if isinstance(pattern.pattern, str) else pattern.pattern.decode(
        "latin-1")
    characters = sorted(set(source) | set(EXTRA_CHARACTERS))
    units = units or characters + [a + b for a in characters for b in " \n1a"]
    made = [(unit * (size // len(unit) + 1))[:size] for unit in units]
    if isinstance(pattern.pattern, bytes):
        return [text.encode("utf-8", "replace") for text in made]
    return made


def _search_all(pattern: re.Pattern[Any], text: Any) -> float:
    """The fastest of REPEATS searches through the text (one when it is under FLOOR_S)."""
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        for _ in pattern.finditer(text):
            pass
        best = min(best, time.perf_counter() - started)
        if best <= FLOOR_S or best > 20 * FLOOR_S:  # near the floor only
            break
    return best


def assert_linear(name: str, pattern: re.Pattern[Any], units: list[str] | None = None) -> None:
    """Fail at the first text whose eight times costs more than LINEAR_RATIO times the time."""
    for small_text, large_text in zip(texts(pattern, SMALL, units), texts(pattern, LARGE, units),
                                      strict=True):
        large = _search_all(pattern, large_text)
        if large <= FLOOR_S:
            continue
        small = _search_all(pattern, small_text)
        assert large <= LINEAR_RATIO * small, (
            f"{name} ({pattern.pattern!r}) on {large_text[:4]!r}...: {small:.4f} s at "
            f"{SMALL}, {large:.4f} s at {LARGE}")


def test_the_package_holds_patterns_to_check() -> None:
    assert len(PATTERNS) >= 10, sorted(PATTERNS)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_module_pattern_is_linear(name: str) -> None:
    assert_linear(name, PATTERNS[name])


@pytest.mark.parametrize("name", sorted(QUADRATIC_CONTROLS))
def test_the_old_quadratic_patterns_are_caught(name: str) -> None:
    """The test's own control: the patterns issue 38 replaced fail it."""
    pattern, unit = QUADRATIC_CONTROLS[name]
    with pytest.raises(AssertionError):
        assert_linear(name, pattern, [unit])
