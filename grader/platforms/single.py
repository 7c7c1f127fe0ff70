"""Grading one submission inside a platform's container (Gradescope, PrairieLearn): one call.

Side: trusted process. The platforms run one submission per container, so they need the one
grading path without the class around it and without report folders: a document whatever
happens (an ungradable submission and a failing grader are documents too, never an exception).
The command each platform's entry script runs, and how it leaves its files, are here too.
"""

from __future__ import annotations

import argparse
import os
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.common.atomic import write_atomically
from grader.common.labs import Lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.sandbox.jail import available_isolation
from grader.grading.shard import GradingPlan, suites_for
from grader.intake.collect import Submission
from grader.results.build import grader_error_document

SUBMISSION_TIMEOUT_S = 540.0  # under Gradescope's default 10-minute limit


def grade_one(lab: Lab, source: Path, submission_id: str, lang: str, seed: str,
              meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The score document of the submission at `source` (hidden and public checks)."""
    submission = Submission(submission_id, source, dict(meta or {}))
    try:
        # pytest in this process: the container grades this one submission, then exits
        plan = GradingPlan(lab, suites_for(lab, hidden=True), seed, lang, here=True)
        options = BatchOptions(out_dir=None, workers=1, shard_timeout_s=SUBMISSION_TIMEOUT_S)
        [doc] = grade_class(plan, [submission], options, progress=lambda *_: None)
        return doc
    except Exception as exc:  # the grader's own failure still gives the student a document
        traceback.print_exc()
        record = {**submission.meta, "id": submission_id, "source": str(source), "digest": ""}
        reference = {"kind": "reference-exception",
                     "params": {"type": type(exc).__name__, "message": str(exc)[:300]}}
        return grader_error_document(lab.name, record, reference, lang,
                                     available_isolation().as_dict())


def write_results(folder: Path, files: Mapping[str, str]) -> None:
    """Write the files into `folder`, each atomically and in the order given: the platform takes
    the last one (its results.json) for the sign that the others are there."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        write_atomically(folder / name, text)


def run_in_container(argv: Sequence[str] | None, prog: str, root_variable: str,
                     default_root: Path, grade: Callable[[Path, Path], str]) -> int:
    """The command a platform's entry script runs: `prog --root ROOT --config FILE` (ROOT from
    `root_variable` when set, else `default_root`); `grade(root, config)` grades and returns the
    line printed for the platform's log."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--root", default=os.environ.get(root_variable, str(default_root)))
    parser.add_argument("--config", required=True)
    args = parser.parse_args(argv)
    print(grade(Path(args.root), Path(args.config)))
    return 0
