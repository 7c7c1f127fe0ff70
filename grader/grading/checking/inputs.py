"""Randomized check inputs, seeded per submission and check so a regrade gives the same score.

Side: trusted process.
"""

from __future__ import annotations

import random

LOW, HIGH = 0.5, 3.0


def distinct_values(rng: random.Random, names: str) -> dict[str, float]:
    """Values for the space-separated names: |v| in [0.5, 3], 3 decimals, distinct magnitudes,
    never +-1 (so a*a and a differ, and no two inputs coincide up to sign)."""
    keys = names.split()
    while True:
        values = [round(rng.uniform(LOW, HIGH) * rng.choice((-1, 1)), 3) for _ in keys]
        magnitudes = {abs(v) for v in values}
        if len(magnitudes) == len(values) and 1.0 not in magnitudes:
            return dict(zip(keys, values, strict=True))
