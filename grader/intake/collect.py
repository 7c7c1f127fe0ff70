"""Turning what a student handed in (folder, zip, bare file, notebook) into a clean scratch folder.

Only the lab's own files are copied: nothing else a submission ships (a conftest.py, a
json.py, a sitecustomize.py) ever reaches the sandbox.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import os
import re
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.common.labs import Lab
from grader.common.text import clean_value
from grader.intake import archive as zips
from grader.intake.candidates import (
    NOTEBOOK_SUFFIX,
    Ambiguous,
    Candidate,
    Entry,
    TooManyCandidates,
    choose,
    code_digest,
    normal_code,
    untouched_code,
)
from grader.intake.limits import PARSE_ERRORS, IntakeOverrun, budget, charge
from grader.intake.notebook_module import (
    CellStart,
    NotebookError,
    NotebookModule,
    NotebookTooDeep,
    notebook_module,
)
from grader.intake.other_lab import other_lab
from grader.intake.policy import scan_files

# The largest lab file read, from a folder, a zip or on its own (other files are never read).
MAX_FILE_BYTES = 1 << 20
# How much of a name or an error text inside a submission a report quotes.
QUOTE_CAP = 300


class Ungradable(Exception):
    """The submission cannot be graded at all; carries a catalogue detail."""

    def __init__(self, kind: str, **params: Any) -> None:
        params = clean_value(params, QUOTE_CAP)  # names and texts from inside the submission
        super().__init__(f"{kind}: {params}")
        self.detail = {"kind": kind, "params": params}


def _why(kind: str, **params: str | int) -> dict[str, Any]:
    """Why a submission cannot be read, as a detail the catalogue says (details.why-*)."""
    return {"kind": kind, "params": params}


@dataclass(frozen=True)
class Submission:
    """A submission as given on the command line."""

    id: str
    source: Path
    # What the LMS says of the submission (student_id, name, lms, late, earlier, label), kept
    # in the score document; `label` replaces the path as the recorded source when given.
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PreparedSubmission:
    """A submission copied into its own scratch folder, ready for the sandbox."""

    id: str
    source: str
    digest: str
    workdir: Path
    flags: tuple[dict[str, Any], ...] = ()  # policy notes from reading the files (grader.intake.policy)
    meta: Mapping[str, Any] = field(default_factory=dict)
    notebook: str = ""  # the notebook the main file came from, if it came from one
    cells: tuple[CellStart, ...] = ()  # where its code cells start (grader.intake.notebook_module)
    unchecked: tuple[str, ...] = ()  # edited files a student's check left out (see `prepare`)
    # another lab's file handed in for this one, with the evidence (grader.intake.other_lab)
    other_lab: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class SubmissionFiles:
    """The lab's files of a submission; for a main file taken from a notebook, the notebook's
    path inside the submission and its line map; the edited files a check left out."""

    files: dict[str, bytes]
    notebook: str = ""
    cells: tuple[CellStart, ...] = ()
    unchecked: tuple[str, ...] = ()


def submission_id(path: Path, lab: Lab) -> str:
    """A filesystem-safe id: the folder name, or the file stem (its folder for a bare lab file)."""
    name = path.name
    if path.is_file():
        name = path.parent.name if path.name in lab.files else path.stem
    if not name or name in (".", ".."):
        name = path.resolve().name or "submission"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "submission"


def collect(paths: list[Path], lab: Lab) -> list[Submission]:
    """Submissions for the given paths, with unique ids (a suffix tells duplicates apart)."""
    return unique_ids([Submission(submission_id(path, lab), path) for path in paths])


def unique_ids(submissions: Sequence[Submission],
               reserved: Collection[str] = ()) -> list[Submission]:
    """The submissions with ids that are unique and never a reserved name (a file the grader
    writes beside the reports), both compared case-insensitively as some filesystems do: the
    first of each id keeps it, the others get a numbered suffix. The same list gives the same
    ids on every run, so --resume finds each student's report again."""
    taken = {name.casefold() for name in reserved}
    last_suffix: dict[str, int] = {}  # per id, the suffix last tried: k copies cost k, not k²
    result = []
    for sub in submissions:
        candidate, suffix = sub.id, last_suffix.get(sub.id.casefold(), 1)
        while candidate.casefold() in taken:
            suffix += 1
            candidate = f"{sub.id}-{suffix}"
        last_suffix[sub.id.casefold()] = suffix
        taken.add(candidate.casefold())
        result.append(sub if candidate == sub.id else replace(sub, id=candidate))
    return result


