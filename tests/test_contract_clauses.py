"""docs/contract-clauses.md: every clause of each lab's contract shows the checks that read it.

The table is read as the project's claim; these tests hold it to the suites: every hidden check
is named under some clause of its lab, every check a row names exists, and no clause is left
without a check unless the row says why.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.common.labs import LABS
from grader.grading.checking.declared import declared_checks

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "contract-clauses.md"
FIXTURES = ROOT / "tests" / "fixtures"
SECTION = re.compile(r"^## (lab\w+) ")
CHECK_ID = re.compile(r"`(<op>-[a-z0-9]+(?:-[a-z0-9]+)*|[a-z0-9]+(?:-[a-z0-9]+)+)`")
NO_CHECK = "no check of its own"  # how a row says that a clause has none, and why


def clause_rows() -> dict[str, list[tuple[str, str]]]:
    """Lab name -> [(clause, checks cell)] from the document's tables."""
    rows: dict[str, list[tuple[str, str]]] = {}
    lab = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = SECTION.match(line)
        if match:
            lab = match.group(1)
            rows[lab] = []
        elif lab and line.startswith("| ") and not line.startswith("| clause |"):
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            if len(cells) >= 2:
                rows[lab].append((cells[0], " | ".join(cells[1:])))
    return rows


ROWS = clause_rows()


def named_ids(lab: str) -> set[str]:
    """Check ids (and `<op>-...` patterns) the checks column of the lab's rows names."""
    return {found for _, cell in ROWS[lab] for found in CHECK_ID.findall(cell)}


def covers(pattern: str, check_id: str) -> bool:
    """True if a named id, or a pattern such as `<op>-forward`, stands for `check_id`."""
    if pattern.startswith("<op>-"):
        return re.fullmatch(r"[a-z]+-" + re.escape(pattern.removeprefix("<op>-")), check_id) is not None
    return pattern == check_id


def test_every_lab_has_a_table() -> None:
    assert sorted(ROWS) == sorted(LABS), f"sections in {DOC.name}: {sorted(ROWS)}"


@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_hidden_check_reads_a_clause(lab: str) -> None:
    patterns = named_ids(lab)
    hidden = [c.id for c in declared_checks(LABS[lab]) if c.visibility == "hidden"]
    unnamed = [c for c in hidden if not any(covers(p, c) for p in patterns)]
    assert unnamed == [], f"{lab}: hidden checks no clause of {DOC.name} names: {unnamed}"


@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_named_check_exists(lab: str) -> None:
    checks = declared_checks(LABS[lab])
    # a row may also name a pitfall, or a fixture that shows the clause broken
    known = ({c.id for c in checks} | {c.pitfall for c in checks}
             | {path.name for path in (FIXTURES / lab).iterdir()})
    unknown = sorted(p for p in named_ids(lab) if not any(covers(p, c) for c in known))
    assert unknown == [], f"{lab}: {DOC.name} names checks the suites do not have: {unknown}"


@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_clause_has_a_check_or_says_why_not(lab: str) -> None:
    bare = [clause for clause, cell in ROWS[lab]
            if not CHECK_ID.search(cell) and NO_CHECK not in cell]
    assert bare == [], f"{lab}: clauses with no check named and no reason given: {bare}"
