"""Each student's feedback, zipped the way an LMS takes feedback files back in bulk.

Side: trusted (class files, written from a folder's reports after grading an LMS download, a
`--resume` or a `merge`). The names follow what the LMS's own import reads, so each file lands
on its student's submission: each LMS target says them (`LmsTarget.feedback_name`; Canvas's
"Re-Upload Submissions" in `grader.results.lms.canvas`, Moodle's "Upload multiple feedback files
in a zip" in `grader.results.lms.moodle`).
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.results.lms.target import LmsTarget
from grader.results.score_document import Document, as_document

__all__ = ["FEEDBACK_FILE", "PARTIAL", "Returned", "write_feedback_zip"]

FEEDBACK_FILE = "feedback.html"  # the report's file each student gets back
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
PARTIAL = ".partial"  # the zip while it is written, renamed into place when whole


@dataclass(frozen=True)
class Returned:
    """A feedback zip written, and the students it could not carry (by submission id)."""

    path: Path
    count: int
    left_out: tuple[str, ...]




def write_feedback_zip(target: LmsTarget, reports: Sequence[Document],
                       out_dir: Path) -> Returned:
    """OUT/<the target's feedback zip>: every reported student's feedback.html under the name
    the LMS's import reads as theirs; students without a name the LMS can match are named."""
    path = out_dir / target.feedback_zip
    left_out = []
    count = 0
    staging = path.with_name(path.name + PARTIAL)
    with zipfile.ZipFile(staging, "w", zipfile.ZIP_DEFLATED) as bundle:
        for report in sorted((as_document(r) for r in reports), key=lambda r: r.submission.id):
            folder = out_dir / report.submission.id
            name = target.feedback_name(report)
            if name is None or not (folder / FEEDBACK_FILE).is_file():
                left_out.append(report.submission.id)
                continue
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(info, (folder / FEEDBACK_FILE).read_bytes())
            count += 1
    staging.replace(path)
    return Returned(path, count, tuple(left_out))