def _read_limited(path: Path) -> bytes:
    if path.is_symlink():  # a link could point at anything the grader can read
        raise Ungradable("unreadable-submission", reason=_why("why-symlink", file=path.name))
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise Ungradable("too-large", file=path.name, limit=MAX_FILE_BYTES)
    return path.read_bytes()


def _folder_entries(folder: Path, opened: contextlib.ExitStack) -> list[Entry]:
    """Every file under the folder (what an archive's reader skips and links left out), zips
    opened one level (each once, kept open by `opened`)."""
    root = folder.resolve()
    entries: list[Entry] = []
    for path in sorted(folder.rglob("*")):
        charge()
        relative = path.relative_to(folder)
        if zips.skipped(relative.parts) or not path.is_file() or path.is_symlink():
            continue
        if not path.resolve().is_relative_to(root):
            continue
        if path.suffix == ".zip":
            try:
                entries.extend(_zip_entries(path, opened, f"{relative.as_posix()}/"))
            except Ungradable:
                continue  # a broken zip beside the files is not the submission
        else:
            entries.append(Entry(relative.as_posix(), functools.partial(_read_limited, path)))
    return entries


def _zip_member_reader(archive: zips.OpenArchive, member: zips.Member) -> Callable[[], bytes]:
    def read() -> bytes:
        if member.size > MAX_FILE_BYTES:
            raise Ungradable("too-large", file=member.path.rsplit("/", 1)[-1], limit=MAX_FILE_BYTES)
        try:
            return archive.read(member)
        except zips.ArchiveError as exc:
            raise _unreadable_zip(exc) from None
    return read


def _unreadable_zip(exc: zips.ArchiveError) -> Ungradable:
    """A zip the archive rules refuse, as the submission's reason (details.why-* in the catalogue)."""
    if exc.reason == "member-too-large":  # as any file over a limit is
        return Ungradable("too-large", file=exc.member.rsplit("/", 1)[-1], limit=exc.limit)
    if exc.reason == "member-unreadable":
        return Ungradable("unreadable-submission",
                          reason=_why("why-zip-member", file=exc.member, error=exc.error))
    if exc.reason == "unreadable":
        return Ungradable("unreadable-submission", reason=_why("why-bad-zip", error=exc.error))
    kinds = {"too-many-members": "why-zip-too-many-files", "too-large": "why-zip-too-large",
             "ratio": "why-zip-ratio"}
    return Ungradable("unreadable-submission", reason=_why(kinds[exc.reason], limit=exc.limit))


def _zip_entries(archive: Path, opened: contextlib.ExitStack, prefix: str = "") -> list[Entry]:
    """The zip's files as entries (paths under `prefix`), read from the zip opened once and
    kept open by `opened`; zips inside it are not opened."""
    try:
        bundle = opened.enter_context(zips.OpenArchive(archive))
    except zips.ArchiveError as exc:
        raise _unreadable_zip(exc) from None
    return [Entry(prefix + m.path, _zip_member_reader(bundle, m))
            for m in bundle.members if not m.path.endswith(".zip")]


def _choose_files(entries: list[Entry], lab: Lab, student: bool = False) -> SubmissionFiles:
    """The lab's files among the entries: one candidate each, never a silent pick of several.

    In a student's own check (`student`), an edited lab file beside an edited notebook is not
    ambiguous: the lab file is checked and the notebook is named as not checked."""
    given = _given_code(lab)
    files, notebook, unchecked = {}, "", []
    for name in lab.files:
        try:
            chosen = choose(name, entries, lab, given, notebook_bytes)
        except TooManyCandidates as exc:
            raise Ungradable("unreadable-submission", reason=_why(
                "why-too-many-candidates", file=name, count=exc.count, limit=exc.limit)) from None
        except Ambiguous as exc:
            chosen = _student_choice(name, entries, exc) if student else None
            if chosen is None:
                raise Ungradable("ambiguous-file", file=name,
                                 candidates=list(exc.candidates)) from None
            unchecked += [path for path in exc.candidates if path != chosen.path]
        if chosen is None:
            raise Ungradable("missing-file", file=name)
        files[name] = chosen.code
        if chosen.path.endswith(NOTEBOOK_SUFFIX):
            notebook = chosen.path
    cells = _cells_of(entries, notebook)
    return SubmissionFiles(files, notebook, cells, tuple(unchecked))


