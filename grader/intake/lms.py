"""Reading a class as an LMS hands it over: what every LMS's "download all submissions" reader
shares, and one folder (zip, `.py` or notebook) per student.

Trusted side (intake). Each LMS's naming (how its download names each student's files) is its
target's (`DownloadNaming`, which `grader.results.lms.target.LmsTarget` extends: one module per
LMS in `grader/results/lms/`); the registry (`grader.results.lms.registry`) hands the targets in,
so this module names no LMS. Here: unpacking the download by the archive rules, its top entries
(through a lone wrapping folder), staging a student's several files into one folder, ids that are
safe and unique, and recognising a class handed in where one submission was expected.

Each student becomes one `ClassMember` whose `source` is graded as any submission is: a single
file or zip as it is, several files staged into one folder under their original names, where the
usual rules decide which file is the lab's (`grader.platforms.candidates`).
"""

from __future__ import annotations

import re
import shutil
import unicodedata
import zipfile
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.common.keyed_error import KeyedError
from grader.common.labs import Lab
from grader.intake import archive

__all__ = ["FOLDERS", "ClassMember", "DownloadNaming", "ExportError", "download_naming",
           "folders", "guess_class", "read_export", "safe_file_name", "safe_id", "stage_files",
           "top_entries", "unique_members", "unpack"]

FOLDERS = "folders"  # the kind of an export with one folder, zip or file per student
# An LMS's naming is recognised from this many entries named its way (one could be chance).
RECOGNISED_FROM = 2


class ExportError(KeyedError, ValueError):
    """The export cannot be read as the LMS it was said to come from (a usage error): a key
    under cli.errors.lms and its parameters, which the command line says in the reader's
    language."""


@dataclass(frozen=True)
class ClassMember:
    """One student's submission in a class export."""

    submission_id: str   # filesystem-safe and unique in the class: the report folder's name
    student_id: str      # the LMS's id: Canvas user id, Moodle participant id, folder name
    name: str            # as the LMS names the student; '' when it does not
    lms: str             # the LMS target's name (DownloadNaming.name), or folders
    source: Path         # what is graded: a file, a zip or a folder
    label: str           # where it came from, as the instructor sees the export
    late: bool = False
    duplicates: tuple[str, ...] = ()   # files of one attempt under one name (Canvas renamed them)
    files: tuple[str, ...] = field(default=())  # the export's files this submission holds


class DownloadNaming(ABC):
    """How one LMS's "download all submissions" names each student's files: the intake side of
    an LMS target (`grader.results.lms.target.LmsTarget`)."""

    name: str  # the --lms value, and each member's `lms`
    # Lower is tried first when a download is recognised: a naming with a fixed word in it
    # (Moodle's `_assignsubmission_`) before one a name of digits alone may also follow.
    recognition_rank: int = 1

    @abstractmethod
    def read_download(self, entries: Sequence[Path], scratch: Path,
                      label: str) -> list[ClassMember]:
        """One member per student of the download whose top entries these are, named as the LMS
        names them (several files of one student staged under `scratch`); ExportError when the
        entries are not named this way."""

    @abstractmethod
    def is_download_name(self, name: str) -> bool:
        """Whether a file or folder of this name is a student's entry as the download names it."""

    def is_download_entry(self, path: Path) -> bool:
        """Whether this top entry of an unpacked folder is a student's entry of the download."""
        return self.is_download_name(path.name)


def _recognition_order(namings: Sequence[DownloadNaming]) -> list[DownloadNaming]:
    return sorted(namings, key=lambda naming: naming.recognition_rank)


def safe_id(text: str) -> str:
    """A filesystem-safe id: accents dropped, anything but letters, digits, '.', '_', '-' → '_'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_text).strip("._-") or "student"


def unique_members(members: list[ClassMember]) -> list[ClassMember]:
    """Members with unique submission ids (a numbered suffix tells duplicates apart), sorted."""
    taken: set[str] = set()
    last_suffix: dict[str, int] = {}  # per id, the suffix last tried: k copies cost k, not k²
    result = []
    for member in sorted(members, key=lambda m: (m.submission_id, m.student_id, m.label)):
        base = candidate = member.submission_id
        suffix = last_suffix.get(base, 1)
        while candidate in taken:
            suffix += 1
            candidate = f"{base}-{suffix}"
        last_suffix[base] = suffix
        taken.add(candidate)
        result.append(member if candidate == base else _with_id(member, candidate))
    return result


def _with_id(member: ClassMember, submission_id: str) -> ClassMember:
    return ClassMember(submission_id, member.student_id, member.name, member.lms, member.source,
                       member.label, member.late, member.duplicates, member.files)


# --- unpacking -------------------------------------------------------------------------------


def unpack(export: Path, scratch: Path) -> Path:
    """The export as a folder: a zip is unpacked under `scratch` by the archive rules
    (`grader.intake.archive`: no links, no paths outside, limits on its size)."""
    if export.is_dir():
        return export
    if not zipfile.is_zipfile(export):
        raise ExportError("not_a_zip", export=str(export))
    target = scratch / "export"
    target.mkdir(parents=True, exist_ok=True)
    try:
        archive.extract(export, target)
    except archive.ArchiveError as exc:
        raise _refused(exc, str(export)) from None
    return target


def _refused(exc: archive.ArchiveError, export: str) -> ExportError:
    """An export the archive rules refuse, as the key the command line says (cli.errors.lms)."""
    if exc.reason in ("member-too-large", "too-large"):
        return ExportError("too_large", export=export, member=exc.member)
    if exc.reason == "too-many-members":
        return ExportError("too_many_files", export=export, limit=str(exc.limit))
    if exc.reason == "ratio":
        return ExportError("compression_ratio", export=export, limit=str(exc.limit))
    if exc.reason == "member-unreadable":
        return ExportError("bad_member", export=export, member=exc.member, error=exc.error)
    if exc.reason == "member-unwritable":
        return ExportError("unwritable_member", export=export, member=exc.member, error=exc.error)
    return ExportError("bad_zip", export=export, error=exc.error)


def top_entries(folder: Path, namings: Sequence[DownloadNaming]) -> list[Path]:
    """The folder's entries, descending through a lone wrapping folder (an unzipped download)
    that no LMS of `namings` would name as a student's entry."""
    entries = sorted(p for p in folder.iterdir() if not archive.skipped((p.name,))
                     and not p.name.startswith("."))
    if len(entries) == 1 and entries[0].is_dir() and not any(
            naming.is_download_name(entries[0].name) for naming in namings):
        return top_entries(entries[0], namings)
    return entries


