"""Reading a class as an LMS hands it over: Canvas and Moodle bulk downloads, or one folder each.

Trusted side (intake). The naming each LMS gives its "download all submissions" archive is
read exactly as the LMS writes it, so student ids and names come from the LMS itself:

- Canvas (`ContentZipper#zip_assignment` in instructure/canvas-lms, `lib/content_zipper.rb`):
  `<sortable name, lower case, word characters only>[_LATE]_<user id>_<attachment id>_<file>`,
  where an anonymised assignment puts `anon_<anonymous id>` in place of the user id, and text or
  URL entries are `<name>_<user id>_text.html` / `_link.html`. A file uploaded again under the
  same name gets `-1`, `-2`, ... before its extension (`Attachment.make_unique_filename`); the
  highest is the latest attempt and the others are listed, not graded.
- Moodle (`assign::download_submissions`, mod/assign/locallib.php): one folder per participant,
  `<Full name>_<participant id>_assignsubmission_file_/...` (names with `_` turned into spaces;
  blind marking writes `Participant` for the name), or, with "download submissions in folders"
  off, files `<Full name>_<participant id>_assignsubmission_file_<file>`. The participant id is
  the number in the grading worksheet's `Participant N` identifier.
- `folders`: one folder, zip, `.py` or notebook per student; the id is its name.

Each student becomes one `ClassMember` whose `source` is graded as any submission is: a single
file or zip as it is, several files staged into one folder under their original names, where the
usual rules decide which file is the lab's (`grader.platforms.candidates`).
"""

from __future__ import annotations

import re
import shutil
import stat
import unicodedata
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.labs import Lab

LMS_KINDS = ("canvas", "moodle", "folders")
SKIPPED_NAMES = frozenset({"__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini"})
MAX_MEMBER_BYTES = 64 << 20     # one file of the export
MAX_EXPORT_BYTES = 2 << 30      # the whole export, unpacked
MAX_EXPORT_MEMBERS = 200_000

_CANVAS_PREFIX = r"^(?:(?!(?i:late)_)(?P<name>.+?)_)?(?:(?P<late>(?i:late))_)?(?P<user>anon_[0-9A-Za-z]+|\d+)_"
CANVAS_FILE = re.compile(_CANVAS_PREFIX + r"(?P<attachment>\d+)_(?P<original>.+)$", re.DOTALL)
CANVAS_TEXT = re.compile(_CANVAS_PREFIX + r"(?P<entry>text|link)\.html$")
# Attachment.make_unique_filename: "<base>-<n><extensions>", extensions as in its own regex.
RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<ext>(?:\.[A-Za-z][A-Za-z0-9]*)*\.[A-Za-z0-9]*)$")
MOODLE_ENTRY = re.compile(
    r"^(?P<name>.*)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<rest>.*)$",
    re.DOTALL)


class ExportError(ValueError):
    """The export cannot be read as the LMS it was said to come from (a usage error): a key
    under cli.errors.lms and its parameters, which the command line says in the reader's
    language."""

    def __init__(self, key: str, **params: str) -> None:
        super().__init__(f"{key}: {params}")
        self.key = key
        self.params = params


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
    earlier: tuple[str, ...] = ()   # earlier attempts, listed and not graded
    files: tuple[str, ...] = field(default=())  # the export's files this submission holds


