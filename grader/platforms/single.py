"""Grading one submission inside a platform's container (Gradescope, PrairieLearn): one call.

Trusted side. The platforms run one submission per container, so they need the grading path
without the class around it: prepare, run the suites, and a document whatever happens (an
ungradable submission and a failing grader are documents too, never an exception).
"""

from __future__ import annotations

import tempfile
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader.labs import Lab
from grader.results.build import unscored_document
from grader.runner import ShardSpec, run_shard, suites_for, ungradable
from grader.submission import Submission, Ungradable, prepare

SUBMISSION_TIMEOUT_S = 540.0  # under Gradescope's default 10-minute limit


def grade_one(lab: Lab, source: Path, submission_id: str, lang: str, seed: str,
              extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The score document of the submission at `source` (hidden and public checks)."""
    spec = ShardSpec(lab, suites_for(lab, hidden=True), seed, lang)
    try:
        with tempfile.TemporaryDirectory(prefix="minigrad-one-") as scratch_name:
            scratch = Path(scratch_name)
            scratch.chmod(0o711)
            try:
                prepared = prepare(Submission(submission_id, source), lab, scratch)
            except Ungradable as exc:
                doc = ungradable(spec, submission_id, str(source), exc.detail)
            else:
                workdir = scratch / "run"
                workdir.mkdir()
                doc = run_shard(spec, [prepared], workdir, SUBMISSION_TIMEOUT_S)[0]
    except Exception as exc:  # the grader's own failure still gives the student a document
        reference = f"{type(exc).__name__}: {exc}"[:300]
        traceback.print_exc()
        record = {"id": submission_id, "source": str(source), "digest": ""}
        doc = unscored_document(lab.name, record, "grader-error",
                                {"kind": "grader-error", "params": {"reference": reference}}, lang)
    if extra:
        doc["submission"].update(extra)
    return doc
