"""Shards are dealt, not sliced: the costliest submissions first, each to the shard with the
least expected time, so a class whose slow submissions sit together keeps both workers busy."""

from __future__ import annotations

import heapq
import json
from pathlib import Path

import pytest

from grader.grading.batch import MAX_SHARD, _expected_costs, deal, shard_count
from grader.intake.collect import PreparedSubmission


def makespan(shards: list[list[int]], costs: list[float], workers: int) -> float:
    """When the last worker finishes, the pool taking the shards in the order given."""
    free = [0.0] * workers
    for shard in shards:
        start = heapq.heappop(free)
        heapq.heappush(free, start + sum(costs[i] for i in shard))
    return max(free)


@pytest.mark.parametrize("count", [1, 2, 3, 7, 24, 25, 26, 49, 50, 51, 84, 300])
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_every_submission_is_in_exactly_one_shard_of_at_most_max_shard(count, workers):
    shards = deal([float(i % 7 + 1) for i in range(count)], workers)
    assert sorted(i for shard in shards for i in shard) == list(range(count))
    assert all(0 < len(shard) <= MAX_SHARD for shard in shards), [len(s) for s in shards]
    assert len(shards) == shard_count(count, workers)
    if count >= workers:
        assert len(shards) % workers == 0, "every worker gets as many shards"
    assert all(shard == sorted(shard) for shard in shards), "a shard keeps the class's order"


def test_slow_submissions_graded_together_are_spread_over_the_workers():
    """The lab03 case: ten slow submissions side by side in a class of forty."""
    costs = [10.0] * 10 + [1.0] * 30
    dealt, sliced = deal(costs, 2), deal(costs, 2, keep_order=True)
    lower_bound = max(sum(costs) / 2, max(costs))
    assert makespan(dealt, costs, 2) <= 1.05 * lower_bound, makespan(dealt, costs, 2)
    assert makespan(sliced, costs, 2) >= 1.5 * lower_bound, "slices were the problem"


def test_the_costliest_shard_comes_first():
    costs = [1.0, 1.0, 9.0, 1.0, 5.0, 1.0, 1.0, 1.0] * 10
    totals = [sum(costs[i] for i in shard) for shard in deal(costs, 2)]
    assert totals == sorted(totals, reverse=True)


def test_a_given_shard_size_is_kept():
    shards = deal([1.0] * 23, 2, size=5)
    assert len(shards) == 5 and all(len(shard) <= 5 for shard in shards), shards


def test_keep_order_cuts_contiguous_slices_as_before():
    """The red-team batch grades in the class's order: 84 over two workers is 25+25+25+9."""
    shards = deal([1.0] * 84, 2, keep_order=True)
    assert [len(shard) for shard in shards] == [25, 25, 25, 9]
    assert [i for shard in shards for i in shard] == list(range(84))


def test_no_submission_no_shard():
    assert deal([], 2) == [] and deal([], 2, keep_order=True) == []


def _prepared(root: Path, name: str, size: int) -> PreparedSubmission:
    workdir = root / "scratch" / name
    workdir.mkdir(parents=True)
    (workdir / "value.py").write_text("#" * size, encoding="utf-8")
    return PreparedSubmission(name, name, "sha256:x", workdir)


def _report(out: Path, name: str, duration: float) -> None:
    (out / name).mkdir(parents=True)
    doc = json.loads((Path(__file__).parent / "data" / "score_mixed.json").read_text("utf-8"))
    (out / name / "scores.json").write_text(json.dumps({**doc, "duration_s": duration}))


def test_expected_cost_is_the_last_runs_time_with_resume_else_the_size(tmp_path: Path):
    out = tmp_path / "out"
    subs = [_prepared(tmp_path, name, size) for name, size in
            (("small-slow", 100), ("big", 5000), ("mid", 1000), ("new", 100))]
    for name, seconds in (("small-slow", 30.0), ("big", 2.0), ("mid", 1.0)):
        _report(out, name, seconds)
    by_size = _expected_costs(subs, out, resume=False)
    assert by_size[1] > by_size[2] > by_size[0] == by_size[3], by_size
    resumed = _expected_costs(subs, out, resume=True)
    assert resumed[:3] == [30.0, 2.0, 1.0], resumed
    # no last time: its size at the median seconds per byte of the others (1 s per 1000 B)
    assert resumed[3] == pytest.approx(0.1), resumed
