"""The labelled corpus (tests/similarity/corpus.py): every disguised copy ranks above every pair
of independent students, in every lab and for every disguise, and the report's default cut
finds every copy. Precision and recall at the default cut are printed (run with -s) and kept
above the figures docs/similarity.md gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import COPY_PREFIX, LabelledClass, base_hashes, labelled_classes
from disguises import CUT_ONLY, DISGUISES

from grader.common.labs import LABS
from grader.similarity.ranking import DEFAULT_CUT, rank_class

# docs/similarity.md gives the figures measured; these floors keep them from sliding unnoticed.
PRECISION_FLOOR = 0.6
RECALL_FLOOR = 1.0


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> list[LabelledClass]:
    scratch: Path = tmp_path_factory.mktemp("disguised")
    return list(labelled_classes(scratch, base_hashes()))


def test_there_are_at_least_six_disguises_and_a_class_for_each_in_every_lab(
        classes: list[LabelledClass]) -> None:
    assert len(DISGUISES) >= 6
    assert {(c.lab, c.disguise) for c in classes} == {(lab, d) for lab in LABS for d in DISGUISES}
    for labelled in classes:
        assert len(labelled.copies) >= 3, f"{labelled.lab}: too few engines to copy"


def test_every_disguised_copy_ranks_above_every_independent_pair(
        classes: list[LabelledClass]) -> None:
    for labelled in classes:
        if labelled.disguise in CUT_ONLY:
            continue
        ranking = rank_class(labelled.students)
        independent = [p for p in ranking.pairs
                       if not p.first.startswith(COPY_PREFIX) and not p.second.startswith(COPY_PREFIX)]
        copies = {(p.first, p.second): p for p in ranking.pairs if labelled.is_copy(p.first, p.second)}
        assert len(copies) == len(labelled.copies), (
            f"{labelled.lab}, {labelled.disguise}: copies sharing nothing with their engine: "
            f"{sorted(labelled.copies - set(copies))}")
        weakest = min(copies.values(), key=lambda p: (p.z, p.score))
        strongest = max(independent, key=lambda p: (p.z, p.score), default=None)
        if strongest is not None:
            assert (weakest.z, weakest.score) > (strongest.z, strongest.score), (
                f"{labelled.lab}, {labelled.disguise}: the copy pair {weakest} ranks below the "
                f"independent pair {strongest}")


def test_a_padded_copy_is_still_above_the_default_cut(classes: list[LabelledClass]) -> None:
    for labelled in classes:
        if labelled.disguise not in CUT_ONLY:
            continue
        ranking = rank_class(labelled.students)
        copies = [p for p in ranking.pairs if labelled.is_copy(p.first, p.second)]
        assert len(copies) == len(labelled.copies)
        below = [p for p in copies if p.z < DEFAULT_CUT]
        assert below == [], f"{labelled.lab}, {labelled.disguise}: copies below the cut: {below}"


def test_precision_and_recall_at_the_default_cut(classes: list[LabelledClass]) -> None:
    found = flagged = copies = 0
    for labelled in classes:
        ranking = rank_class(labelled.students)
        above = [p for p in ranking.pairs if p.z >= DEFAULT_CUT]
        found += sum(1 for p in above if labelled.is_copy(p.first, p.second))
        flagged += len(above)
        copies += len(labelled.copies)
    precision, recall = found / flagged, found / copies
    print(f"\nsimilarity corpus at z >= {DEFAULT_CUT}: {found} of {copies} copies found, "
          f"{flagged} pairs flagged: precision {precision:.3f}, recall {recall:.3f}")
    assert recall >= RECALL_FLOOR, f"recall {recall:.3f}: a copy is below the default cut"
    assert precision >= PRECISION_FLOOR, f"precision {precision:.3f} below {PRECISION_FLOOR}"
