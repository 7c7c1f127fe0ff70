"""Trusted time is charged to the submission it is spent on (issue 39): a check whose own work
on a reply runs past its submission's budget is cut off and reported for that submission, and
the classmates graded after it in the same shard keep their marks.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from grader.common.labs import get_lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan
from grader.grading.trusted_time import GRACE_S, TrustedOverrun, charged

LAB = get_lab("lab01_graph")


class FakeRunner:
    """A budget of `budget` seconds, nothing spent in a sandbox."""

    def __init__(self, budget: float) -> None:
        self.budget, self.used = budget, 0.0

    def spent(self) -> float:
        return self.used

    def budget_left(self) -> float:
        return self.budget - self.used

    def charge(self, seconds: float) -> None:
        self.used += seconds


def test_trusted_work_is_charged_and_cut_off_past_the_budget() -> None:
    runner = FakeRunner(0.5)
    started = time.monotonic()
    with pytest.raises(TrustedOverrun), charged(runner):
        while True:  # a verdict that never ends
            pass
    elapsed = time.monotonic() - started
    assert 0.5 + GRACE_S - 0.1 <= elapsed < 0.5 + GRACE_S + 2.0, elapsed
    assert runner.used >= 0.5 + GRACE_S - 0.1, runner.used


def test_a_quick_check_is_charged_its_own_time_only() -> None:
    runner = FakeRunner(60.0)
    with charged(runner):
        time.sleep(0.05)
    assert 0.04 <= runner.used < 1.0, runner.used


# A suite of one check whose trusted work grows with what the reply asks for: the stand-in for a
# verdict made slow by a reply (the schemas now keep the lab's verdicts linear, so no real
# reply can do it; this proves the clock behind them). The check id and pitfall are lab01's.
SUITE = '''
import time

import pytest

from grader.grading.child.scenario import scenario


@scenario
def asks_for_work(Value, x):
    return {"work": float(getattr(Value, "TRUSTED_WORK", 0.0))}


@pytest.mark.check(id="example-leaf-backward", pitfall="leaf-backward", weight=1)
def test_trusted_work(sandboxed):
    seconds = sandboxed(asks_for_work, x=1.0)["work"]
    end = time.monotonic() + seconds
    while time.monotonic() < end:  # trusted work as long as the reply says
        pass
'''


def test_a_slow_verdict_costs_its_classmates_nothing(tmp_path: Path) -> None:
    """The issue's shard: the slow-verdict submission first, three correct classmates after it,
    in one shard whose limit (30 s + 4 budgets of 4 s) is far below the slow one's demand."""
    suite = tmp_path / "suite" / "test_trusted_work.py"
    suite.parent.mkdir()
    suite.write_text(SUITE, encoding="utf-8")
    folders = []
    for name in ("slow", "carla", "dana", "eli"):
        folder = tmp_path / "class" / name
        shutil.copytree(LAB.solution_dir, folder)
        folders.append(folder)
    with (folders[0] / LAB.main_file).open("a", encoding="utf-8") as handle:
        handle.write("\nValue.TRUSTED_WORK = 1e6  # eleven days of the grader's time\n")
    plan = GradingPlan(LAB, (suite,), seed="trusted", lang="en", budget_s=4.0)
    started = time.monotonic()
    docs = grade_class(plan, folders, BatchOptions(out_dir=None, workers=1, keep_order=True,
                                                   shard_timeout_s=30.0), lambda *_: None)
    elapsed = time.monotonic() - started
    assert elapsed < 60, f"the class took {elapsed:.0f} s"
    slow, *classmates = docs
    assert slow["status"] == "graded", slow.get("reason")
    assert [c["status"] for c in slow["checks"]] == ["not-run"], slow["checks"]
    assert slow["checks"][0]["detail"]["kind"] == "over-budget", slow["checks"][0]
    for doc in classmates:
        assert doc["status"] == "graded", (doc["submission"]["id"], doc.get("reason"))
        assert doc["score"] == doc["max_score"] > 0, doc["checks"]


# A stall the clock cannot charge (in a fixture's setup, not in the check's call): the shard's
# limit comes, and only the submission being graded then may lose its report.
STALL_SUITE = '''
import time

import pytest

from grader.grading.child.scenario import scenario


@scenario
def asks_for_a_stall(Value, x):
    return {"stall": float(getattr(Value, "STALL", 0.0))}


@pytest.fixture
def stalled(sandboxed):
    time.sleep(sandboxed(asks_for_a_stall, x=1.0)["stall"])


@pytest.mark.check(id="example-leaf-backward", pitfall="leaf-backward", weight=1)
def test_after_a_stall(stalled):
    pass
'''


def test_a_shard_s_limit_turns_no_classmate_s_report_into_an_error(tmp_path: Path) -> None:
    suite = tmp_path / "suite" / "test_stall.py"
    suite.parent.mkdir()
    suite.write_text(STALL_SUITE, encoding="utf-8")
    folders = []
    for name in ("carla", "stall", "dana", "eli"):
        folder = tmp_path / "class" / name
        shutil.copytree(LAB.solution_dir, folder)
        folders.append(folder)
    with (folders[1] / LAB.main_file).open("a", encoding="utf-8") as handle:
        handle.write("\nValue.STALL = 1e6\n")
    plan = GradingPlan(LAB, (suite,), seed="trusted", lang="en", budget_s=4.0)
    docs = grade_class(plan, folders, BatchOptions(out_dir=None, workers=1, keep_order=True,
                                                   shard_timeout_s=10.0), lambda *_: None)
    by_id = {doc["submission"]["id"]: doc for doc in docs}
    assert by_id["stall"]["status"] == "grader-error", by_id["stall"]["status"]
    for name in ("carla", "dana", "eli"):
        doc = by_id[name]
        assert doc["status"] == "graded", (name, doc.get("reason"))
        assert doc["score"] == doc["max_score"] > 0, (name, doc["checks"])
