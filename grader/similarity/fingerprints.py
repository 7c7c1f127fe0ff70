"""One student's fingerprints: winnowed k-grams of what they wrote, boilerplate set apart.

Side: trusted process; pure functions on source text.

Boilerplate k-grams are removed before winnowing, so a window's minimum is always the student's
own: the code they were given can neither be matched nor hide what they wrote. Which lines are
boilerplate (every token inside a boilerplate k-gram) is kept to grey them in the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from grader.similarity.tokens import Unit, units
from grader.similarity.winnowing import WINDOW, K, kgrams, winnow


@dataclass(frozen=True)
class Fingerprint:
    """A kept k-gram: its hash, and the file, function and lines it covers."""

    hash: int
    file: str
    unit: str
    first_line: int
    last_line: int


@dataclass(frozen=True)
class Fingerprinted:
    """A student's own fingerprints and, per file, the lines that are boilerplate."""

    id: str
    fingerprints: tuple[Fingerprint, ...]
    boilerplate_lines: Mapping[str, frozenset[int]]
    # (file, unit) -> first and last line of the unit's code (the module's spans the file)
    spans: Mapping[tuple[str, str], tuple[int, int]]

    @property
    def hashes(self) -> frozenset[int]:
        """The distinct hashes of the fingerprints."""
        return frozenset(f.hash for f in self.fingerprints)


def _unit_fingerprints(unit: Unit, file: str, base: frozenset[int],
                       covered_lines: dict[int, bool]) -> list[Fingerprint]:
    """The unit's own winnowed fingerprints; records, per line, whether every token on it lies in
    a boilerplate k-gram."""
    texts = [token.text for token in unit.tokens]
    grams = kgrams(texts, K)
    covered = [False] * len(texts)
    for gram in grams:
        if gram.hash in base:
            covered[gram.first:gram.last + 1] = [True] * (gram.last - gram.first + 1)
    for token, inside in zip(unit.tokens, covered, strict=True):
        covered_lines[token.line] = covered_lines.get(token.line, True) and inside
    own = [gram for gram in grams if gram.hash not in base]
    return [Fingerprint(gram.hash, file, unit.name, unit.tokens[gram.first].line,
                        unit.tokens[gram.last].line) for gram in winnow(own, WINDOW)]


def fingerprint(student_id: str, files: Mapping[str, str], base: frozenset[int]) -> Fingerprinted:
    """The student's own fingerprints over every lab file, and their boilerplate lines."""
    found: list[Fingerprint] = []
    boilerplate: dict[str, frozenset[int]] = {}
    spans: dict[tuple[str, str], tuple[int, int]] = {}
    for name, text in files.items():
        covered_lines: dict[int, bool] = {}
        for unit in units(text):
            found += _unit_fingerprints(unit, name, base, covered_lines)
            if unit.tokens:
                spans[name, unit.name] = (unit.tokens[0].line, unit.tokens[-1].line)
        boilerplate[name] = frozenset(line for line, all_in in covered_lines.items() if all_in)
    return Fingerprinted(student_id, tuple(found), boilerplate, spans)
