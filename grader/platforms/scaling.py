"""Check points scaled to an assignment's points, so that the scaled checks still add up to it.

Trusted side. A platform that sums its tests (Gradescope adds the `score` and `max_score` of every
test, gradescope-utils `json_test_runner.py` `JSONTestRunner.run`) needs every check scaled, not
only the total: each maximum is the check's share of `total` in hundredths, by the largest
remainder, so the maxima add up to `total` exactly as the decimals JSON carries.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from grader.results.rounding import QUANTUM


def valid_total(total: float) -> bool:
    """Whether `total` is a positive number of hundredths (what the scaled maxima can add up to)."""
    exact = Decimal(str(total))
    return exact > 0 and exact == exact.quantize(QUANTUM)


def scaled_maxima(maxima: Sequence[float], total: float) -> list[Decimal]:
    """Each maximum's share of `total`, in hundredths, adding up to `total` exactly."""
    if not valid_total(total):
        raise ValueError(f"points must be a positive number of hundredths, not {total!r}")
    units = int(Decimal(str(total)) / QUANTUM)
    whole = sum(Fraction(str(m)) for m in maxima)
    if whole == 0:
        return [Decimal(0) for _ in maxima]
    shares = [Fraction(str(m)) * units / whole for m in maxima]
    floors = [int(share) for share in shares]
    # the units the floors left over go to the largest remainders (the first one on a tie)
    order = sorted(range(len(shares)), key=lambda i: (floors[i] - shares[i], i))
    for i in order[:units - sum(floors)]:
        floors[i] += 1
    return [unit * QUANTUM for unit in floors]


def scaled_score(score: float, maximum: float, scaled_maximum: Decimal) -> Decimal:
    """A check's score on its scaled maximum, in hundredths (full marks stay full marks)."""
    if maximum <= 0 or score <= 0:
        return Decimal(0)
    if score >= maximum:
        return scaled_maximum
    share = Decimal(str(score)) / Decimal(str(maximum)) * scaled_maximum
    return min(share.quantize(QUANTUM, rounding=ROUND_HALF_EVEN), scaled_maximum)
