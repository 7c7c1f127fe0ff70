"""Running scenarios against the reference solution.

Side: trusted process (the reference solution is trusted code; student code never comes here).
"""

from __future__ import annotations

import json
from typing import Any

from grader.grading.child.scenario import Scenario
from grader.grading.sandbox.loader import load_exports
from grader.labs import Lab


class ReferenceUnavailable(RuntimeError):
    """The lab's reference solution is not present (for example in the student kit)."""


def load_reference_class(lab: Lab) -> Any:
    """Import the reference solution's class (or module) in this trusted process."""
    if not (lab.solution_dir / lab.files[0]).is_file():
        raise ReferenceUnavailable(f"no reference solution in {lab.solution_dir}")
    return load_exports(lab.solution_dir, lab.module, lab.class_name, lab.support_files)


def run_reference(value_class: Any, scen: Scenario, params: dict[str, Any]) -> Any:
    """Run a scenario in-process and return its result as the same plain data the child sends."""
    result = scen.load()(value_class, **params)
    return json.loads(json.dumps(result))
