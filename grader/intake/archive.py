"""Reading a zip the grader is handed, a student's submission or an LMS's bulk download, by one set of rules.

Side: trusted process (intake); nothing here runs what it reads, and nothing is read before
the whole archive has passed the rules:

- skipped members: what operating systems and tools put beside a student's files (`SKIPPED`,
  each with its reason, and macOS's `._*` files), at any depth; folders (their files are
  members of their own);
- unsafe members, skipped too and never read nor written: a symbolic link (once on disk it
  could point at anything the grader can read) and a path that is absolute, climbs out with
  `..` or is empty (zip-slip: written outside the folder it is unpacked into);
- names no file system takes: a part of a path longer than `NAME_MAX_BYTES` is cut to fit,
  its extension kept (a zip may name a member with 65,535 bytes; Linux refuses a file name of
  256, and one student's long name stopped the unpacking of a whole LMS export); a member
  that still cannot be written (a file where a folder of another member must go) refuses the
  archive (`member-unwritable`);
- limits, over which the archive is refused as a whole (`ArchiveError`): more than
  `MAX_MEMBERS` files, a member over `MAX_MEMBER_BYTES` or all of them over `MAX_TOTAL_BYTES`
  unpacked, and past `RATIO_FREE_BYTES` more than `MAX_RATIO` times the archive's own size
  (a zip bomb). The sizes are the ones the archive declares, before anything is unpacked:
  zipfile stops reading a member at its declared size, so one that holds more fails its CRC.

The central directory is parsed once per zip: `OpenArchive` keeps it open while its members are
read (zipfile parses the whole directory on every open, so reopening it per member made reading
n candidates cost n times the directory: 20,000 copies of value.py, hours).

A zip that zipfile cannot read, in its directory or in a member, is an `ArchiveError` too. What
that costs is the caller's to say: a student's zip is that student's ungradable submission
(`grader.intake.collect`), an LMS export the instructor's usage error (`grader.intake.lms`).
"""

from __future__ import annotations

import stat
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.common.text import clean_text
from grader.intake.limits import charge

# What is never a student's work, skipped wherever it sits in an archive (or a folder).
SKIPPED: dict[str, str] = {
    "__MACOSX": "macOS's Archive Utility puts every file's resource fork and metadata here",
    ".DS_Store": "Finder's view settings of a folder",
    "Thumbs.db": "Windows Explorer's thumbnail cache",
    "desktop.ini": "Windows Explorer's folder settings",
    "__pycache__": "Python's compiled bytecode: the grader reads sources only",
    ".git": "a repository's history and settings, never the submission itself",
    ".ipynb_checkpoints": "Jupyter's autosaved copies of a notebook, which would compete with it",
}
# AppleDouble files: the metadata of the file named after the prefix, written beside it when a
# Mac copies to a disk or zips with a tool that keeps no __MACOSX folder.
APPLEDOUBLE_PREFIX = "._"

MAX_MEMBERS = 200_000           # files in one archive (a class's export is the largest)
MAX_MEMBER_BYTES = 64 << 20     # one member, unpacked
MAX_TOTAL_BYTES = 2 << 30       # every member, unpacked
MAX_RATIO = 100                 # unpacked size over the archive's own size ...
RATIO_FREE_BYTES = 64 << 20     # ... once past this: a small archive may hold repetitive text
NAME_MAX_BYTES = 255            # of one part of a path, in UTF-8 (Linux's NAME_MAX)
KEPT_EXTENSION_CHARS = 16       # an extension longer than this is not kept when a name is cut

# What zipfile raises for an archive it cannot read: a bad header or CRC (BadZipFile), an
# encrypted entry (RuntimeError), a compression method it lacks (NotImplementedError), a corrupt
# deflate, bzip2 or lzma stream (zlib.error, OSError, EOFError), sizes that make no sense.
ZIP_ERRORS = (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error, OSError,
              EOFError, ValueError, OverflowError)
# How much of zipfile's message or of a member's name an error quotes.
QUOTE_CAP = 150

# Why an archive is refused, in English for logs; users read the caller's catalogue text.
REFUSALS: dict[str, str] = {
    "unreadable": "not a readable zip ({error})",
    "member-unreadable": "{member} cannot be read from the zip ({error})",
    "too-many-members": "the zip holds more than {limit} files",
    "member-too-large": "{member} is larger than {limit} bytes unpacked",
    "too-large": "the zip unpacks to more than {limit} bytes (at {member})",
    "ratio": "the zip unpacks to more than {limit} times its own size",
    "member-unwritable": "{member} cannot be unpacked ({error})",
}


class ArchiveError(Exception):
    """A zip that is broken or hostile: `reason` (a key of REFUSALS), the member it concerns
    ('' for the whole archive), the limit it went over, zipfile's words."""

    def __init__(self, reason: str, *, member: str = "", limit: int = 0, error: str = "") -> None:
        self.reason = reason
        self.member = clean_text(member, QUOTE_CAP)  # a name from inside the archive
        self.limit = limit
        self.error = error
        super().__init__(REFUSALS[reason].format(member=self.member, limit=limit, error=error))


