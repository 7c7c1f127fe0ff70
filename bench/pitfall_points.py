"""Print the README's table of points per pitfall per lab (public + hidden checks).

Usage: python bench/pitfall_points.py
Each cell is the total weight of the lab's checks that declare the pitfall, and its share of
the lab's points. A random-graph check is counted under the pitfall it declares; when it
fails, it names the pitfall it diagnoses instead.
"""

from __future__ import annotations

from grader.grading.checking.declared import declared_checks, points_by_pitfall
from grader.labs import LABS

HEADLINE = ("grad-overwrite", "missing-zero-grad", "mid-flight-mutation", "hash-trap")


def table() -> str:
    """The Markdown table, headline pitfalls first."""
    totals = {name: points_by_pitfall(declared_checks(lab)) for name, lab in LABS.items()}
    pitfalls = sorted({p for points in totals.values() for p in points},
                      key=lambda p: (p not in HEADLINE, HEADLINE.index(p) if p in HEADLINE else 0, p))
    rows = ["| pitfall | " + " | ".join(f"`{name}`" for name in LABS) + " |",
            "|---|" + "---|" * len(LABS)]
    for pitfall in pitfalls:
        cells = []
        for name in LABS:
            points, total = totals[name].get(pitfall), sum(totals[name].values())
            cells.append(f"{points:g} ({100 * points / total:.0f}%)" if points else "-")
        bold = "**" if pitfall in HEADLINE else ""
        rows.append(f"| {bold}`{pitfall}`{bold} | " + " | ".join(cells) + " |")
    rows.append("| total | " + " | ".join(f"{sum(totals[name].values()):g}" for name in LABS)
                + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
