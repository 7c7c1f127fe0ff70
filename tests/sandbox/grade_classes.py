"""Grade several small classes one after another with `grade_class`, as a grader of some mode
would, timing each; dump the documents.

A test and bench helper script (see `modes.py`), run under a mode's command prefix:
`python grade_classes.py RESULT.json OUT_DIR LAB SEED WORKERS CLASSES.json` where CLASSES.json
is a list of {"name", "submissions": [paths]}; writes to RESULT.json, per class, the documents
grade_class returned (in order), its seconds, the peak resident memory of this process so far
and the exception that stopped it, if any. Shards are contiguous slices of a class (keep_order):
with WORKERS = 1 a class is one shard, its first submission graded first; with WORKERS = 2 a
class of two is graded at once, one submission per shard.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from grader.common.labs import get_lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.sandbox.jail import available_isolation
from grader.grading.shard import GradingPlan, suites_for


def main() -> None:
    """Grade each class and write the result file."""
    result_path, out_dir, lab_name, seed, workers, classes_path = sys.argv[1:]
    lab = get_lab(lab_name)
    plan = GradingPlan(lab, suites_for(lab, hidden=True), seed=seed, lang="en")
    classes = json.loads(Path(classes_path).read_text(encoding="utf-8"))
    results = []
    for number, entry in enumerate(classes):
        result: dict[str, object] = {"name": entry["name"], "docs": [], "error": None}
        started = time.monotonic()
        try:
            result["docs"] = grade_class(
                plan, [Path(p) for p in entry["submissions"]],
                BatchOptions(out_dir=Path(out_dir) / str(number), workers=int(workers),
                             keep_order=True), lambda *_: None)
        except Exception as exc:  # a class that stops must fail the test, not pass it
            result["error"] = f"{type(exc).__name__}: {exc}"
        result["seconds"] = time.monotonic() - started
        result["peak_rss_mib"] = max(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
        results.append(result)
    Path(result_path).write_text(json.dumps({"isolation": available_isolation().as_dict(),
                                             "classes": results}), encoding="utf-8")


if __name__ == "__main__":
    main()
