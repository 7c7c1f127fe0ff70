"""Reading a class as an LMS hands it over: Canvas and Moodle bulk downloads, or one folder each.

Trusted side (intake). The naming each LMS gives its "download all submissions" archive is
read exactly as the LMS writes it, so student ids and names come from the LMS itself:

- Canvas (`ContentZipper#zip_assignment` in instructure/canvas-lms, `lib/content_zipper.rb`):
  `<sortable name, lower case, word characters only>[_LATE]_<user id>_<attachment id>_<file>`,
  where an anonymised assignment puts `anon_<anonymous id>` in place of the user id, and text or
  URL entries are `<name>_<user id>_text.html` / `_link.html`. Only the current attempt is zipped
  (`get_uploaded_files_from`: the submission's `attachment_ids`), so every file of a user is
  graded together; a file named as another of the user's files with `-1`, `-2`, ... before its
  extension (`Attachment.make_unique_filename`) is a second file of that name in the attempt (or
  a re-upload Canvas renamed because the earlier one is still in the student's files), and the
  feedback says so.
- Moodle (`mod_assign\\downloader::load_submissionplugin_filelist`, mod/assign/classes/
  downloader.php, Moodle 4.1+; `assign::download_submissions` in mod/assign/locallib.php before):
  one folder per participant and plugin, `<Full name>_<participant id>_assignsubmission_file/...`
  (4.1+, as `downloader_test.php` expects) or `..._assignsubmission_file_/...` (older), names
  with `_` turned into spaces, blind marking writes `Participant` for the name; with "download
  submissions in folders" off, files `<Full name>_<participant id>_assignsubmission_file_<file>`.
  A download may mix the forms. The participant id is the number in the grading worksheet's
  identifier. An entry named neither way is an error, never skipped.
- `folders`: one folder, zip, `.py` or notebook per student; the id is its name.

Each student becomes one `ClassMember` whose `source` is graded as any submission is: a single
file or zip as it is, several files staged into one folder under their original names, where the
usual rules decide which file is the lab's (`grader.platforms.candidates`).
"""

from __future__ import annotations

import re
import shutil
import unicodedata
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.common.keyed_error import KeyedError
from grader.common.labs import Lab
from grader.intake import archive

FOLDERS = "folders"  # the kind of an export with one folder, zip or file per student
# How an LMS target reads its unpacked download: (folder, scratch, label) -> the class.
Reader = Callable[[Path, Path, str], list["ClassMember"]]

_CANVAS_PREFIX = r"^(?:(?!(?i:late)_)(?P<name>.+?)_)?(?:(?P<late>(?i:late))_)?(?P<user>anon_[0-9A-Za-z]+|\d+)_"
CANVAS_FILE = re.compile(_CANVAS_PREFIX + r"(?P<attachment>\d+)_(?P<original>.+)$", re.DOTALL)
CANVAS_TEXT = re.compile(_CANVAS_PREFIX + r"(?P<entry>text|link)\.html$")
# Attachment.make_unique_filename: "<base>-<n><extensions>", extensions as in its own regex.
RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<ext>(?:\.[A-Za-z][A-Za-z0-9]*)*\.[A-Za-z0-9]*)$")
# rest: None for a 4.1+ folder, '' for an older folder, the file's name for a flat file.
MOODLE_ENTRY = re.compile(
    r"^(?P<name>.*)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)(?:_(?P<rest>.*))?$",
    re.DOTALL)


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
    lms: str             # canvas | moodle | folders
    source: Path         # what is graded: a file, a zip or a folder
    label: str           # where it came from, as the instructor sees the export
    late: bool = False
    duplicates: tuple[str, ...] = ()   # files of one attempt under one name (Canvas renamed them)
    files: tuple[str, ...] = field(default=())  # the export's files this submission holds


def safe_id(text: str) -> str:
    """A filesystem-safe id: accents dropped, anything but letters, digits, '.', '_', '-' → '_'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_text).strip("._-") or "student"


def _unique(members: list[ClassMember]) -> list[ClassMember]:
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


def _top_entries(folder: Path) -> list[Path]:
    """The folder's entries, descending through a lone wrapping folder (an unzipped download)."""
    entries = sorted(p for p in folder.iterdir() if not archive.skipped((p.name,))
                     and not p.name.startswith("."))
    if len(entries) == 1 and entries[0].is_dir() and not _looks_like_student_entry(entries[0]):
        return _top_entries(entries[0])
    return entries


