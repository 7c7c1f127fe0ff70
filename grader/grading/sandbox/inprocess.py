"""Debug mode: run scenarios in this very process so `breakpoint()` in student code works.

Side: trusted process, but it gives up the boundary: used only by `check --debug`.

Never used for grading: it gives up every protection of the sandbox. Only `grader check
--debug` uses it, on the student's own machine and code.
"""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import Any

from grader.grading.child.scenario import Scenario
from grader.grading.sandbox.jail import IN_PROCESS
from grader.grading.sandbox.loader import load_exports
from grader.grading.sandbox.sandbox import Outcome, checked_reply


class InProcessRunner:
    """Same interface as Sandbox, without the process boundary."""

    isolation = IN_PROCESS

    def __init__(self, workdir: Path, module: str, class_name: str | None,
                 files: tuple[str, ...]) -> None:
        self.files = files
        self._class: Any = None
        self._import_error: Outcome | None = None
        try:
            self._class = load_exports(Path(workdir), module, class_name, files)
        except Exception as exc:  # the student's module may raise anything at import
            self._import_error = Outcome("import-error", detail=self._describe(exc))

    def _describe(self, exc: BaseException) -> dict[str, Any]:
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if Path(f.filename).name in self.files]
        where = [{"file": Path(f.filename).name, "line": f.lineno or 0, "function": f.name}
                 for f in frames[-3:]]
        if isinstance(exc, SyntaxError) and not where:
            where = [{"file": Path(exc.filename or "").name, "line": exc.lineno or 0}]
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)  # where says where
        return {"type": type(exc).__name__, "message": message[:500], "where": where}

    def load_problem(self) -> Outcome | None:
        """The import error, if the submission could not be imported; None otherwise."""
        return self._import_error

    def run(self, scen: Scenario, params: dict[str, Any], *, timeout_s: float | None = None,
            allow_nonfinite: bool = False) -> Outcome:
        """Run the scenario directly; no timeout, no limits."""
        if self._import_error is not None:
            return self._import_error
        try:
            value = scen.load()(self._class, **params)
            outcome = Outcome("ok", value=json.loads(json.dumps(value, allow_nan=allow_nonfinite)))
            return checked_reply(outcome, scen, params)  # the verdicts read the same shapes
        except Exception as exc:  # report whatever the student's code raised
            if type(exc).__name__ == "WrongType":
                detail = {key: getattr(exc, key) for key in
                          ("quantity", "actual_type", "expected_type")}
                return Outcome("wrong-type", detail=detail)
            return Outcome("exception", detail=self._describe(exc))

    def close(self) -> None:
        """Nothing to release."""
