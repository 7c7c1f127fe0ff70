"""grader.similarity.ranking: pairs are judged against the class, not a fixed threshold."""

from __future__ import annotations

from itertools import combinations

import pytest

from grader.similarity.fingerprints import Fingerprint, Fingerprinted
from grader.similarity.ranking import COMMON_FLOOR, DEFAULT_CUT, MAD_FLOOR, NORMAL_MAD, rank_class


def student(name: str, hashes: range | list[int]) -> Fingerprinted:
    return Fingerprinted(name, tuple(Fingerprint(h, "value.py", "f", 1, 1) for h in hashes), {}, {})


def test_a_copy_in_a_class_of_strangers_stands_out_and_no_one_else_does() -> None:
    students = [student(f"s{i}", range(i * 100, i * 100 + 40)) for i in range(12)]
    students.append(student("copier", [*range(500, 530), *range(5000, 5010)]))  # s5's, mostly
    ranking = rank_class(students)
    above = [(p.first, p.second) for p in ranking.pairs if p.above(DEFAULT_CUT)]
    assert above == [("copier", "s5")]
    assert ranking.pair_count == 13 * 12 // 2


def test_a_lab_where_everyone_writes_alike_flags_no_one() -> None:
    # Every student shares 20 fingerprints with every other (fewer than the common cut holds).
    common = list(range(20))
    students = [student(f"s{i}", common[:10 + i % 5] + list(range(1000 * (i + 1), 1000 * (i + 1) + 20)))
                for i in range(8)]
    ranking = rank_class(students)
    assert len(ranking.pairs) == 8 * 7 // 2
    assert ranking.median > 0.1, "the class's usual pair shares code"
    assert min(p.score for p in ranking.pairs) > 0.1  # a fixed cut at 0.1 would list them all
    assert [p for p in ranking.pairs if p.above(DEFAULT_CUT)] == []


def test_code_more_than_half_the_class_holds_is_left_out_as_the_class_idiom() -> None:
    idiom = list(range(30))
    students = [student(f"s{i}", idiom + list(range(100 * (i + 1), 100 * (i + 1) + 10)))
                for i in range(2 * COMMON_FLOOR + 2)]
    ranking = rank_class(students)
    assert ranking.common_left_out == 30
    assert ranking.pairs == ()


def test_the_z_score_is_the_modified_z_score_with_the_mad_floor() -> None:
    students = [student("a", range(10)), student("b", range(10)), student("c", range(100, 110))]
    ranking = rank_class(students)
    pair = ranking.pairs[0]
    assert (pair.first, pair.second, pair.score) == ("a", "b", 1.0)
    # Pairs: 1.0, 0, 0: median 0, MAD 0, so the floor is the spread.
    assert pair.z == pytest.approx(round(NORMAL_MAD * 1.0 / MAD_FLOOR, 2))
    assert pair.percentile == 1.0
    assert ranking.unshared("c", "a").z == 0.0


def test_shares_say_how_much_of_each_students_own_code_the_other_has() -> None:
    ranking = rank_class([student("a", range(10)), student("b", range(5)),
                          *(student(f"x{i}", range(100 * (i + 1), 100 * (i + 1) + 10)) for i in range(3))])
    pair = next(p for p in ranking.pairs if (p.first, p.second) == ("a", "b"))
    assert pair.second_share == 1.0
    assert 0.3 < pair.first_share < 0.7


def test_every_pair_is_named_in_id_order() -> None:
    ranking = rank_class([student(n, range(10)) for n in ("zoe", "ana", "mia")])
    assert all(p.first < p.second for p in ranking.pairs)
    assert {(p.first, p.second) for p in ranking.pairs} == set(combinations(["ana", "mia", "zoe"], 2))
