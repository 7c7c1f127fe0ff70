"""Grade a class with `grade_class`, as a grader of some mode would, and dump the documents.

A test helper script (see `modes.py`), run under a mode's command prefix:
`python grade_batch.py RESULT.json OUT_DIR LAB SEED WORKERS SUBMISSION...` writes to RESULT.json
the documents grade_class returned (in order), how long it took, and the exception that
stopped it, if any. Its scratch folder is TMPDIR's. The shards are contiguous slices of the
class (keep_order), as the red-team corpus is ordered for.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from grader.common.labs import get_lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.sandbox.jail import available_isolation
from grader.grading.shard import GradingPlan, suites_for


def main() -> None:
    """Grade and write the result file."""
    result_path, out_dir, lab_name, seed, workers, *paths = sys.argv[1:]
    lab = get_lab(lab_name)
    plan = GradingPlan(lab, suites_for(lab, hidden=True), seed=seed, lang="en")
    result: dict[str, object] = {"docs": [], "error": None,
                                 "isolation": available_isolation().as_dict()}
    started = time.monotonic()
    try:
        result["docs"] = grade_class(plan, [Path(p) for p in paths],
                                     BatchOptions(out_dir=Path(out_dir), workers=int(workers),
                                                  keep_order=True),
                                     lambda *_: None)
    except Exception as exc:  # an attack that stops the batch must fail the test, not pass it
        result["error"] = f"{type(exc).__name__}: {exc}"
    result["seconds"] = time.monotonic() - started
    Path(result_path).write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main()