def _looks_like_student_entry(path: Path) -> bool:
    return bool(CANVAS_FILE.match(path.name) or MOODLE_ENTRY.match(path.name))


def _stage(files: Iterable[tuple[str, Path]], folder: Path) -> Path:
    """Copy (name, path) pairs into a fresh folder under their given names; a name given twice
    gets `-2`, `-3`, ... before its extension, as Canvas names a second file of one name."""
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


# --- Canvas ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CanvasFile:
    path: Path
    name: str
    user: str
    late: bool
    attachment: int
    original: str

    @property
    def base(self) -> str:
        """The original name without the suffix Canvas adds to a second file of that name."""
        match = RESUBMITTED.match(self.original)
        return match["stem"] + match["ext"] if match else self.original



def _canvas_files(entries: Sequence[Path]) -> tuple[list[_CanvasFile], dict[str, list[Path]]]:
    files: list[_CanvasFile] = []
    texts: dict[str, list[Path]] = {}
    for path in entries:
        if not path.is_file():
            continue
        match = CANVAS_FILE.match(path.name)
        if match:
            files.append(_CanvasFile(path, match["name"] or "", match["user"], bool(match["late"]),
                                     int(match["attachment"]), match["original"]))
            continue
        text = CANVAS_TEXT.match(path.name)
        if text:
            texts.setdefault(text["user"], []).append(path)
    return files, texts


def _duplicates(files: Sequence[_CanvasFile]) -> tuple[str, ...]:
    """The files sharing one original name with another file of the same attempt."""
    groups: dict[str, list[_CanvasFile]] = {}
    for item in files:
        groups.setdefault(item.base, []).append(item)
    return tuple(sorted(f.path.name for group in groups.values() if len(group) > 1
                        for f in group))


def canvas(export: Path, scratch: Path, label: str) -> list[ClassMember]:
    """One member per Canvas user in an unpacked "Download Submissions" folder."""
    files, texts = _canvas_files(_top_entries(export))
    if not files and not texts:
        raise ExportError("not_canvas", export=label)
    by_user: dict[str, list[_CanvasFile]] = {}
    for item in files:
        by_user.setdefault(item.user, []).append(item)
    members = []
    for user, items in by_user.items():
        items.sort(key=lambda f: (f.original, f.attachment))
        name = next((f.name for f in items if f.name), "")
        submission_id = safe_id(f"{name}_{user}" if name else user)
        if len(items) == 1:
            source = items[0].path
        else:  # under the names the student gave them, as Canvas shows them
            source = _stage(((f.original, f.path) for f in items),
                            scratch / "canvas" / submission_id)
        members.append(ClassMember(
            submission_id, user, name, "canvas", source,
            f"{label}: {', '.join(f.path.name for f in items)}",
            late=any(f.late for f in items), duplicates=_duplicates(items),
            files=tuple(sorted(f.path.name for f in items))))
    for user, paths in texts.items():
        if user not in by_user:  # a text or URL entry only: nothing to grade, said so by intake
            name = CANVAS_TEXT.match(paths[0].name)["name"] or ""  # type: ignore[index]
            folder = scratch / "canvas-text" / safe_id(f"{name}_{user}")
            folder.mkdir(parents=True)
            members.append(ClassMember(safe_id(f"{name}_{user}" if name else user), user, name,
                                       "canvas", folder, f"{label}: {paths[0].name}",
                                       files=tuple(p.name for p in paths)))
    return _unique(members)


# --- Moodle ----------------------------------------------------------------------------------


def _moodle_entries(entries: Sequence[Path], label: str) -> tuple[
        dict[str, str], dict[str, list[Path]], dict[str, list[tuple[str, Path]]]]:
    """Names, folders and flat files by participant; ExportError naming any entry that is
    neither a folder nor a file as Moodle names them."""
    names: dict[str, str] = {}
    folders: dict[str, list[Path]] = {}
    flat: dict[str, list[tuple[str, Path]]] = {}
    unread = []
    for path in entries:
        match = MOODLE_ENTRY.match(path.name)
        is_folder = match is not None and path.is_dir() and not match["rest"]
        is_flat = match is not None and path.is_file() and bool(match["rest"])
        if match is None or not (is_folder or is_flat):
            unread.append(path.name)
            continue
        participant = match["participant"]
        names.setdefault(participant, match["name"].strip())
        if match["plugin"] != "file":
            continue  # online text and other plugins hold nothing the grader can run
        if is_folder:
            folders.setdefault(participant, []).append(path)
        else:
            flat.setdefault(participant, []).append((match["rest"], path))
    if not names:
        raise ExportError("not_moodle", export=label)
    if unread:
        raise ExportError("not_moodle_entries", export=label, entries=", ".join(sorted(unread)[:5]))
    return names, folders, flat


