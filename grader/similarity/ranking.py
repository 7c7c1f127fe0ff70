"""Every pair of a class scored, then ranked against the class's own distribution of scores.

Side: trusted process; pure functions on fingerprints.

A pair's score is the weighted Dice coefficient of the two students' own fingerprints:
2 * shared / (mine + theirs), each fingerprint weighted by how rare it is in the class,
log(1 + N / holders). A fingerprint more than half of the class holds (and more than
COMMON_FLOOR students) is the class's idiom, not a copy, and is left out, as MOSS's `-m` does.

A score alone says little: micrograd-style engines are alike by construction, and a lab where
everyone writes the same lines scores every pair high. So each pair is placed in the class's
distribution of all N (N - 1) / 2 pair scores with the modified z-score of Iglewicz and Hoaglin
(1993), 0.6745 (score - median) / MAD, and its percentile. The report's default cut is that
z-score at 3.5, the cut the same authors recommend for outliers. When most pairs share nothing,
the MAD is 0; it is then taken as MAD_FLOOR, so that a pair must score at least
3.5 * MAD_FLOOR / 0.6745 (about 0.26) above the median to pass the cut.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from grader.similarity.fingerprints import Fingerprinted

DEFAULT_CUT = 3.5
MAD_FLOOR = 0.05
COMMON_SHARE = 0.5
COMMON_FLOOR = 10
# The consistency constant of the modified z-score: the MAD of a normal distribution is
# 0.6745 of its standard deviation.
NORMAL_MAD = 0.6745


@dataclass(frozen=True)
class PairScore:
    """One pair: its score, each side's share in it, and where it stands in the class."""

    first: str
    second: str
    score: float
    first_share: float  # of the first student's own fingerprints (weighted), the part shared
    second_share: float
    z: float
    percentile: float  # of all the class's pairs, the share scoring at most this

    def above(self, cut: float) -> bool:
        """Tell whether the pair stands out from the class at this cut."""
        return self.z >= cut


@dataclass(frozen=True)
class Ranking:
    """The pairs that share anything, most unusual first, and the distribution they came from."""

    pairs: tuple[PairScore, ...]
    pair_count: int
    median: float
    mad: float
    cut: float
    common_left_out: int  # distinct fingerprints left out as the class's idiom
    counted: frozenset[int]  # the fingerprints a score counts

    def unshared(self, first: str, second: str) -> PairScore:
        """A pair that shares no fingerprint, placed in the distribution (score 0)."""
        zeros = self.pair_count - len(self.pairs)
        first, second = sorted((first, second))
        return PairScore(first, second, 0.0, 0.0, 0.0,
                         round(NORMAL_MAD * -self.median / max(self.mad, MAD_FLOOR), 2),
                         round(zeros / self.pair_count, 4) if self.pair_count else 0.0)


def fingerprint_weights(docs: Sequence[Fingerprinted]) -> tuple[dict[int, float], int]:
    """Weight of each fingerprint held by two students or more, and how many were left out as
    common."""
    holders: dict[int, int] = defaultdict(int)
    for doc in docs:
        for value in doc.hashes:
            holders[value] += 1
    size = len(docs)
    common = max(COMMON_SHARE * size, COMMON_FLOOR)
    weights = {value: math.log(1 + size / count) for value, count in holders.items()
               if count <= common}
    return weights, sum(1 for count in holders.values() if count > common)


def _shared_weights(docs: Sequence[Fingerprinted], weights: dict[int, float]) -> dict[tuple[int, int], float]:
    """The weight each pair (by index) shares, through an index from fingerprint to holders: the
    cost is the sum of holders squared, not the number of pairs."""
    holders: dict[int, list[int]] = defaultdict(list)
    for index, doc in enumerate(docs):
        for value in doc.hashes:
            if value in weights:
                holders[value].append(index)
    shared: dict[tuple[int, int], float] = defaultdict(float)
    for value, indices in holders.items():  # indices ascend: each pair is (i, j) with i < j
        if len(indices) > 1:
            weight = weights[value]
            for pair in combinations(indices, 2):
                shared[pair] += weight
    return shared


def robust_center(scores: list[float], zeros: int) -> tuple[float, float]:
    """Median and median absolute deviation of the scores (0 or more) plus `zeros` scores of 0."""
    if not scores and not zeros:
        return 0.0, 0.0
    if zeros * 2 > zeros + len(scores):  # most pairs share nothing: both are 0
        return 0.0, 0.0
    values = [0.0] * zeros + sorted(scores)
    median = statistics.median(values)  # already sorted: statistics sorts again in C, quickly
    return median, statistics.median(abs(value - median) for value in values)


def rank_class(docs: Sequence[Fingerprinted], cut: float = DEFAULT_CUT) -> Ranking:
    """Every pair that shares a fingerprint, scored and placed in the class's distribution."""
    weights, common = fingerprint_weights(docs)
    totals = [sum(weights.get(value, 0.0) for value in doc.hashes) for doc in docs]
    shared = _shared_weights(docs, weights)
    pair_count = len(docs) * (len(docs) - 1) // 2
    raw = {pair: 2 * weight / (totals[pair[0]] + totals[pair[1]])
           for pair, weight in shared.items()}
    scores = sorted(raw.values())
    zeros = pair_count - len(scores)
    median, mad = robust_center(scores, zeros)
    spread = max(mad, MAD_FLOOR)
    ranked = []
    for (i, j), score in raw.items():
        weight = shared[i, j]
        if docs[i].id > docs[j].id:  # a pair is named in the order of its ids
            i, j = j, i
        at_most = zeros + bisect.bisect_right(scores, score)
        ranked.append(PairScore(
            docs[i].id, docs[j].id, round(score, 4), round(weight / totals[i], 4),
            round(weight / totals[j], 4), round(NORMAL_MAD * (score - median) / spread, 2),
            round(at_most / pair_count, 4)))
    ranked.sort(key=lambda p: (-p.z, -p.score, p.first, p.second))
    return Ranking(tuple(ranked), pair_count, round(median, 4), round(mad, 4), cut, common,
                   frozenset(weights))