def stage_files(files: Iterable[tuple[str, Path]], folder: Path) -> Path:
    """Copy (name, path) pairs into a fresh folder under their given names; a name given twice
    gets `-2`, `-3`, ... before its extension (as an LMS names a second file of one name)."""
    folder.mkdir(parents=True, exist_ok=False)
    last_number: dict[str, int] = {}  # per name, the number last tried: k copies cost k, not k²
    for name, path in files:
        target = folder / safe_file_name(name)
        stem, dot, extension = target.name.partition(".")
        number = last_number.get(target.name, 1)
        while target.exists():
            number += 1
            target = folder / f"{stem}-{number}{dot}{extension}"
        last_number[folder.joinpath(safe_file_name(name)).name] = number
        shutil.copyfile(path, target)
    return folder


def safe_file_name(name: str) -> str:
    """A file name with no path in it."""
    return PurePosixPath(name.replace("\\", "/")).name or "file"


# --- one folder per student ---------------------------------------------------------------


def folders(entries: Sequence[Path], label: str) -> list[ClassMember]:
    """One member per folder, zip, `.py` file or notebook among the export's top entries."""
    members = []
    for path in entries:
        if path.is_dir() or path.suffix in (".zip", ".py", ".ipynb"):
            student = safe_id(path.stem if path.is_file() else path.name)
            members.append(ClassMember(student, student, "", FOLDERS, path,
                                       f"{label}: {path.name}", files=(path.name,)))
    if not members:
        raise ExportError("no_students", export=label)
    return unique_members(members)


def read_export(kind: str, export: Path, scratch: Path,
                namings: Sequence[DownloadNaming]) -> list[ClassMember]:
    """The class in `export` (a zip or its unpacked folder) as the LMS `kind` names it: read by
    the naming of that name (each LMS target's, `grader.results.lms.registry`), or one member
    per entry for `folders`."""
    known = (*(naming.name for naming in namings), FOLDERS)
    if kind not in known:
        raise ExportError("unknown_lms", kind=repr(kind), known=", ".join(known))
    if not export.exists():
        raise ExportError("missing", export=str(export))
    entries = top_entries(unpack(export, scratch), namings)
    label = export.name
    if kind == FOLDERS:
        return folders(entries, label)
    naming = next(naming for naming in namings if naming.name == kind)
    return naming.read_download(entries, scratch, label)


# --- recognising a class ---------------------------------------------------------------------


def guess_class(path: Path, lab: Lab, namings: Sequence[DownloadNaming]) -> str | None:
    """What a folder looks like a class export of: the name of the LMS of `namings` whose
    download it is, "folders", or None.

    A folder holding the lab's file at its top is one submission, whatever else it holds.
    """
    if not path.is_dir() or any((path / name).is_file() for name in lab.files):
        return None
    entries = top_entries(path, namings)
    for naming in _recognition_order(namings):
        if sum(1 for p in entries if naming.is_download_entry(p)) >= RECOGNISED_FROM:
            return naming.name
    students = [p for p in entries if (p.is_dir() and _holds_lab_file(p, lab))
                or p.suffix == ".zip"]
    return FOLDERS if len(students) >= RECOGNISED_FROM else None


def download_naming(paths: Sequence[Path], namings: Sequence[DownloadNaming]) -> str | None:
    """The name of the LMS of `namings` whose download naming at least two of the given entries
    follow (the paths themselves, or the top entries of one zip given alone), or None. Graded
    one by one, such entries would split a student's attempt into several "students"."""
    if len(paths) == 1 and paths[0].is_file() and zipfile.is_zipfile(paths[0]):
        try:
            names = {PurePosixPath(m.path).parts[0] for m in archive.members(paths[0])}
        except archive.ArchiveError:
            return None  # read as a submission, which says what is wrong with the zip
    else:
        names = {path.name for path in paths}
    for naming in _recognition_order(namings):
        if sum(1 for name in names if naming.is_download_name(name)) >= RECOGNISED_FROM:
            return naming.name
    return None


def _holds_lab_file(folder: Path, lab: Lab) -> bool:
    return any(next(folder.rglob(name), None) is not None for name in lab.files) or (
        next(folder.rglob("*.ipynb"), None) is not None)
