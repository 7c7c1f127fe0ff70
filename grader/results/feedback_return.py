"""Each student's feedback, zipped the way an LMS takes feedback files back in bulk.

Side: trusted (class files, written from a folder's reports after grading an LMS download, a
`--resume` or a `merge`). The names follow what the LMS's own import reads, so each file lands
on its student's submission:

- Canvas, "Re-Upload Submissions" (canvas-lms app/models/assignment.rb
  `generate_comments_from_files`, `infer_comment_context_from_filename`): only the file's base
  name is read, split on `_`; its first two tokens made of digits only are the user id and the
  attachment id, and the attachment must be one of that user's current submission's files (a
  name ending in a `link...` token, or starting `._`, is ignored). Each feedback file is named
  `<name>[_LATE]_<user id>_<attachment id>_feedback.html`, with the user and the first
  attachment the report's source names (the download's file names; tokens of the name made of
  digits only are dropped, so they cannot be read as the user id). An anonymous download (`anon_<id>`) carries no user id:
  Canvas cannot match it, so its students are left out and named.
- Moodle, "Upload multiple feedback files in a zip" (mod/assign/feedback/file/importziplib.php
  `is_valid_filename_for_import`): a path part split on `_` into at most 5 pieces must read
  `<full name>_<participant id>_<plugin type>_<plugin name>[_<rest>]`, the participant id
  numeric and one of the assignment's; the rest of the path is the feedback file's name. Each
  file is `<Full name>_<participant id>_assignsubmission_file/feedback.html`, the folder the
  download gave (a full name's `_` becomes a space, as the download writes it; `.` and `~` do
  not start a file's name, which the import skips).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FEEDBACK_ZIPS = {"canvas": "canvas_feedback.zip", "moodle": "moodle_feedback.zip"}
FEEDBACK_FILE = "feedback.html"  # the report's file each student gets back
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Returned:
    """A feedback zip written, and the students it could not carry (by submission id)."""

    path: Path
    count: int
    left_out: tuple[str, ...]


def canvas_name(report: Mapping[str, Any]) -> str | None:
    """The name Canvas's re-upload reads as this student's submission, or None (no file of the
    download with an attachment id: an anonymous download, or a text entry only). The report's
    source names the download's files: the first `_<user id>_<digits>_` in it gives the
    attachment, as the download named it."""
    record = report["submission"]
    user = str(record.get("student_id", ""))
    found = re.search(rf"_{re.escape(user)}_(\d+)_", str(record.get("source", "")))
    if not user.isdigit() or found is None:
        return None
    words = [word for word in str(record.get("name", "")).split("_") if word and
             not word.isdigit()]
    late = ["LATE"] if record.get("late") else []
    return "_".join([*words, *late, user, found[1], FEEDBACK_FILE])


def moodle_name(report: Mapping[str, Any]) -> str | None:
    """The path Moodle's feedback import reads as this participant's feedback file."""
    record = report["submission"]
    participant = str(record.get("student_id", ""))
    if not participant.isdigit():
        return None
    name = re.sub(r"\s+", " ", str(record.get("name", "")).replace("_", " ")).strip()
    return f"{name or 'Participant'}_{participant}_assignsubmission_file/{FEEDBACK_FILE}"


def write_feedback_zip(kind: str, reports: Sequence[Mapping[str, Any]], out_dir: Path) -> Returned:
    """OUT/<kind>_feedback.zip: every reported student's feedback.html under the name the LMS's
    import reads as theirs; students without a name the LMS can match are named."""
    path = out_dir / FEEDBACK_ZIPS[kind]
    left_out = []
    count = 0
    staging = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(staging, "w", zipfile.ZIP_DEFLATED) as bundle:
        for report in sorted(reports, key=lambda r: str(r["submission"]["id"])):
            folder = out_dir / str(report["submission"]["id"])
            name = canvas_name(report) if kind == "canvas" else moodle_name(report)
            if name is None or not (folder / FEEDBACK_FILE).is_file():
                left_out.append(str(report["submission"]["id"]))
                continue
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(info, (folder / FEEDBACK_FILE).read_bytes())
            count += 1
    staging.replace(path)
    return Returned(path, count, tuple(left_out))
