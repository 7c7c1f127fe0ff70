"""Choosing the one file a submission hands in for each lab file, or naming the ones that compete.

Side: trusted process (intake). A folder, a zip or one student's files in an LMS export may hold several
things that could be the lab's file: `value.py` at two depths, `value.py` beside an edited
notebook, two differently named `.py` files. The grader never grades one of them silently:

- the lab file under its own name, under the name Canvas gives a second file of that name in one
  submission (`value-1.py`: `Attachment.make_unique_filename` in instructure/canvas-lms), and
  the lab's notebook (any `*.ipynb`) are candidates;
- an untouched copy of what students were given (the stub, the lab notebook) is not a
  competitor, and copies with identical code count once: handing in the whole lab folder,
  stub notebook included, is not ambiguous;
- when there is no such candidate, a lone other `.py` file at the top is the lab file (students
  rename files); several are competitors;
- more than one distinct edited candidate is `Ambiguous`, naming them all;
- more than `MAX_CANDIDATES` candidates for one file is `TooManyCandidates`, said before any
  of them is read (each is read and compared whole: their number bounds the work).

Nothing here reads the filesystem: callers list `Entry`s (relative path and a reader), so the
same rules hold for folders, zips and zips inside folders.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.common.labs import Lab
from grader.intake.limits import MAX_CANDIDATES, charge

NOTEBOOK_SUFFIX = ".ipynb"
# Files a student folder often holds that are never the lab's file.
NOT_LAB_FILES = frozenset({"conftest.py", "setup.py", "__init__.py"})
# What students were given, as digests of its normalised code per lab: written into the student
# kit by its builder (grader.authoring.student_kit), absent from the repository. In a kit the
# lab's folder is the student's own, so what it holds now cannot say what it held at first.
GIVEN_DIGESTS = Path(__file__).with_name("given_code.json")


@dataclass(frozen=True)
class Entry:
    """One file in a submission: its '/'-separated path inside it and how to read it."""

    path: str
    read: Callable[[], bytes]

    @property
    def name(self) -> str:
        """The file's base name."""
        return self.path.rsplit("/", 1)[-1]

    @property
    def depth(self) -> int:
        """How many folders deep the file sits (0: at the top)."""
        return self.path.count("/")


@dataclass(frozen=True)
class Candidate:
    """A file that could be the lab file, with the module code it stands for."""

    path: str
    code: bytes
    depth: int
    rank: int = 0  # 0: the lab file by name, 1: a notebook, 2: another .py file


class TooManyCandidates(Exception):
    """More than MAX_CANDIDATES files that could be one lab file: `count` of them."""

    def __init__(self, file: str, count: int) -> None:
        super().__init__(f"{file}: {count} candidates, more than {MAX_CANDIDATES}")
        self.file = file
        self.count = count
        self.limit = MAX_CANDIDATES


class Ambiguous(Exception):
    """More than one distinct candidate for a lab file; `candidates` are their paths."""

    def __init__(self, file: str, candidates: Sequence[str]) -> None:
        super().__init__(f"{file}: {', '.join(candidates)}")
        self.file = file
        self.candidates = tuple(candidates)


# What ends a line with white space before it (bytes.rstrip strips these), or a line (\r).
_TRAILING_SPACE = (b" \n", b"\t\n", b"\x0b\n", b"\x0c\n", b"\r")


def normal_code(code: bytes) -> bytes:
    """Code compared without line-ending or trailing-space differences. Code with neither
    (most files, and a file padded with newlines) is only stripped: splitting a million empty
    lines cost 90 MB."""
    if not any(mark in code for mark in _TRAILING_SPACE):
        return code.strip()
    return b"\n".join(line.rstrip() for line in code.replace(b"\r\n", b"\n").splitlines()).strip()


def code_digest(code: bytes) -> str:
    """The digest of code as compared (`normal_code`): what "untouched" is decided on."""
    return hashlib.sha256(normal_code(code)).hexdigest()


def named_as(name: str, file: str) -> bool:
    """Whether `name` is `file`, or `file` as Canvas renames a second upload of that name
    (`<stem>-<n><extension>`)."""
    if name == file:
        return True
    stem, dot, extension = file.partition(".")
    return bool(re.fullmatch(re.escape(stem) + r"-\d+" + re.escape(dot + extension), name))


