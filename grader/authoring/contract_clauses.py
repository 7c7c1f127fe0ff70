"""`make labs`: the checks column of docs/contract-clauses.md, from the checks' `clause=` keys.

Side: trusted (authoring). Each lab's section of the document is a table with one row per
clause of the lab's contract: `| key | clause | checks | notes |`. The key, the clause and the
notes are written by hand; the checks cell is written here, from the checks of the lab whose
marker names the row's key (`clause="seed"`, or a tuple of keys), hidden ones first, in the
order the suites define them. A new check that holds an existing clause therefore needs no
edit of the document, and `build-labs --check` reports a cell that drifts. The checks come
from the caller (authoring never imports grading; the command line reads them with
grader.grading.checking.declared).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from grader.authoring.readme_tables import cells

DOCUMENT = "docs/contract-clauses.md"
SECTION = re.compile(r"^## (lab\w+) ")
KEY = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
HEADER = ("key", "clause", "checks", "notes")
NONE = "-"  # the checks cell of a clause no check names (its notes say what holds it)


class ContractClauseError(ValueError):
    """The document and the checks' clause keys disagree: the message names where."""


class ClauseHolder(Protocol):
    """What the table reads of a declared check (grader.grading.checking.marker.CheckSpec)."""

    @property
    def id(self) -> str: ...

    @property
    def visibility(self) -> str: ...

    @property
    def clauses(self) -> tuple[str, ...]: ...

    @property
    def test(self) -> str: ...


@dataclass(frozen=True)
class ClauseRow:
    """One row of a lab's table: where it is in the document and its four cells."""

    lab: str
    line: int  # index in the document's lines
    key: str
    clause: str
    checks: str
    notes: str


def clause_rows(document: str) -> list[ClauseRow]:
    """Every clause row of every lab section, in document order. A row of four cells whose
    first is a key; the header and the separator are not rows."""
    rows, lab = [], ""
    for index, line in enumerate(document.splitlines()):
        section = SECTION.match(line)
        if section:
            lab = section.group(1)
            continue
        found = cells(line) if line.startswith("|") else []
        if lab and len(found) == len(HEADER) and KEY.match(found[0]) and found[0] != "key":
            rows.append(ClauseRow(lab, index, *found))
    return rows


def _keys_by_lab(rows: Sequence[ClauseRow]) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {}
    for row in rows:
        if row.key in keys.setdefault(row.lab, set()):
            raise ContractClauseError(f"{DOCUMENT}:{row.line + 1}: the key {row.key!r} is used "
                                      f"twice in the table of {row.lab}")
        keys[row.lab].add(row.key)
    return keys


def _check_declarations(declared: Mapping[str, Sequence[ClauseHolder]],
                        keys: Mapping[str, set[str]]) -> None:
    """Every lab has a table; every hidden check names a clause; every key named is a row."""
    for lab, checks in declared.items():
        if lab not in keys:
            raise ContractClauseError(f"{DOCUMENT} has no table for {lab} (`## {lab} ...`)")
        for check in checks:
            if check.visibility == "hidden" and not check.clauses:
                raise ContractClauseError(
                    f"{check.test}: the hidden check {check.id} names no clause of its lab's "
                    f"contract: add clause=<key> (a key of the {lab} table of {DOCUMENT})")
            unknown = [key for key in check.clauses if key not in keys[lab]]
            if unknown:
                raise ContractClauseError(
                    f"{check.test}: clause {unknown[0]!r} is not a key of the {lab} table of "
                    f"{DOCUMENT}")


def checks_cell(key: str, checks: Sequence[ClauseHolder]) -> str:
    """The checks that name `key`: hidden ones, then public ones (said so), or NONE."""
    named = [check for check in checks if key in check.clauses]
    ordered = ([f"`{c.id}`" for c in named if c.visibility == "hidden"]
               + [f"public `{c.id}`" for c in named if c.visibility != "hidden"])
    return ", ".join(ordered) or NONE


def with_checks(document: str, declared: Mapping[str, Sequence[ClauseHolder]]) -> str:
    """The document with every row's checks cell written again from the declared checks."""
    rows = clause_rows(document)
    _check_declarations(declared, _keys_by_lab(rows))
    lines = document.split("\n")
    for row in rows:
        checks = checks_cell(row.key, declared.get(row.lab, ()))
        lines[row.line] = f"| {row.key} | {row.clause} | {checks} | {row.notes} |"
    return "\n".join(lines)
