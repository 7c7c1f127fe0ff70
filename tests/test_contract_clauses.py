"""docs/contract-clauses.md: every clause of each lab's contract shows the checks that read it.

The table is read as the project's claim; these tests hold it to the suites: the checks column
is what the checks' `clause=` keys give (grader.authoring.contract_clauses, which build-labs
writes), every hidden check names a clause, every check the notes name exists, and no clause
is left without a check unless the row says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.authoring.contract_clauses import (
    DOCUMENT,
    NONE,
    ContractClauseError,
    clause_rows,
    with_checks,
)
from grader.common.labs import LABS
from grader.grading.checking.declared import declared_by_lab, declared_checks

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / DOCUMENT
FIXTURES = ROOT / "tests" / "fixtures"
CHECK_ID = re.compile(r"`(<op>-[a-z0-9]+(?:-[a-z0-9]+)*|[a-z0-9]+(?:-[a-z0-9]+)+)`")
NO_CHECK = "no check of its own"  # how a row says that a clause has none, and why
TEXT = DOC.read_text(encoding="utf-8")
ROWS = clause_rows(TEXT)


def covers(pattern: str, check_id: str) -> bool:
    """True if a named id, or a pattern such as `<op>-forward`, stands for `check_id`."""
    if pattern.startswith("<op>-"):
        return re.fullmatch(r"[a-z]+-" + re.escape(pattern.removeprefix("<op>-")), check_id) is not None
    return pattern == check_id


def test_every_lab_has_a_table() -> None:
    assert sorted({row.lab for row in ROWS}) == sorted(LABS), f"sections in {DOC.name}"


def test_the_checks_column_is_what_the_clause_keys_give() -> None:
    """Every hidden check names a clause its lab's table has, and each checks cell lists the
    checks naming its key (what `build-labs` writes: the message says how to write it)."""
    assert with_checks(TEXT, declared_by_lab()) == TEXT, (
        f"{DOCUMENT}'s checks column drifted from the checks' clause= keys: run `make labs`")


@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_check_the_notes_name_exists(lab: str) -> None:
    checks = declared_checks(LABS[lab])
    # a note may also name a pitfall, or a fixture that shows the clause broken
    known = ({c.id for c in checks} | {c.pitfall for c in checks}
             | {path.name for path in (FIXTURES / lab).iterdir()})
    named = {found for row in ROWS if row.lab == lab for found in CHECK_ID.findall(row.notes)}
    unknown = sorted(p for p in named if not any(covers(p, c) for c in known))
    assert unknown == [], f"{lab}: {DOC.name} names checks the suites do not have: {unknown}"


@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_clause_has_a_check_or_says_why_not(lab: str) -> None:
    bare = [row.clause for row in ROWS if row.lab == lab and row.checks == NONE
            and not CHECK_ID.search(row.notes) and NO_CHECK not in row.notes]
    assert bare == [], f"{lab}: clauses with no check named and no reason given: {bare}"


# -- the generator, on a table of its own ---------------------------------------------------


@dataclass(frozen=True)
class Check:
    """A declared check as the generator reads it."""

    id: str
    clauses: tuple[str, ...]
    visibility: str = "hidden"
    test: str = "test_lab01_hidden.py::test_x"


TABLE = """\
# Clauses

## lab01_graph (`labs/lab01_graph/README.md`)

| key | clause | checks | notes |
|---|---|---|---|
| seed | `.backward()` seeds the output | - | a note |
| order | each node after its users | `stale-id` | |
"""


def test_a_new_check_of_a_clause_is_written_into_its_row_only() -> None:
    checks = {"lab01_graph": [Check("backward-seeds-output", ("seed",)),
                              Check("example-seed", ("seed",), "public"),
                              Check("backward-seeds-again", ("seed",))]}
    written = with_checks(TABLE, checks)
    assert written.splitlines()[6] == ("| seed | `.backward()` seeds the output | "
                                       "`backward-seeds-output`, `backward-seeds-again`, public "
                                       "`example-seed` | a note |"), written
    assert written.splitlines()[7] == "| order | each node after its users | - |  |", written
    assert with_checks(written, checks) == written


@pytest.mark.parametrize(("checks", "message"), [
    ({"lab01_graph": [Check("backward-seeds-output", ())]},
     "test_lab01_hidden.py::test_x: the hidden check backward-seeds-output names no clause"),
    ({"lab01_graph": [Check("backward-seeds-output", ("sead",))]},
     "test_lab01_hidden.py::test_x: clause 'sead' is not a key of the lab01_graph table"),
    ({"lab02_ops": []}, f"{DOCUMENT} has no table for lab02_ops"),
])
def test_a_clause_key_the_table_lacks_is_refused_naming_the_test(checks: dict, message: str) -> None:
    with pytest.raises(ContractClauseError) as caught:
        with_checks(TABLE, checks)
    assert str(caught.value).startswith(message), caught.value


def test_a_key_used_twice_in_a_table_is_refused_naming_the_line() -> None:
    with pytest.raises(ContractClauseError, match=r"contract-clauses.md:8: the key 'seed'"):
        with_checks(TABLE.replace("| order |", "| seed |"), {"lab01_graph": []})