def _is_other_python(entry: Entry, lab: Lab) -> bool:
    name = entry.name
    return (entry.depth == 0 and name.endswith(".py") and name not in lab.support_files
            and name not in lab.files and name not in NOT_LAB_FILES
            and not name.startswith("test_") and not name.endswith("_test.py"))


def _distinct(candidates: Sequence[Candidate]) -> list[Candidate]:
    """One candidate per distinct code, the shallowest (then first by path) of each."""
    kept: dict[str, Candidate] = {}
    for candidate in sorted(candidates, key=lambda c: (c.rank, c.depth, c.path)):
        kept.setdefault(code_digest(candidate.code), candidate)
    return list(kept.values())


def _decide(file: str, found: Sequence[Candidate], untouched: Collection[str]) -> Candidate:
    distinct = _distinct(found)
    edited = [c for c in distinct if code_digest(c.code) not in untouched]
    if len(edited) > 1:
        raise Ambiguous(file, sorted(c.path for c in edited))
    return edited[0] if edited else distinct[0]


def choose(file: str, entries: Sequence[Entry], lab: Lab, untouched: Collection[str],
           notebook_code: Callable[[bytes], bytes]) -> Candidate | None:
    """The candidate for `file` among `entries`, None if there is none; `Ambiguous` if several.

    `untouched` holds the digests of what students were given (see `untouched_code`);
    `notebook_code` turns a notebook's bytes into the module code it stands for.
    """
    main = file == lab.main_file
    named = [e for e in entries if named_as(e.name, file)]
    notebooks = [e for e in entries if main and e.name.endswith(NOTEBOOK_SUFFIX)]
    if named or notebooks:
        _within_limit(file, len(named) + len(notebooks))
        # When every candidate is an untouched copy, the lab file under its own name is graded.
        return _decide(file, [*(_read(e) for e in named),
                              *(_read(e, notebook_code, rank=1) for e in notebooks)], untouched)
    others = [e for e in entries if main and len(lab.files) == 1 and _is_other_python(e, lab)]
    _within_limit(file, len(others))
    return _decide(file, [_read(e, depth=0, rank=2) for e in others],
                   untouched) if others else None


def _within_limit(file: str, count: int) -> None:
    if count > MAX_CANDIDATES:
        raise TooManyCandidates(file, count)


def _read(entry: Entry, code: Callable[[bytes], bytes] | None = None, depth: int | None = None,
          rank: int = 0) -> Candidate:
    """The entry as a candidate, its bytes read now (within the submission's budget) and
    turned into its module code by `code` (a notebook's cells joined)."""
    charge()
    raw = entry.read()
    return Candidate(entry.path, code(raw) if code else raw,
                     entry.depth if depth is None else depth, rank)


def untouched_code(lab: Lab, notebook_code: Callable[[bytes], bytes]) -> frozenset[str]:
    """The digests (`code_digest`) of the lab's stub files and notebook as students got them:
    as the kit recorded them when it was built (GIVEN_DIGESTS), else as the lab's folder holds
    them (the repository's, which students never edit)."""
    recorded = _recorded_digests(lab.name)
    return recorded if recorded is not None else given_digests(lab, notebook_code)


def given_digests(lab: Lab, notebook_code: Callable[[bytes], bytes],
                  folder: Path | None = None) -> frozenset[str]:
    """The digests of the stub files and notebook in the lab's folder (or `folder`), as they
    are now."""
    folder = lab.student_dir if folder is None else folder
    given: set[str] = set()
    for name in lab.files:
        stub = folder / name
        if stub.is_file():
            given.add(code_digest(stub.read_bytes()))
    notebook = folder / f"{lab.name}{NOTEBOOK_SUFFIX}"
    if notebook.is_file():
        given.add(code_digest(notebook_code(notebook.read_bytes())))
    return frozenset(given)


def _recorded_digests(lab: str) -> frozenset[str] | None:
    """The kit's record of what it gave for the lab; None outside a kit."""
    if not GIVEN_DIGESTS.is_file():
        return None
    recorded = json.loads(GIVEN_DIGESTS.read_text(encoding="utf-8"))
    return frozenset(recorded[lab]) if lab in recorded else None