def safe_id(text: str) -> str:
    """A filesystem-safe id: accents dropped, anything but letters, digits, '.', '_', '-' → '_'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_text).strip("._-") or "student"


def _unique(members: list[ClassMember]) -> list[ClassMember]:
    """Members with unique submission ids (a numbered suffix tells duplicates apart), sorted."""
    taken: set[str] = set()
    result = []
    for member in sorted(members, key=lambda m: (m.submission_id, m.student_id, m.label)):
        base = candidate = member.submission_id
        suffix = 1
        while candidate in taken:
            suffix += 1
            candidate = f"{base}-{suffix}"
        taken.add(candidate)
        result.append(member if candidate == base else _with_id(member, candidate))
    return result


def _with_id(member: ClassMember, submission_id: str) -> ClassMember:
    return ClassMember(submission_id, member.student_id, member.name, member.lms, member.source,
                       member.label, member.late, member.earlier, member.files)


# --- unpacking -------------------------------------------------------------------------------


def _member_path(info: zipfile.ZipInfo) -> PurePosixPath | None:
    """The member's relative path, or None for one that must not be extracted."""
    if stat.S_ISLNK(info.external_attr >> 16):
        return None
    path = PurePosixPath(info.filename.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None
    if SKIPPED_NAMES & set(path.parts):
        return None
    return path


def unpack(export: Path, scratch: Path) -> Path:
    """The export as a folder: a zip is unpacked under `scratch` (no links, no paths outside)."""
    if export.is_dir():
        return export
    if not zipfile.is_zipfile(export):
        raise ExportError("not_a_zip", export=str(export))
    target = scratch / "export"
    target.mkdir(parents=True, exist_ok=True)
    total = 0
    with zipfile.ZipFile(export) as bundle:
        members = [m for m in bundle.infolist() if not m.is_dir()]
        if len(members) > MAX_EXPORT_MEMBERS:
            raise ExportError("too_many_files", export=str(export), limit=str(MAX_EXPORT_MEMBERS))
        for info in members:
            path = _member_path(info)
            if path is None:
                continue
            total += info.file_size
            if info.file_size > MAX_MEMBER_BYTES or total > MAX_EXPORT_BYTES:
                raise ExportError("too_large", export=str(export), member=info.filename)
            destination = target.joinpath(*path.parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            with bundle.open(info) as source, destination.open("wb") as sink:
                shutil.copyfileobj(source, sink)
    return target


def _top_entries(folder: Path) -> list[Path]:
    """The folder's entries, descending through a lone wrapping folder (an unzipped download)."""
    entries = sorted(p for p in folder.iterdir() if p.name not in SKIPPED_NAMES
                     and not p.name.startswith("."))
    if len(entries) == 1 and entries[0].is_dir() and not _looks_like_student_entry(entries[0]):
        return _top_entries(entries[0])
    return entries


def _looks_like_student_entry(path: Path) -> bool:
    return bool(CANVAS_FILE.match(path.name) or MOODLE_ENTRY.match(path.name))


def _stage(files: Iterable[tuple[str, Path]], folder: Path) -> Path:
    """Copy (name, path) pairs into a fresh folder under their given names."""
    folder.mkdir(parents=True, exist_ok=False)
    for name, path in files:
        shutil.copyfile(path, folder / safe_file_name(name))
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
        """The original name without Canvas's resubmission suffix."""
        match = RESUBMITTED.match(self.original)
        return match["stem"] + match["ext"] if match else self.original

    @property
    def resubmission(self) -> int:
        match = RESUBMITTED.match(self.original)
        return int(match["n"]) if match else 0


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


def _latest_by_base(files: Sequence[_CanvasFile]) -> tuple[list[_CanvasFile], list[_CanvasFile]]:
    """For each original name, the latest upload; and the earlier ones."""
    groups: dict[str, list[_CanvasFile]] = {}
    for item in files:
        groups.setdefault(item.base, []).append(item)
    latest, earlier = [], []
    for group in groups.values():
        ordered = sorted(group, key=lambda f: (f.resubmission, f.attachment))
        latest.append(ordered[-1])
        earlier.extend(ordered[:-1])
    return sorted(latest, key=lambda f: f.base), sorted(earlier, key=lambda f: f.attachment)


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
        latest, earlier = _latest_by_base(items)
        name = next((f.name for f in items if f.name), "")
        submission_id = safe_id(f"{name}_{user}" if name else user)
        if len(latest) == 1:
            source = latest[0].path
        else:
            source = _stage(((f.base, f.path) for f in latest), scratch / "canvas" / submission_id)
        members.append(ClassMember(
            submission_id, user, name, "canvas", source,
            f"{label}: {', '.join(f.path.name for f in latest)}",
            late=any(f.late for f in latest), earlier=tuple(f.path.name for f in earlier),
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


def moodle(export: Path, scratch: Path, label: str) -> list[ClassMember]:
    """One member per participant in an unpacked "Download all submissions" folder."""
    folders: dict[str, list[Path]] = {}
    flat: dict[str, list[tuple[str, Path]]] = {}
    names: dict[str, str] = {}
    for path in _top_entries(export):
        match = MOODLE_ENTRY.match(path.name)
        if not match:
            continue
        participant = match["participant"]
        names.setdefault(participant, match["name"].strip())
        if match["plugin"] != "file":
            continue  # online text and other plugins hold nothing the grader can run
        if path.is_dir():
            folders.setdefault(participant, []).append(path)
        elif match["rest"]:
            flat.setdefault(participant, []).append((match["rest"], path))
    if not names:
        raise ExportError("not_moodle", export=label)
    members = []
    for participant, name in names.items():
        submission_id = safe_id(f"{name}_{participant}")
        paths = folders.get(participant, [])
        loose = flat.get(participant, [])
        if len(paths) == 1 and not loose:
            source = paths[0]
        else:
            staged = [(p.name, p) for folder in paths for p in sorted(folder.rglob("*"))
                      if p.is_file()] + loose
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


def read_export(kind: str, export: Path, scratch: Path) -> list[ClassMember]:
    """The class in `export` (a zip or its unpacked folder) as the LMS `kind` names it."""
    if kind not in LMS_KINDS:
        raise ExportError("unknown_lms", kind=repr(kind), known=", ".join(LMS_KINDS))
    if not export.exists():
        raise ExportError("missing", export=str(export))
    folder = unpack(export, scratch)
    label = export.name
    if kind == "canvas":
        return canvas(folder, scratch, label)
    if kind == "moodle":
        return moodle(folder, scratch, label)
    return folders(folder, label)


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


def _holds_lab_file(folder: Path, lab: Lab) -> bool:
    return any(next(folder.rglob(name), None) is not None for name in lab.files) or (
        next(folder.rglob("*.ipynb"), None) is not None)
