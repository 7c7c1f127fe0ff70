"""The lines a class's grading ends with: who came in late, and what goes back to the LMS.

Side: trusted (class files). After `grade`, the instructor is told which files in OUT go back to
the LMS and where: the filled gradebook (each LMS target's, `grader.results.lms.registry`) and
the students' feedback zipped as the LMS takes it back (grader.results.lms.feedback_return), and which
submissions the LMS marked late (the penalty, if any, is the course's to apply). Everything is
read from the folder's reports, so `grade`, `grade --resume` and `merge` end alike.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from grader.results.console import say
from grader.results.lms.feedback_return import write_feedback_zip
from grader.results.lms.registry import target_named
from grader.results.score_document import Document, as_document

__all__ = ["late_ids", "say_what_goes_back"]


def late_ids(docs: Sequence[Document]) -> list[str]:
    """The submissions the LMS marked late, by id."""
    return [typed.submission.id for typed in map(as_document, docs) if typed.submission.late]


def say_what_goes_back(out_dir: Path, docs: Sequence[Document], lang: str) -> None:
    """Print the late line, then (for a folder of one LMS target's students) the gradebook to
    import and the feedback zip to upload, writing that zip."""
    late = late_ids(docs)
    if late:
        say("cli.return.late", lang, stream=sys.stdout, count=str(len(late)),
            students=", ".join(late))
    kinds = {as_document(doc).submission.lms for doc in docs}
    target = target_named(kinds.pop()) if len(kinds) == 1 else None
    if target is None:
        return
    gradebook = out_dir / target.gradebook_file
    if gradebook.is_file():
        say(target.gradebook_message, lang, stream=sys.stdout, path=str(gradebook))
    returned = write_feedback_zip(target, docs, out_dir)
    say(target.feedback_message, lang, stream=sys.stdout, path=str(returned.path),
        count=str(returned.count))
    if returned.left_out:
        say("cli.return.feedback_left_out", lang, count=str(len(returned.left_out)),
            students=", ".join(returned.left_out))
