"""The report folder: every name the grader writes beside the submissions' reports, and how.

Side: trusted (class files). `grade --out OUT` gives each submission a folder OUT/<id>/; beside
them the grader writes the class files (`grader.results.class_files`), each LMS target's
gradebook and feedback zip (`grader.results.lms.registry`), the shard's record (`merge`), the
similarity report (`similarity --out OUT`, `grade --similarity`) and the semester's regrade diff
(`semester regrade OUT`). Each writer takes its file's name from here, so that RESERVED_IDS,
the names no submission id may take, holds every one of them: a student who uploads
`class.csv.zip` or a folder named `similarity.html` gets another id, and the file stays the
grader's.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from grader.common.atomic import TEMPORARY_SUFFIX, write_atomically
from grader.results.score_document import ScoreDocument, parse

__all__ = ["CLASS_CSV", "COURSE_TEMPLATES", "DASHBOARD", "GRADEBOOK_DOWNLOAD", "GRADEBOOK_SETTINGS",
           "REGRADE_DIFF", "SHARD_RECORD", "SIMILARITY_HTML", "SIMILARITY_IDS", "SIMILARITY_JSON",
           "OutputUnwritable", "class_files", "outputs", "read_reports", "reserved_ids",
           "write_file"]

CLASS_CSV, DASHBOARD = "class.csv", "dashboard.html"
GRADEBOOK_SETTINGS = "gradebook.json"
# The course's template overrides the folder was written with (`grader.results.course_look`).
COURSE_TEMPLATES = "course_templates.json"
# The gradebook the LMS exported, kept beside the reports so every rewrite of the class files
# (a regrade, `--resume`, `merge`) fills in the same file.
GRADEBOOK_DOWNLOAD = "gradebook_download.csv"
SHARD_RECORD = "shard.json"
SIMILARITY_HTML, SIMILARITY_JSON = "similarity.html", "similarity.json"
SIMILARITY_IDS = "similarity-ids.json"  # the pseudonyms' key (`similarity --hash-ids`)
REGRADE_DIFF = "regrade-diff.csv"  # `semester regrade`: what a regrade would change


# The LMS registry is read when a folder is written, not when a student's check starts.
@cache
def class_files() -> tuple[str, ...]:
    """The class files every grading rewrites from the reports: the class's own, then each
    LMS target's gradebook (written when the class came from that LMS)."""
    from grader.results.lms.registry import TARGETS  # class files: not a student's check

    return (CLASS_CSV, DASHBOARD, *(target.gradebook_file for target in TARGETS))


@cache
def outputs() -> tuple[str, ...]:
    """Every file the folder can hold beside the reports."""
    from grader.results.lms.registry import TARGETS  # class files: not a student's check

    targets = (name for target in TARGETS for name in target.class_files)
    return (*dict.fromkeys((*class_files(), *targets)), GRADEBOOK_SETTINGS, GRADEBOOK_DOWNLOAD,
            COURSE_TEMPLATES, SHARD_RECORD, SIMILARITY_HTML, SIMILARITY_JSON, SIMILARITY_IDS, REGRADE_DIFF)


@cache
def reserved_ids() -> frozenset[str]:
    """Every name the grader writes beside the report folders (a file and its temporary twins,
    see write_atomically and the feedback zips): no submission id may be one of them (a
    student can upload class.csv.zip)."""
    from grader.results.lms.feedback_return import PARTIAL  # class files: not a student's check

    return frozenset(name + tmp for name in outputs() for tmp in ("", TEMPORARY_SUFFIX, PARTIAL))


class OutputUnwritable(Exception):
    """The report folder cannot take a report (a full disk, read-only, gone): grading stops.

    `path` is the file being written, `kept` how many complete reports the folder holds;
    nothing half written is left behind (see write_reports), so --resume carries on.
    """

    def __init__(self, path: Path, error: OSError, kept: int = 0) -> None:
        super().__init__(f"{error.strerror or error} writing {path}: {kept} reports kept")
        self.path = path
        self.errno = error.errno or 0
        self.kept = kept


def write_file(path: Path, text: str) -> None:
    """Write one file of the report folder whole (write_atomically), or raise OutputUnwritable."""
    try:
        write_atomically(path, text)
    except OSError as exc:
        raise OutputUnwritable(path, exc) from exc


def read_reports(out_dir: Path) -> list[ScoreDocument]:
    """Every report in the folder (`<id>/scores.json`: a score document naming its own folder),
    as typed records, by submission id; any other file of that name is not a report."""
    docs = []
    for path in sorted(out_dir.glob("*/scores.json")):
        try:
            doc = parse(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):  # not JSON, or not a score document (DocumentError)
            continue
        if doc.submission.id == path.parent.name:
            docs.append(doc)
    return docs