@dataclass(frozen=True)
class Member:
    """A member that passed the rules: its clean '/'-separated path, its name in the archive
    (what is read) and its declared size unpacked."""

    path: str
    name: str
    size: int


def skipped(parts: Iterable[str]) -> bool:
    """Whether a path, given as its parts, is one an archive's reader (or a folder's) skips."""
    return any(part in SKIPPED or part.startswith(APPLEDOUBLE_PREFIX) for part in parts)


def members(archive: Path) -> list[Member]:
    """The archive's members to read, in its order; ArchiveError if it breaks a rule."""
    with OpenArchive(archive) as opened:
        return opened.members


def read(archive: Path, member: Member) -> bytes:
    """One member's bytes (a member `members` gave); ArchiveError if zipfile cannot read it.
    Opens the zip for this one member: to read several, use OpenArchive."""
    with _open(archive) as bundle:
        return _read(bundle, member)


class OpenArchive:
    """A zip opened once, its directory parsed and checked once: its `members` (what
    `members` gives), each read from the open file by `read`. A context manager that closes it."""

    def __init__(self, archive: Path) -> None:
        self._bundle = _open(archive)
        try:
            self.members = _checked(self._bundle.infolist(), archive.stat().st_size)
        except BaseException:
            self._bundle.close()
            raise

    def read(self, member: Member) -> bytes:
        """One member's bytes; ArchiveError if zipfile cannot read it."""
        return _read(self._bundle, member)

    def close(self) -> None:
        """Close the zip file."""
        self._bundle.close()

    def __enter__(self) -> OpenArchive:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def extract(archive: Path, target: Path) -> list[Member]:
    """Unpack the archive's members under `target` (created if need be), nothing else."""
    with _open(archive) as bundle:
        found = _checked(bundle.infolist(), archive.stat().st_size)
        for member in found:
            destination = target.joinpath(*member.path.split("/"))
            content = _read(bundle, member)
            try:
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(content)
            except OSError as exc:  # a file where another member's folder goes, or the reverse
                raise ArchiveError("member-unwritable", member=member.path,
                                   error=error_text(exc)) from None
    return found


def error_text(exc: BaseException) -> str:
    """What zipfile said went wrong, in a few words (its own message, cut)."""
    return clean_text(f"{type(exc).__name__}: {exc}", QUOTE_CAP)


def _open(archive: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(archive)
    except ZIP_ERRORS as exc:
        raise ArchiveError("unreadable", error=error_text(exc)) from None


def _read(bundle: zipfile.ZipFile, member: Member) -> bytes:
    try:
        return bundle.read(member.name)
    except ZIP_ERRORS as exc:
        raise ArchiveError("member-unreadable", member=member.path,
                           error=error_text(exc)) from None


def _checked(infos: list[zipfile.ZipInfo], archive_bytes: int) -> list[Member]:
    """The members to read, the last of each path (what zipfile reads by that name and what an
    unpacking leaves), once the limits hold."""
    files = [info for info in infos if not info.filename.replace("\\", "/").endswith("/")]
    if len(files) > MAX_MEMBERS:
        raise ArchiveError("too-many-members", limit=MAX_MEMBERS)
    kept: dict[str, Member] = {}
    total = 0
    for info in files:
        charge()
        path = _safe_path(info)
        if path is None or skipped(path.split("/")):
            continue
        if info.file_size > MAX_MEMBER_BYTES:
            raise ArchiveError("member-too-large", member=path, limit=MAX_MEMBER_BYTES)
        earlier = kept.pop(path, None)  # a later member of one path comes in its place
        total += info.file_size - (earlier.size if earlier else 0)
        if total > MAX_TOTAL_BYTES:
            raise ArchiveError("too-large", member=path, limit=MAX_TOTAL_BYTES)
        kept[path] = Member(path, info.filename, info.file_size)
    if total > max(RATIO_FREE_BYTES, MAX_RATIO * archive_bytes):
        raise ArchiveError("ratio", limit=MAX_RATIO)
    return list(kept.values())


def _safe_path(info: zipfile.ZipInfo) -> str | None:
    """The member's relative '/'-separated path, or None for a link or a path out of the folder."""
    if stat.S_ISLNK(info.external_attr >> 16):
        return None
    path = PurePosixPath(info.filename.replace("\\", "/"))  # a Windows tool's separators
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None
    return "/".join(fitting_name(part) for part in path.parts)


def fitting_name(part: str) -> str:
    """One part of a path cut to NAME_MAX_BYTES in UTF-8, its extension kept when short."""
    if len(part.encode("utf-8", "surrogatepass")) <= NAME_MAX_BYTES:
        return part
    stem, dot, extension = part.rpartition(".")
    if not dot or not stem or len(extension) > KEPT_EXTENSION_CHARS:
        stem, dot, extension = part, "", ""
    room = NAME_MAX_BYTES - len(f"{dot}{extension}".encode("utf-8", "surrogatepass"))
    cut = stem.encode("utf-8", "surrogatepass")[:room].decode("utf-8", "ignore")
    return f"{cut}{dot}{extension}"
