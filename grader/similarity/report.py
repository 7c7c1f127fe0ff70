"""The similarity report as data: ranked pairs, what they share side by side, the rare wrong
values they share, and how to read the figures. JSON as it stands; HTML through a template.

Side: trusted process; builds plain data, never a verdict. A listed pair is evidence to look at.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grader import __version__
from grader.results.i18n import Catalogue
from grader.results.messages import (
    check_title,
    describe_detail,
    format_inputs,
    format_pair,
    format_value,
)
from grader.similarity.fingerprints import Fingerprinted
from grader.similarity.ranking import (
    COMMON_FLOOR,
    COMMON_SHARE,
    DEFAULT_CUT,
    MAD_FLOOR,
    PairScore,
    Ranking,
)
from grader.similarity.regions import regions
from grader.similarity.sources import HandedIn, Unreadable
from grader.similarity.winnowing import WINDOW, K
from grader.similarity.wrong_outputs import RARE_MOST, RARE_SHARE, WrongValue, rare_limit

REPORT_FORMAT = "minigrad-labs-similarity/1"


@dataclass(frozen=True)
class ReportOptions:
    """What the report lists: the cut, how many pairs, how many with their code, pseudonyms."""

    cut: float = DEFAULT_CUT
    top: int = 50  # pairs listed at most
    detailed: int = 20  # of those, how many show their code side by side
    pseudonym_key: bytes | None = None  # with a key, student ids are replaced by pseudonyms


def pseudonym(student_id: str, key: bytes) -> str:
    """A stable pseudonym for the id: an HMAC-SHA256 of it under the run's key, cut short."""
    return "student-" + hmac.new(key, student_id.encode("utf-8"), hashlib.sha256).hexdigest()[:10]


@dataclass(frozen=True)
class ClassEvidence:
    """Everything the report is built from."""

    lab: str
    handed: Sequence[HandedIn]
    unreadable: Sequence[Unreadable]
    fingerprinted: Mapping[str, Fingerprinted]
    ranking: Ranking
    wrong: Mapping[tuple[str, str], list[WrongValue]]
    graded: int | None  # score documents read (None: no --scores)


def _listed(evidence: ClassEvidence, options: ReportOptions) -> list[PairScore]:
    """The pairs above the cut and those sharing a rare wrong value, most unusual first."""
    above = [pair for pair in evidence.ranking.pairs if pair.above(options.cut)]
    named = {(pair.first, pair.second) for pair in above}
    by_pair = {(pair.first, pair.second): pair for pair in evidence.ranking.pairs}
    extra = [by_pair.get(key) or evidence.ranking.unshared(*key)
             for key in sorted(evidence.wrong) if key not in named]
    extra.sort(key=lambda pair: (-len(evidence.wrong[pair.first, pair.second]), -pair.z))
    return (above + extra)[:options.top]


def _wrong_view(value: WrongValue, catalogue: Catalogue) -> dict[str, Any]:
    """The wrong value's data, and its texts in the report's language."""
    actual, expected = format_pair(value.actual, value.expected, lang=catalogue.lang)
    inputs = (format_inputs(value.inputs, catalogue) if isinstance(value.inputs, dict)
              else format_value(value.inputs, True, catalogue.lang))
    return {**dataclasses.asdict(value), "title": check_title(value.check, catalogue),
            "text": catalogue.text("similarity.wrong_item", quantity=value.quantity or value.check,
                                   inputs=inputs, actual=actual, expected=expected,
                                   holders=str(value.holders))}


def _pair_view(rank: int, pair: PairScore, evidence: ClassEvidence, options: ReportOptions,
               catalogue: Catalogue, names: Mapping[str, str]) -> dict[str, Any]:
    files = {doc.id: doc.files for doc in evidence.handed}
    view: dict[str, Any] = {
        "rank": rank, "first": names[pair.first], "second": names[pair.second],
        "score": pair.score, "first_share": pair.first_share, "second_share": pair.second_share,
        "z": pair.z, "percentile": pair.percentile, "above_cut": pair.above(options.cut),
        "wrong_values": [_wrong_view(v, catalogue)
                         for v in evidence.wrong.get((pair.first, pair.second), [])],
        "regions": []}
    if rank <= options.detailed and pair.score > 0:
        first, second = evidence.fingerprinted[pair.first], evidence.fingerprinted[pair.second]
        view["regions"] = [dataclasses.asdict(region) for region in regions(
            first, second, files[pair.first], files[pair.second], evidence.ranking.counted)]
    return view


def build_report(evidence: ClassEvidence, options: ReportOptions, catalogue: Catalogue) -> dict[str, Any]:
    """The report as plain data (the JSON file, and the HTML template's context)."""
    ids = [doc.id for doc in evidence.handed] + [doc.id for doc in evidence.unreadable]
    key = options.pseudonym_key
    names = {student: pseudonym(student, key) if key else student for student in ids}
    listed = _listed(evidence, options)
    ranking = evidence.ranking
    return {
        "format": REPORT_FORMAT,
        "grader_version": __version__,
        "lab": evidence.lab,
        "lang": catalogue.lang,
        "pseudonymous": key is not None,
        "students": len(evidence.handed),
        "unreadable": [{"id": names[doc.id], "reason": describe_detail(doc.reason, catalogue)}
                       for doc in evidence.unreadable],
        "method": {"k": K, "window": WINDOW, "cut": options.cut, "mad_floor": MAD_FLOOR,
                   "common_share": COMMON_SHARE, "common_floor": COMMON_FLOOR,
                   "rare_share": RARE_SHARE, "rare_most": RARE_MOST},
        "distribution": {"pairs": ranking.pair_count, "sharing": len(ranking.pairs),
                         "median": ranking.median, "mad": ranking.mad,
                         "above_cut": sum(1 for pair in ranking.pairs if pair.above(options.cut)),
                         "common_left_out": ranking.common_left_out},
        "wrong_values": {"read": evidence.graded is not None, "graded": evidence.graded or 0,
                         "rare_limit": rare_limit(evidence.graded or 0),
                         "pairs": len(evidence.wrong)},
        "pairs": [_pair_view(rank, pair, evidence, options, catalogue, names)
                  for rank, pair in enumerate(listed, 1)],
    }