def _student_choice(name: str, entries: list[Entry], ambiguous: Ambiguous) -> Candidate | None:
    """The lab file under its own name when it is the one edited file of that name among the
    competitors (the others being notebooks); None when that does not settle it."""
    named = [path for path in ambiguous.candidates if path.rsplit("/", 1)[-1] == name]
    if len(named) != 1:
        return None
    entry = next(e for e in entries if e.path == named[0])
    return Candidate(entry.path, entry.read(), entry.depth)


def _cells_of(entries: list[Entry], notebook: str) -> tuple[CellStart, ...]:
    if not notebook:
        return ()
    entry = next(e for e in entries if e.path == notebook)
    return _notebook(entry.read()).cells


def _from_folder(folder: Path, lab: Lab, student: bool = False) -> SubmissionFiles:
    with contextlib.ExitStack() as opened:
        return _choose_files(_folder_entries(folder, opened), lab, student)


def _from_zip(archive: Path, lab: Lab, student: bool = False) -> SubmissionFiles:
    with contextlib.ExitStack() as opened:
        return _choose_files(_zip_entries(archive, opened), lab, student)


# A notebook saved as a script: Jupyter's `# In[ ]:` cell markers, or IPython calls.
_CELL_MARK = b"# In["
_IPYTHON_CALL = b"get_ipython()"


def _is_cell_mark(line: bytes) -> bool:
    """`# In[ ]:` / `# In[12]:` at the start of a line, read without a regular expression."""
    if not line.startswith(_CELL_MARK):
        return False
    inside, closed, _ = line[len(_CELL_MARK):].partition(b"]:")
    return bool(closed) and not inside.strip(b" 0123456789")


def is_export(source: bytes) -> bool:
    """Whether a file is a notebook saved as a script: a line that is a cell marker or starts
    (after its indentation) with an IPython call. One pass over the lines, each looked at once:
    linear in the file, where `^\\s*get_ipython` under re.M backtracked over every run of blank
    lines from each of its line starts (a 1 MiB file of newlines: hours)."""
    if _CELL_MARK not in source and _IPYTHON_CALL not in source:  # most files: one search
        return False
    return any(_is_cell_mark(line) or line.lstrip().startswith(_IPYTHON_CALL)
               for line in source.split(b"\n"))  # lines as re.M sees them: \r ends none


def clean_export(source: bytes) -> bytes:
    """A Colab or Jupyter `.py` export as plain Python: each `get_ipython()` line (and, if the
    file still does not parse, each `%magic` and `!shell` line) becomes `pass` at its own
    indentation, so blocks and line numbers stay as the student wrote them. Other files are
    returned unchanged."""
    if not is_export(source):
        return source
    text = source.decode("utf-8", errors="replace")
    lines = [_as_pass(line) if line.lstrip().startswith("get_ipython()") else line
             for line in text.splitlines()]
    try:
        ast.parse("\n".join(lines))
    except PARSE_ERRORS:
        lines = [_as_pass(line) if line.lstrip().startswith(("%", "!")) else line
                 for line in lines]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _as_pass(line: str) -> str:
    return line[: len(line) - len(line.lstrip())] + "pass"


def notebook_code(raw: bytes) -> str:
    """The code cells of a notebook joined into one module; IPython magics are left out."""
    return _notebook(raw).code


def _notebook(raw: bytes) -> NotebookModule:
    try:
        return notebook_module(raw)
    except NotebookTooDeep as exc:
        raise Ungradable("unreadable-submission",
                         reason=_why("why-notebook-too-deep", limit=exc.limit)) from None
    except NotebookError as exc:
        raise Ungradable("unreadable-submission", reason=_why("why-bad-notebook", error=str(exc))) from exc


@functools.lru_cache(maxsize=8)
def _given_code(lab: Lab) -> frozenset[str]:
    return untouched_code(lab, notebook_bytes)


def notebook_bytes(raw: bytes) -> bytes:
    """A notebook's code cells joined into one module, as bytes (what candidates compare)."""
    return notebook_code(raw).encode("utf-8")


