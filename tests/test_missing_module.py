"""An engine importing a module outside the standard library: the feedback names the module
and says what to do (the grader provides the standard library only), never "run python
value.py", which works on the student's own machine (issue 32)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.results.messages import missing_module
from grader.results.score_document import Problem

ROOT = Path(__file__).resolve().parent.parent
# micrograd's engine, correct, with an unused `import numpy as np` on its first line
IMPORTS_NUMPY = ROOT / "tests" / "data" / "missing_module" / "imports-numpy"


def _problem(kind: str, type_: str, message: str) -> Problem:
    return Problem(kind=kind, file="value.py", line=None, message=message,  # type: ignore[arg-type]
                   params={"type": type_, "message": message}, output=None, text=message)


@pytest.mark.parametrize(("problem", "module"), [
    (_problem("import-error", "ModuleNotFoundError", "No module named 'numpy'"), "numpy"),
    (_problem("import-error", "ModuleNotFoundError", "No module named 'scipy.special'"), "scipy"),
    (_problem("import-error", "ModuleNotFoundError", "No module named 'engine'"), "engine"),
    # a module of the standard library the jail lacks is not the student's import to drop
    (_problem("import-error", "ModuleNotFoundError", "No module named 'json'"), None),
    (_problem("import-error", "SyntaxError", "invalid syntax"), None),
    (_problem("import-timeout", "ModuleNotFoundError", "No module named 'numpy'"), None),
])
def test_missing_module_is_read_from_the_import_error(problem: Problem, module: str | None) -> None:
    assert missing_module(problem) == module


@pytest.mark.parametrize(("lang", "says"), [
    ("en", ("`numpy` is not part of Python's standard library", "Remove `import numpy`")),
    ("es", ("`numpy` no forma parte de la biblioteca estándar de Python", "Quita `import numpy`")),
])
def test_feedback_names_the_module_and_what_to_do(lang: str, says: tuple[str, ...]) -> None:
    env = {key: value for key, value in os.environ.items() if key != "GRADER_SEED"}
    env.update(GRADER_LANG=lang, NO_COLOR="1", COLUMNS="400")
    completed = subprocess.run(
        [sys.executable, "-m", "grader", "check", "lab01_graph", "--path", str(IMPORTS_NUMPY)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    text = " ".join(completed.stdout.split())  # the terminal wraps lines
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "No module named 'numpy'" in text, text[:2000]
    for sentence in says:
        assert sentence in text, text[:2000]
    assert "python value.py" not in text, text[:2000]
