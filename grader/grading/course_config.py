"""A course file (`--config course.toml`): instructors' weights per check or per pitfall.

```toml
[weights]            # a check's weight, by check id (any lab's)
course-diamond-example = 5

[pitfall_weights]    # every check of the pitfall: its weight multiplied by this factor
grad-overwrite = 2
```

Every id is validated against the checks the labs declare (a typo is an error naming it, not
a silently ignored line), every number must be positive, and the resolved weights are
recorded in each score document.

A `templates/` folder beside the course file overrides the grader's templates of the same names
(the feedback, a check's block, the dashboard: any file of the grader's `templates/`); a name it
lacks falls back to the grader's. Its files are checked when the file is read: one that
overrides nothing (a misspelt name) or does not compile is an error naming it. Side: trusted
process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.common.labs import LABS, TEMPLATE_DIR, Lab
from grader.common.toml_file import read_toml
from grader.grading.checking.declared import declared_checks
from grader.results.render import course_template_problems

SECTIONS = ("weights", "pitfall_weights")
# The folder, beside the course file, of the course's template overrides.
TEMPLATES_FOLDER = "templates"


class ConfigError(ValueError):
    """A course file that cannot be used; the message is one line naming the file and key."""


@dataclass(frozen=True)
class CourseConfig:
    """The validated contents of a course file."""

    source: str
    weights: dict[str, float] = field(default_factory=dict)
    pitfall_weights: dict[str, float] = field(default_factory=dict)
    templates: Path | None = None  # the course's template overrides (course_templates)

    def resolved(self, lab: Lab) -> dict[str, float]:
        """The weight of every check of `lab` that the file changes (check ids win)."""
        result = {}
        for check in declared_checks(lab):
            weight = check.weight * self.pitfall_weights.get(check.pitfall, 1.0)
            weight = self.weights.get(check.id, weight)
            if weight != check.weight:
                result[check.id] = weight
        return result

    def record(self, lab: Lab) -> dict[str, Any]:
        """What the score document keeps: the file, and the weights it changed for this lab."""
        return {"source": self.source, "weights": self.resolved(lab),
                "pitfall_weights": dict(self.pitfall_weights)}


def _numbers(path: Path, section: str, table: Any, known: set[str], what: str) -> dict[str, float]:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{section}] must be a table of {what} ids and numbers")
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"{path}: [{section}] {key!r} is not a {what} id of any lab "
                              f"(known: {', '.join(sorted(known))})")
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value) or value <= 0):
            raise ConfigError(f"{path}: [{section}] {key} = {value!r} must be a positive number")
    return {key: float(value) for key, value in table.items()}


def course_templates(path: Path) -> Path | None:
    """The course's folder of template overrides beside its course file, checked; None when it
    has none (or the folder is the grader's own: a course file kept in this repository)."""
    folder = (path.parent / TEMPLATES_FOLDER).resolve()
    if not folder.is_dir() or folder == TEMPLATE_DIR.resolve():
        return None
    problems = course_template_problems(folder)
    if problems:
        raise ConfigError(problems[0])
    return folder


def load_course_config(path: Path) -> CourseConfig:
    """Read and validate a course file; ConfigError names what is wrong and where."""
    data = read_toml(path, ConfigError)
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ConfigError(f"{path}: unknown section(s) {unknown}; allowed: {list(SECTIONS)}")
    checks = [check for lab in LABS.values() for check in declared_checks(lab)]
    return CourseConfig(
        str(path),
        _numbers(path, "weights", data.get("weights", {}), {c.id for c in checks}, "check"),
        _numbers(path, "pitfall_weights", data.get("pitfall_weights", {}),
                 {c.pitfall for c in checks}, "pitfall"),
        course_templates(path))
