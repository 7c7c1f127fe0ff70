"""`make labs`: the docs' tables that the code decides (the lab table, points per pitfall).

Side: trusted (authoring). Each table lives on one page (PAGES: the lab table in README.md, the
points per pitfall in docs/how-it-works.md), marked with a pair of comments,
`<!-- build-labs: <table> -->` and `<!-- /build-labs: <table> -->`; what is between them is
rendered from `readme/<table>.md.j2` and rewritten by `build-labs`, which reports drift with
`--check`. The checks come from the caller (authoring never imports grading; the command line
reads them with grader.grading.checking.declared); the fixtures are the folders of
tests/fixtures/<lab>/ that hold an expected.toml.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import jinja2

from grader.authoring.notebooks import readme_title
from grader.common.labs import LABS, Lab

TEMPLATES = Path(__file__).resolve().parent / "readme"
LAB_TABLE, PITFALL_POINTS = "lab-table", "pitfall-points"
TABLES = (LAB_TABLE, PITFALL_POINTS)
# The page (relative to the repository) that holds each generated table, and its tables in order.
PAGES: dict[str, tuple[str, ...]] = {"README.md": (LAB_TABLE,),
                                     "docs/how-it-works.md": (PITFALL_POINTS,)}
# The four headline pitfalls of the course (issue 9): first and in bold in the points table.
HEADLINE_PITFALLS = ("grad-overwrite", "missing-zero-grad", "mid-flight-mutation", "hash-trap")
CORRECT_PREFIX = "correct-"  # a fixture folder holding a correct engine, not a bug
_MARKER = re.compile(r"<!-- (?P<end>/?)build-labs: (?P<name>[a-z-]+) -->")
_CELL_BORDER = re.compile(r"(?<!\\)\|")  # a cell's `|`, not an escaped `\|` inside it


class ReadmeTableError(ValueError):
    """A page's markers of a generated table are missing, repeated or out of order."""


class DeclaredCheck(Protocol):
    """What the tables read of a declared check (grader.grading.checking.marker.CheckSpec)."""

    @property
    def pitfall(self) -> str: ...

    @property
    def weight(self) -> float: ...

    @property
    def visibility(self) -> str: ...


Declared = Mapping[str, Sequence[DeclaredCheck]]  # lab name -> its public and hidden checks


@dataclass(frozen=True)
class LabRow:
    """One row of the lab table: the registry's files, the hand-written topic, the counts."""

    lab: str
    files: tuple[str, ...]
    given: tuple[str, ...]
    topic: str
    hidden: int
    public: int
    pitfalls: int
    fixtures: int
    correct: int


def points_by_pitfall(checks: Sequence[DeclaredCheck]) -> dict[str, float]:
    """Total weight per pitfall id."""
    totals: dict[str, float] = {}
    for check in checks:
        totals[check.pitfall] = totals.get(check.pitfall, 0.0) + check.weight
    return totals


def lab_row(lab: Lab, checks: Sequence[DeclaredCheck], fixtures_dir: Path, topic: str) -> LabRow:
    """The lab's row: its checks by visibility, its pitfalls, its fixtures (correct ones apart)."""
    fixtures = [path.parent.name for path in (fixtures_dir / lab.name).glob("*/expected.toml")]
    return LabRow(
        lab=lab.name, files=lab.files, given=lab.support_files, topic=topic,
        hidden=sum(check.visibility == "hidden" for check in checks),
        public=sum(check.visibility == "public" for check in checks),
        pitfalls=len({check.pitfall for check in checks}),
        fixtures=len(fixtures),
        correct=sum(name.startswith(CORRECT_PREFIX) for name in fixtures),
    )


