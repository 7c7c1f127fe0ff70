"""The one rounding of a total: a score out of its maximum as points out of an assignment's.

Side: trusted. Every place that shows a student's total in an assignment's points (Canvas's and
Moodle's gradebook files, Gradescope's recorded score) rounds it here, once, from the exact share,
so the same submission has the same number everywhere.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

QUANTUM = Decimal("0.01")


def rounded_total(score: float, maximum: float, points: float) -> Decimal:
    """A score out of `maximum` as points out of `points`, rounded once to hundredths (half to
    even, from the exact share): the one rounding of a total, wherever a platform shows it."""
    if maximum <= 0 or score <= 0:
        return Decimal(0)
    exact = Fraction(str(score)) / Fraction(str(maximum)) * Fraction(str(points))
    return (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(
        QUANTUM, rounding=ROUND_HALF_EVEN)

