"""The same bug, the same score, whatever the seed: every fixture graded under 20 seeds.

The random-graph checks draw their graphs from the course seed, the submission's id and its
content, so grading one fixture under 20 ids is grading it under 20 seeds. To keep this
affordable only the random-graph checks run (`-k random`); the checks they defer their blame
to are not run, so here a known bug must fail the random-graph check itself under every
seed, or pass it under every seed, and a correct engine must always pass.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import pytest

from grader.batch import BatchOptions, grade_class
from grader.labs import LABS
from grader.shard import GradingPlan, suites_for

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEEDS = 20


def lab_fixtures(lab: str) -> list[Path]:
    """The lab's fixture folders."""
    return sorted(path.parent for path in (FIXTURES / lab).glob("*/expected.toml"))


@pytest.mark.parametrize("lab", sorted(LABS))
def test_random_graph_scores_do_not_depend_on_the_seed(lab: str, tmp_path: Path) -> None:
    fixtures = lab_fixtures(lab)
    # In-process: these are the project's own fixtures, and the sandbox would only add a
    # process start per submission to a test that grades a thousand of them.
    plan = GradingPlan(LABS[lab], suites_for(LABS[lab], hidden=True), "seed-stability", "en",
                       in_process=True, keyword="random")
    options = BatchOptions(out_dir=None, workers=max(2, os.cpu_count() or 1),
                           shard_timeout_s=600)
    docs = grade_class(plan, [path for path in fixtures for _ in range(SEEDS)], options,
                       lambda *progress: None)
    scores: dict[str, set[float]] = defaultdict(set)
    for index, doc in enumerate(docs):
        assert doc["status"] == "graded", (doc["submission"]["id"], doc["reason"])
        assert doc["checks"], f"{lab}: no random-graph check ran"
        scores[fixtures[index // SEEDS].name].add(doc["score"])
    varying = {name: sorted(values) for name, values in scores.items() if len(values) > 1}
    assert varying == {}, f"{lab}: scores that depend on the seed: {varying}"
    for path in fixtures:
        if path.name.startswith("correct-"):
            assert scores[path.name] == {docs[0]["max_score"]}, (path.name, scores[path.name])
