"""The course's look a report folder was written with, remembered beside its reports.

Side: trusted (class files). `grade --config` renders through a course's folder of template
overrides (`grader.grading.course_config.course_templates`, `grader.results.render.environment`).
The report folder remembers that folder (OUT/course_templates.json), as it remembers its
gradebook settings, so that every later writing of the same folder renders through it too: the
reports written again with their semester notes (`semester record`, `grade --ledger`), the
reports of a `--resume`, the class files (the dashboard, the gradebooks' comments) and `merge`.
A folder the course moved away (or deleted) is not used: the grader's templates are.
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.results.report_folder import COURSE_TEMPLATES, write_file

__all__ = ["remember_templates", "remembered_templates"]


def remember_templates(out_dir: Path, templates: Path | None) -> Path | None:
    """The templates to write the folder with: `templates` (remembered for its later writers),
    else the ones it was written with before, else None (the grader's)."""
    if templates is None:
        return remembered_templates(out_dir)
    record = json.dumps({"templates": str(templates.resolve())}, indent=2) + "\n"
    path = out_dir / COURSE_TEMPLATES
    if not path.is_file() or path.read_text(encoding="utf-8") != record:
        write_file(path, record)
    return templates


def remembered_templates(out_dir: Path) -> Path | None:
    """The course templates the folder was written with, while that folder is there; None else."""
    try:
        saved = json.loads((out_dir / COURSE_TEMPLATES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    folder = saved.get("templates") if isinstance(saved, dict) else None
    return Path(folder) if isinstance(folder, str) and Path(folder).is_dir() else None
