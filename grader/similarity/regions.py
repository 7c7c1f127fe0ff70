"""The code two students share, side by side: matched functions, each line marked shared, given
(boilerplate) or their own.

Side: trusted process; pure functions on fingerprints and source text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from grader.similarity.fingerprints import Fingerprint, Fingerprinted
from grader.similarity.tokens import MODULE_UNIT

MAX_REGIONS = 6  # matched functions shown per pair, most shared first
MAX_LINES = 80  # lines shown of one side of a region


@dataclass(frozen=True)
class Line:
    """One source line of a region and what it is: shared, given, own or blank."""

    number: int
    text: str
    kind: str


@dataclass(frozen=True)
class Side:
    """One student's side of a region: the file, the function and its lines."""

    file: str
    unit: str
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class Region:
    """A function of one student matched with a function of the other."""

    shared: int  # fingerprints the two functions share
    first: Side
    second: Side


def _key(fingerprint: Fingerprint) -> tuple[str, str]:
    return fingerprint.file, fingerprint.unit


def _matched_units(first: Fingerprinted, second: Fingerprinted,
                   counted: Collection[int]) -> list[tuple[int, tuple[str, str], tuple[str, str]]]:
    """(fingerprints shared, unit of first, unit of second), most shared first, each unit of
    either side used once (a function copied twice shows against its best match)."""
    theirs: dict[int, set[tuple[str, str]]] = {}
    for fingerprint in second.fingerprints:
        if fingerprint.hash in counted:
            theirs.setdefault(fingerprint.hash, set()).add(_key(fingerprint))
    counts: Counter[tuple[tuple[str, str], tuple[str, str]]] = Counter()
    for fingerprint in first.fingerprints:
        for unit in theirs.get(fingerprint.hash, ()):
            counts[_key(fingerprint), unit] += 1
    used_first: set[tuple[str, str]] = set()
    used_second: set[tuple[str, str]] = set()
    matched = []
    for (mine, other), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if mine not in used_first and other not in used_second:
            used_first.add(mine)
            used_second.add(other)
            matched.append((count, mine, other))
    return matched[:MAX_REGIONS]


def _side(doc: Fingerprinted, unit: tuple[str, str], source: str, shared: Collection[int]) -> Side:
    """The unit's lines, each marked; the module's code is cut to the lines around what is
    shared."""
    file, name = unit
    marks = [f for f in doc.fingerprints if _key(f) == unit and f.hash in shared]
    first, last = doc.spans.get(unit, (1, 1))
    if name == MODULE_UNIT and marks:
        first, last = min(f.first_line for f in marks), max(f.last_line for f in marks)
    shared_lines = {n for f in marks for n in range(f.first_line, f.last_line + 1)}
    given = doc.boilerplate_lines.get(file, frozenset())
    texts = source.splitlines()
    lines = []
    for number in range(first, min(last, first + MAX_LINES - 1) + 1):
        text = texts[number - 1] if number <= len(texts) else ""
        kind = ("shared" if number in shared_lines else "given" if number in given
                else "blank" if not text.strip() or text.strip().startswith("#") else "own")
        lines.append(Line(number, text, kind))
    return Side(file, name, tuple(lines))


def regions(first: Fingerprinted, second: Fingerprinted, first_files: Mapping[str, str],
            second_files: Mapping[str, str], counted: Collection[int]) -> list[Region]:
    """The matched functions of a pair, side by side; `counted`: the fingerprints the score
    counts (those left out as the class's idiom are not marked shared)."""
    shared = first.hashes & second.hashes & frozenset(counted)
    return [Region(count, _side(first, mine, first_files[mine[0]], shared),
                   _side(second, other, second_files[other[0]], shared))
            for count, mine, other in _matched_units(first, second, shared)]