def read_files(path: Path, lab: Lab) -> dict[str, bytes]:
    """The lab's files from a folder, zip, bare .py file or notebook."""
    return read_submission(path, lab).files


def read_submission(path: Path, lab: Lab, student: bool = False) -> SubmissionFiles:
    """The lab's files from a folder, zip, bare .py file or notebook, with where the main file
    came from; `student`: a student's own check (see `_choose_files`, `_beside_notebook`)."""
    if path.is_dir():
        return _from_folder(path, lab, student)
    if not path.is_file():
        raise Ungradable("unreadable-submission", reason=_why("why-missing", path=str(path)))
    if path.suffix == ".zip":
        return _from_zip(path, lab, student)
    if path.suffix == NOTEBOOK_SUFFIX:
        module = _notebook(_read_limited(path))
        unchecked = _beside_notebook(path, lab, module) if student else ()
        return SubmissionFiles({lab.main_file: module.code.encode("utf-8")}, path.name,
                               module.cells, unchecked)
    if path.suffix == ".py" and len(lab.files) == 1:
        return SubmissionFiles({lab.main_file: _read_limited(path)})
    if path.suffix == ".py" and path.name in lab.files:
        return _from_folder(path.parent, lab, student)
    raise Ungradable("unreadable-submission", reason=_why("why-not-a-form", file=path.name))


def _beside_notebook(path: Path, lab: Lab, module: NotebookModule) -> tuple[str, ...]:
    """The lab file beside a checked notebook, when the student edited it too (and it is not
    the notebook's code): the check says it left that file out."""
    beside = path.parent / lab.main_file
    if not beside.is_file() or beside.is_symlink():
        return ()
    code = beside.read_bytes()
    same = normal_code(code) == normal_code(module.code.encode("utf-8"))
    return () if same or code_digest(code) in _given_code(lab) else (lab.main_file,)


def digest(files: dict[str, bytes]) -> str:
    """A content digest of the submission's files, stable across runs."""
    hasher = hashlib.sha256()
    for name in sorted(files):
        hasher.update(name.encode() + b"\0" + files[name] + b"\0")
    return "sha256:" + hasher.hexdigest()


def prepare(submission: Submission, lab: Lab, scratch_root: Path,
            student: bool = False) -> PreparedSubmission:
    """Copy the submission's lab files into a fresh scratch folder under scratch_root
    (`student`: a student's own check, which checks one of two edited candidates)."""
    found, files, flags = _read_within_budget(submission, lab, student)
    workdir = Path(tempfile.mkdtemp(prefix=f"{submission.id}-", dir=scratch_root))
    os.chmod(workdir, 0o755)
    for name in lab.support_files:
        (workdir / name).write_bytes((lab.student_dir / name).read_bytes())
    for name, content in files.items():
        (workdir / name).write_bytes(content)
    return PreparedSubmission(submission.id, source_label(submission), digest(files), workdir,
                              tuple(flags), submission.meta,
                              notebook=found.notebook.rsplit("/", 1)[-1], cells=found.cells,
                              unchecked=found.unchecked,
                              other_lab=other_lab(lab, files[lab.main_file], notebook_bytes)
                              if lab.main_file in files else None)


def _read_within_budget(submission: Submission, lab: Lab, student: bool) -> tuple[
        SubmissionFiles, dict[str, bytes], list[dict[str, Any]]]:
    """The submission's files as read, cleaned and scanned, within its intake budget
    (grader.intake.limits): past it, or when a parser gives up on its text (nesting past the
    interpreter's limits), the submission is ungradable, never the grader's error."""
    try:
        with budget():
            found = read_submission(submission.source, lab, student)
            files = {name: clean_export(content) if name.endswith(".py") else content
                     for name, content in found.files.items()}
            charge()
            flags = scan_files(files)
            charge()
    except IntakeOverrun as exc:
        raise Ungradable("unreadable-submission",
                         reason=_why("why-intake-budget", limit=int(exc.limit_s))) from None
    except (RecursionError, MemoryError) as exc:
        raise Ungradable("unreadable-submission", reason=_why(
            "why-too-complex", error=type(exc).__name__)) from None
    return found, files, flags


def source_label(submission: Submission) -> str:
    """What the score document records as the submission's source."""
    return str(submission.meta.get("label") or submission.source)