def moodle(export: Path, scratch: Path, label: str) -> list[ClassMember]:
    """One member per participant in an unpacked "Download all submissions" folder."""
    names, folders, flat = _moodle_entries(_top_entries(export), label)
    members = []
    for participant, name in names.items():
        submission_id = safe_id(f"{name}_{participant}")
        paths = folders.get(participant, [])
        loose = flat.get(participant, [])
        if len(paths) == 1 and not loose:
            source = paths[0]
        else:
            staged = [(p.name, p) for folder in paths for p in sorted(folder.rglob("*"))
                      if p.is_file() and not archive.skipped(p.relative_to(folder).parts)]
            staged += loose
            source = _stage(staged, scratch / "moodle" / submission_id)
        shown = [p.name for p in paths] + [p.name for _, p in loose]
        members.append(ClassMember(submission_id, participant, name, "moodle", source,
                                   f"{label}: {', '.join(shown) or participant}",
                                   files=tuple(shown)))
    return _unique(members)


# --- one folder per student ------------------------------------------------------------------


def folders(export: Path, label: str) -> list[ClassMember]:
    """One member per folder, zip, `.py` file or notebook directly inside the export."""
    members = []
    for path in _top_entries(export):
        if path.is_dir() or path.suffix in (".zip", ".py", ".ipynb"):
            student = safe_id(path.stem if path.is_file() else path.name)
            members.append(ClassMember(student, student, "", "folders", path,
                                       f"{label}: {path.name}", files=(path.name,)))
    if not members:
        raise ExportError("no_students", export=label)
    return _unique(members)


def read_export(kind: str, export: Path, scratch: Path,
                readers: Mapping[str, Reader]) -> list[ClassMember]:
    """The class in `export` (a zip or its unpacked folder) as the LMS `kind` names it: read by
    `readers[kind]` (each LMS target's intake naming, `grader.results.lms.registry`), or one
    member per entry for `folders`."""
    known = (*readers, FOLDERS)
    if kind not in known:
        raise ExportError("unknown_lms", kind=repr(kind), known=", ".join(known))
    if not export.exists():
        raise ExportError("missing", export=str(export))
    folder = unpack(export, scratch)
    label = export.name
    if kind == FOLDERS:
        return folders(folder, label)
    return readers[kind](folder, scratch, label)


# --- recognising a class ---------------------------------------------------------------------


def guess_class(path: Path, lab: Lab) -> str | None:
    """The LMS a folder looks like a class export of ("canvas", "moodle", "folders"), or None.

    A folder holding the lab's file at its top is one submission, whatever else it holds.
    """
    if not path.is_dir() or any((path / name).is_file() for name in lab.files):
        return None
    entries = _top_entries(path)
    if sum(1 for p in entries if MOODLE_ENTRY.match(p.name)) >= 2:
        return "moodle"
    if sum(1 for p in entries if p.is_file() and CANVAS_FILE.match(p.name)) >= 2:
        return "canvas"
    students = [p for p in entries if (p.is_dir() and _holds_lab_file(p, lab))
                or p.suffix == ".zip"]
    return "folders" if len(students) >= 2 else None


def download_naming(paths: Sequence[Path]) -> str | None:
    """The LMS ("canvas", "moodle") whose download naming at least two of the given entries
    follow (the paths themselves, or the top entries of one zip given alone), or None. Graded
    one by one, such entries would split a student's attempt into several "students"."""
    if len(paths) == 1 and paths[0].is_file() and zipfile.is_zipfile(paths[0]):
        try:
            names = {PurePosixPath(m.path).parts[0] for m in archive.members(paths[0])}
        except archive.ArchiveError:
            return None  # read as a submission, which says what is wrong with the zip
    else:
        names = {path.name for path in paths}
    if sum(1 for name in names if MOODLE_ENTRY.match(name)) >= 2:
        return "moodle"
    if sum(1 for name in names if CANVAS_FILE.match(name) or CANVAS_TEXT.match(name)) >= 2:
        return "canvas"
    return None


def _holds_lab_file(folder: Path, lab: Lab) -> bool:
    return any(next(folder.rglob(name), None) is not None for name in lab.files) or (
        next(folder.rglob("*.ipynb"), None) is not None)
