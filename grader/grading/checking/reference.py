"""Running scenarios against the reference solution.

Side: trusted process (the reference solution is trusted code; student code never comes here).
"""

from __future__ import annotations

import json
from typing import Any

from grader.common.labs import Lab
from grader.grading.child.scenario import Scenario
from grader.grading.sandbox.loader import load_exports


class ReferenceUnavailable(RuntimeError):
    """The lab's reference solution is not present (for example in the student kit)."""


def load_reference_class(lab: Lab) -> Any:
    """Import the reference solution's class (or module) in this trusted process."""
    if not (lab.solution_dir / lab.files[0]).is_file():
        raise ReferenceUnavailable(f"no reference solution in {lab.solution_dir}")
    return load_exports(lab.solution_dir, lab.module, lab.class_name, lab.support_files)


def run_reference(value_class: Any, scen: Scenario, params: dict[str, Any]) -> Any:
    """Run a scenario in-process and return its result as the same plain data the child sends.
    The parameters go in as a copy, as the child gets them: code that changes a list it is
    given (a `nouts.pop(0)`) cannot reach the caller's constants."""
    result = scen.load()(value_class, **json.loads(json.dumps(params)))
    return json.loads(json.dumps(result))


class ReferenceRuns:
    """The reference's result of each scenario, computed once per input and kept for the
    session: every submission of a shard is compared with the same fixed inputs, and a
    scenario is a pure function of its parameters (random ones are seeded by a parameter)."""

    def __init__(self, value_class: Any) -> None:
        self.value_class = value_class
        self._results: dict[tuple[str, str], str] = {}  # (source, parameters) -> result as JSON

    def run(self, scen: Scenario, params: dict[str, Any]) -> Any:
        """run_reference's result, a fresh copy each time (a check may change what it gets)."""
        key = (scen.source, json.dumps(params, sort_keys=True))
        if key not in self._results:
            self._results[key] = json.dumps(scen.load()(self.value_class, **params))
        return json.loads(self._results[key])
