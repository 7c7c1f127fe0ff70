"""The LMS targets the grader knows, and the one way to reach each: by its `--lms` name.

Side: trusted (intake of an LMS download, class files). Adding an LMS is one module in this
folder (an `LmsTarget`, see `grader.results.lms.target`), its catalogue strings, and its line in
TARGETS; the command line's `--lms` choices (`grade`, `semester export`), the reading of its
download and the refusal of one handed in as loose files, the class files, the names no student
folder may take and the feedback zips all come from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.common.labs import Lab
from grader.intake import lms as intake
from grader.intake.lms import ClassMember
from grader.results.lms import canvas, moodle
from grader.results.lms.target import LmsTarget

__all__ = ["FOLDERS", "KINDS", "NAMES", "TARGETS", "class_files", "download_naming",
           "guess_class", "read_class", "target_named"]

TARGETS: tuple[LmsTarget, ...] = (canvas.TARGET, moodle.TARGET)
NAMES = tuple(target.name for target in TARGETS)  # the LMSs a gradebook is written for
FOLDERS = intake.FOLDERS  # one folder, zip or file per student, named by the instructor: no LMS
KINDS = (*NAMES, FOLDERS)  # what `grade --lms` reads


def target_named(name: str | None) -> LmsTarget | None:
    """The target whose --lms name this is, or None (folders, no LMS, an unknown name)."""
    return next((target for target in TARGETS if target.name == name), None)


def class_files() -> tuple[str, ...]:
    """Every file the targets write beside the report folders."""
    return tuple(name for target in TARGETS for name in target.class_files)


def read_class(kind: str, export: Path, scratch: Path) -> list[ClassMember]:
    """The class in `export` (a zip or its unpacked folder) as the LMS `kind` names it."""
    return intake.read_export(kind, export, scratch, TARGETS)


def guess_class(path: Path, lab: Lab) -> str | None:
    """What a folder looks like a class export of (a target's name, "folders"), or None."""
    return intake.guess_class(path, lab, TARGETS)


def download_naming(paths: Sequence[Path]) -> str | None:
    """The target whose download naming at least two of the given entries follow, or None."""
    return intake.download_naming(paths, TARGETS)
