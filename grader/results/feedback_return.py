"""Each student's feedback, zipped the way an LMS takes feedback files back in bulk.

Side: trusted (class files, written after grading an LMS download). The names follow what the
LMS's own import reads, so each file lands on its student's submission:

- Canvas, "Re-Upload Submissions" (canvas-lms app/models/assignment.rb
  `generate_comments_from_files`, `infer_comment_context_from_filename`): only the file's base
  name is read, split on `_`; its first two tokens made of digits only are the user id and the
  attachment id, and the attachment must be one of that user's current submission's files (a
  name ending in a `link...` token, or starting `._`, is ignored). Each feedback file is named
  `<name>[_LATE]_<user id>_<attachment id>_feedback.html`, with the user and one attachment of
  the student's download entry (tokens of the name made of digits only are dropped, so they
  cannot be read as the user id). An anonymous download (`anon_<id>`) carries no user id:
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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.intake.lms import CANVAS_FILE, ClassMember

FEEDBACK_ZIPS = {"canvas": "canvas_feedback.zip", "moodle": "moodle_feedback.zip"}
FEEDBACK_FILE = "feedback.html"  # the report's file each student gets back
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Returned:
    """A feedback zip written, and the students it could not carry (by submission id)."""

    path: Path
    count: int
    left_out: tuple[str, ...]


def canvas_name(member: ClassMember) -> str | None:
    """The name Canvas's re-upload reads as this student's submission, or None (no download file
    with an attachment id: an anonymous download, or a text entry only)."""
    for file in sorted(member.files):
        found = CANVAS_FILE.match(file)
        if found and found["user"].isdigit():
            words = [word for word in (found["name"] or "").split("_") if word and
                     not word.isdigit()]
            late = ["LATE"] if found["late"] else []
            return "_".join([*words, *late, found["user"], found["attachment"], FEEDBACK_FILE])
    return None


def moodle_name(member: ClassMember) -> str:
    """The path Moodle's feedback import reads as this participant's feedback file."""
    name = re.sub(r"\s+", " ", member.name.replace("_", " ")).strip() or "Participant"
    return f"{name}_{member.student_id}_assignsubmission_file/{FEEDBACK_FILE}"


def write_feedback_zip(kind: str, members: Sequence[ClassMember], out_dir: Path) -> Returned:
    """OUT/<kind>_feedback.zip: every graded student's feedback.html under the name the LMS's
    import reads as theirs; students without a report or a name the LMS can match are named."""
    path = out_dir / FEEDBACK_ZIPS[kind]
    left_out = []
    count = 0
    staging = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(staging, "w", zipfile.ZIP_DEFLATED) as bundle:
        for member in sorted(members, key=lambda m: m.submission_id):
            report = out_dir / member.submission_id / FEEDBACK_FILE
            name = canvas_name(member) if kind == "canvas" else moodle_name(member)
            if name is None or not report.is_file():
                left_out.append(member.submission_id)
                continue
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(info, report.read_bytes())
            count += 1
    staging.replace(path)
    return Returned(path, count, tuple(left_out))
