"""Tests for grader.intake.policy's bounds: what the static scan gives is capped whatever the
source holds (issue 38's flag amplifier), and a source no parser takes yields no flag."""

from __future__ import annotations

import time

import pytest

from grader.intake.policy import (
    MAX_FLAGS,
    MORE_FLAGS,
    NAME_CHARS,
    QUOTED_CHARS,
    scan_files,
    scan_source,
)


def test_distinct_forbidden_calls_past_the_cap_are_counted_in_one_flag() -> None:
    source = "import os\n" + "".join(f"os.exec{n}()\n" for n in range(1000))
    flags = scan_files({"value.py": source.encode()})
    assert len(flags) == MAX_FLAGS + 1, len(flags)
    assert flags[-1] == {"id": MORE_FLAGS, "params": {"count": 1000 - MAX_FLAGS}}, flags[-1]
    assert all(flag["id"] == "forbidden-call" for flag in flags[:-1]), flags[:3]


def test_a_long_name_is_quoted_cut_and_its_calls_are_one_flag() -> None:
    """The amplifier: a 16 KB alias and 1,000 calls of it gave 1,000 flags of 16 KB names."""
    source = f"import os.exec{'A' * 16000} as x\n" + "".join(f"x.c{n}()\n" for n in range(1000))
    flags = scan_source(source)
    assert len(flags) == 1, len(flags)
    quoted = flags[0]["params"]["call"]
    assert quoted.startswith("os.execAAA") and len(quoted) <= QUOTED_CHARS + 10, len(quoted)


def test_resolving_a_long_alias_at_every_call_is_linear() -> None:
    """Each call resolved through a 500 KB alias copied it (50,000 calls: 25 GB of strings);
    the resolved name is cut to NAME_CHARS first."""
    source = f"import os.exec{'A' * 500_000} as x\n" + "x.c()\n" * 50_000
    started = time.perf_counter()
    flags = scan_source(source)
    assert time.perf_counter() - started < 60, "resolving the alias is not linear"
    assert len(flags) == 1 and len(flags[0]["params"]["call"]) <= NAME_CHARS, flags


@pytest.mark.parametrize("source", [
    "x = " + "(" * 100_000 + ")" * 100_000,
    "x = " + "-" * 200_000 + "1",
    "import os\nos.system('a')\x00\n",
    "def f(:\n    os.system('a')\n",
    "x = " + "[" * 5000 + "]" * 5000 + "\nos.system('a')\n",
])
def test_a_source_no_parser_takes_yields_no_flag_and_raises_nothing(source: str) -> None:
    assert scan_source(source) == []
