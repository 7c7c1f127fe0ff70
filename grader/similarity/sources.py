"""What each student handed in, read as grading reads it: the lab's files of a folder, a zip, a
bare file or a notebook.

Side: trusted process (intake); files are read, never run. The one reader is
`grader.intake.collect.read_submission`, with a notebook exported as a `.py` cleaned as `prepare`
cleans it (`clean_export`); a submission it cannot read is kept aside with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grader.common.labs import Lab
from grader.intake.collect import (
    Submission,
    Ungradable,
    clean_export,
    read_submission,
    source_label,
)


@dataclass(frozen=True)
class HandedIn:
    """One student's lab files as text."""

    id: str
    source: str
    files: Mapping[str, str]


@dataclass(frozen=True)
class Unreadable:
    """A submission grading could not read either, and why (a catalogue detail)."""

    id: str
    source: str
    reason: Mapping[str, Any]


def read_one(submission: Submission, lab: Lab) -> HandedIn | Unreadable:
    """The lab's files of one submission, or why they cannot be read."""
    label = source_label(submission)
    try:
        found = read_submission(submission.source, lab)
    except Ungradable as exc:
        return Unreadable(submission.id, label, exc.detail)
    texts = {name: clean_export(raw).decode("utf-8", errors="replace")
             for name, raw in sorted(found.files.items()) if name.endswith(".py")}
    return HandedIn(submission.id, label, texts)