def render(table: str, **context: object) -> str:
    """A table of grader/authoring/readme/ rendered with `context`."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), trim_blocks=True,
                             undefined=jinja2.StrictUndefined, autoescape=False)
    return env.get_template(f"{table}.md.j2").render(context).rstrip("\n")


def cells(line: str) -> list[str]:
    """The cells of a Markdown table line, stripped."""
    return [cell.strip() for cell in _CELL_BORDER.split(line.strip())[1:-1]]


def topics(block: str) -> dict[str, str]:
    """The "what it covers" cell of each row of a lab table, by lab: text written by hand."""
    found = {}
    for line in block.splitlines():
        row = cells(line)
        if len(row) >= 3 and re.fullmatch(r"`\w+`", row[0]):
            found[row[0].strip("`")] = row[2]
    return found


def lab_table(repo_root: Path, declared: Declared, kept_topics: Mapping[str, str]) -> str:
    """The lab table, one row per registered lab. A row keeps the topic its README row has; a
    lab new to the table starts with its README's title (labs/<lab>/README.md)."""
    rows = []
    for lab in LABS.values():
        readme = repo_root / "labs" / lab.name / "README.md"
        topic = kept_topics.get(lab.name) or readme_title(
            readme.read_text(encoding="utf-8") if readme.is_file() else "", lab.name)
        rows.append(lab_row(lab, declared[lab.name], repo_root / "tests" / "fixtures", topic))
    return render(LAB_TABLE, rows=rows)


def pitfall_points_table(declared: Declared) -> str:
    """Points per pitfall per lab (public + hidden checks), headline pitfalls first.

    A random-graph check is counted under the pitfall it declares; when it fails, it names the
    pitfall it diagnoses instead.
    """
    totals = {name: points_by_pitfall(declared[name]) for name in LABS}
    pitfalls = sorted({pitfall for points in totals.values() for pitfall in points},
                      key=lambda p: (HEADLINE_PITFALLS.index(p) if p in HEADLINE_PITFALLS
                                     else len(HEADLINE_PITFALLS), p))
    return render(PITFALL_POINTS, labs=list(LABS), pitfalls=pitfalls, totals=totals,
                   lab_totals={name: sum(points.values()) for name, points in totals.items()},
                   headline=HEADLINE_PITFALLS)


def blocks(readme: str, tables: tuple[str, ...] = TABLES,
           page: str = "README.md") -> dict[str, tuple[int, int]]:
    """Where each generated table's text is in a page: (start, end) between its markers.

    Every table of ``tables`` has exactly one begin and one end marker, in that order, and no
    other `build-labs:` marker appears (a table of another page included): anything else is a
    ReadmeTableError naming the page and the line.
    """
    found: dict[str, tuple[int, int]] = {}
    open_name, open_end = "", 0
    for match in _MARKER.finditer(readme):
        name, line = match["name"], readme.count("\n", 0, match.start()) + 1
        if name not in tables:
            home = next((where for where, held in PAGES.items() if name in held), None)
            raise ReadmeTableError(
                f"{page}:{line}: generated table {name!r} belongs on {home}" if home else
                f"{page}:{line}: unknown generated table {name!r}; known: {', '.join(tables)}")
        if not match["end"]:
            if open_name:
                raise ReadmeTableError(f"{page}:{line}: `build-labs: {name}` begins before "
                                       f"`/build-labs: {open_name}` ends the table above")
            if name in found:
                raise ReadmeTableError(f"{page}:{line}: a second `build-labs: {name}` block; "
                                       "a table has one")
            open_name, open_end = name, match.end()
        elif name != open_name:
            raise ReadmeTableError(f"{page}:{line}: `/build-labs: {name}` ends a table "
                                   "that did not begin")
        else:
            found[name], open_name = (open_end, match.start()), ""
    missing = [name for name in tables if name not in found]
    if missing:
        raise ReadmeTableError(f"{page} holds no complete block for {', '.join(missing)}: "
                               "`<!-- build-labs: <table> -->` ... `<!-- /build-labs: <table> -->`")
    return found


def with_tables(readme: str, repo_root: Path, declared: Declared,
                tables: tuple[str, ...] = TABLES, page: str = "README.md") -> str:
    """A page's text with each of its generated ``tables`` made again from the code."""
    spans = blocks(readme, tables, page)
    made = {name: (lab_table(repo_root, declared, topics(readme[slice(*spans[name])]))
                   if name == LAB_TABLE else pitfall_points_table(declared))
            for name in tables}
    text, offset = readme, 0
    for name, (start, end) in sorted(spans.items(), key=lambda item: item[1]):
        block = f"\n{made[name]}\n"
        text = text[:start + offset] + block + text[end + offset:]
        offset += len(block) - (end - start)
    return text
