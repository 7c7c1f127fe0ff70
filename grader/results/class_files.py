"""The class files: class.csv, the dashboard and each LMS's gradebook, from every report in a folder.

Side: trusted (class files). Written after every grading (`grade`, `grade --resume`, an
interrupted `grade`, `merge`) from the reports on disk, so each run leaves them whole for the
class the folder holds. A gradebook is written for each LMS target whose students the folder
holds (`grader.results.lms.registry`): the gradebook the LMS exported, filled in, else a fresh
one when the points (and column) were given. The names are the report folder's
(`grader.results.report_folder`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from grader.results import gradebook
from grader.results.course_look import remember_templates
from grader.results.lms import fill_in
from grader.results.lms.registry import TARGETS
from grader.results.lms.sheet import read_sheet
from grader.results.lms.target import LmsTarget
from grader.results.render import render_dashboard
from grader.results.report_folder import (
    CLASS_CSV,
    DASHBOARD,
    GRADEBOOK_DOWNLOAD,
    GRADEBOOK_SETTINGS,
    read_reports,
)
from grader.results.report_folder import write_file as _write_atomically
from grader.results.score_document import Document, as_document

__all__ = ["GradebookOptions", "file_digest", "gradebook_settings", "write_class_files"]


class GradebookOptions(Protocol):
    """The gradebook options of a grading (`grader.grading.batch.BatchOptions` has them)."""

    @property
    def points(self) -> float | None: ...  # gradebook grades scaled to this many points
    @property
    def canvas_column(self) -> str | None: ...  # Canvas import column, "Title (assignment id)"
    @property
    def gradebook(self) -> Path | None: ...  # the gradebook the LMS exported, to fill in
    @property
    def templates(self) -> Path | None: ...  # a course's template overrides


def file_digest(raw: bytes) -> str:
    """A content digest, as the records write it."""
    return "sha256:" + hashlib.sha256(raw).hexdigest()[:16]


def gradebook_settings(out_dir: Path, options: GradebookOptions | None) -> dict[str, Any]:
    """The gradebook settings given now, else the ones the folder was graded with before."""
    path = out_dir / GRADEBOOK_SETTINGS
    given: dict[str, Any] = {"points": None, "canvas_column": None, "gradebook": None}
    if options is not None:
        given.update(points=options.points, canvas_column=options.canvas_column)
    if options is not None and options.gradebook is not None:
        raw = options.gradebook.read_bytes()
        _write_atomically(out_dir / GRADEBOOK_DOWNLOAD, raw.decode("utf-8"))
        given["gradebook"] = file_digest(raw)
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    settings = {key: given[key] if given[key] is not None else saved.get(key) for key in given}
    if any(value is not None for value in settings.values()):
        _write_atomically(path, json.dumps(settings, indent=2) + "\n")
    return settings


def _lms_file(out_dir: Path, docs: Sequence[Document], target: LmsTarget,
              settings: dict[str, Any], lang: str, templates: Path | None) -> str | None:
    """The gradebook file of one LMS: the download filled in, else a fresh one, else None
    (no points or column were given: `grade` refuses that before grading)."""
    download = out_dir / GRADEBOOK_DOWNLOAD
    if settings["gradebook"] and download.is_file():
        raw = download.read_bytes()
        if fill_in.kind_of(read_sheet(raw, download.name)) == target.name:
            return fill_in.fill(raw, download.name, docs, as_document(docs[0]).lab, settings["points"],
                                settings["canvas_column"], templates).text
    if settings["points"] is None:
        return None
    return target.fresh_gradebook(docs, settings, lang,  # Moodle's in the site's language: --lang
                                  templates)


def write_class_files(out_dir: Path, lang: str,
                      options: GradebookOptions | None = None) -> list[Path]:
    """class.csv, the dashboard and the gradebook files, from every report in the folder, through
    the course's templates given now or remembered by the folder (`grader.results.course_look`)."""
    docs = read_reports(out_dir)
    settings = gradebook_settings(out_dir, options)
    templates = remember_templates(out_dir, options.templates if options else None)
    written = [out_dir / CLASS_CSV, out_dir / DASHBOARD]
    _write_atomically(written[0], gradebook.class_csv(docs))
    _write_atomically(written[1], render_dashboard(docs, lang, templates))
    for target in TARGETS:
        if any(as_document(doc).submission.lms == target.name for doc in docs):
            text = _lms_file(out_dir, docs, target, settings, lang, templates)
            if text is not None:
                written.append(out_dir / target.gradebook_file)
                _write_atomically(written[-1], text)
    return written
