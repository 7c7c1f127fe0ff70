"""Turning what a student handed in (folder, zip, bare file, notebook) into a clean scratch folder.

Only the lab's own files are copied: nothing else a submission ships (a conftest.py, a
json.py, a sitecustomize.py) ever reaches the sandbox.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from grader.labs import Lab
from grader.policy import scan_files

MAX_FILE_BYTES = 1 << 20
SKIPPED_DIRS = {"__MACOSX", "__pycache__", ".git", ".ipynb_checkpoints"}


class Ungradable(Exception):
    """The submission cannot be graded at all; carries a catalogue detail."""

    def __init__(self, kind: str, **params: Any) -> None:
        super().__init__(f"{kind}: {params}")
        self.detail = {"kind": kind, "params": params}


@dataclass(frozen=True)
class Submission:
    """A submission as given on the command line."""

    id: str
    source: Path


@dataclass(frozen=True)
class PreparedSubmission:
    """A submission copied into its own scratch folder, ready for the sandbox."""

    id: str
    source: str
    digest: str
    workdir: Path
    flags: tuple[dict[str, Any], ...] = ()  # policy notes from reading the files (grader.policy)


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
    taken: set[str] = set()
    result = []
    for path in paths:
        base = candidate = submission_id(path, lab)
        suffix = 1
        while candidate in taken:
            suffix += 1
            candidate = f"{base}-{suffix}"
        taken.add(candidate)
        result.append(Submission(candidate, path))
    return result


def _read_limited(path: Path) -> bytes:
    if path.is_symlink():  # a link could point at anything the grader can read
        raise Ungradable("unreadable-submission", reason=f"{path.name} is a symbolic link")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise Ungradable("too-large", file=path.name, limit=MAX_FILE_BYTES)
    return path.read_bytes()


def _from_folder(folder: Path, lab: Lab) -> dict[str, bytes]:
    files = {}
    for name in lab.files:
        candidates = [folder / name] if (folder / name).is_file() else []
        if not candidates:
            root = folder.resolve()
            candidates = sorted(
                (p for p in folder.rglob(name) if p.is_file() and not SKIPPED_DIRS & set(p.parts)
                 and p.resolve().is_relative_to(root)),
                key=lambda p: (len(p.parts), str(p)),
            )
        if not candidates:
            raise Ungradable("missing-file", file=name)
        files[name] = _read_limited(candidates[0])
    return files


def _from_zip(archive: Path, lab: Lab) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = [m for m in bundle.infolist() if not m.is_dir()]
            files = {}
            for name in lab.files:
                matches = sorted(
                    (m for m in members
                     if m.filename.rsplit("/", 1)[-1] == name
                     and not SKIPPED_DIRS & set(m.filename.split("/"))),
                    key=lambda m: (m.filename.count("/"), m.filename),
                )
                if not matches:
                    raise Ungradable("missing-file", file=name)
                if matches[0].file_size > MAX_FILE_BYTES:
                    raise Ungradable("too-large", file=name, limit=MAX_FILE_BYTES)
                files[name] = bundle.read(matches[0])
            return files
    except (zipfile.BadZipFile, OSError) as exc:
        raise Ungradable("unreadable-submission", reason=f"not a readable zip ({exc})") from exc


def _cell_code(source: str) -> str:
    """A code cell as module code: cell magics (`%%...`) drop the cell, line magics and shell
    lines (`%...`, `!...`) are dropped only when the cell is not valid Python as it stands,
    so a `%` at the start of a line inside a string survives."""
    if source.lstrip().startswith("%%"):
        return ""
    try:
        ast.parse(source)
        return source
    except SyntaxError:
        return "\n".join(line for line in source.splitlines()
                         if not line.lstrip().startswith(("%", "!")))


def notebook_code(raw: bytes) -> str:
    """The code cells of a notebook joined into one module; IPython magics are dropped."""
    try:
        notebook = nbformat.reads(raw.decode("utf-8"), as_version=4)
    except Exception as exc:  # nbformat raises many types for a broken notebook
        raise Ungradable("unreadable-submission", reason=f"not a readable notebook ({exc})") from exc
    cells = [_cell_code(cell.source) for cell in notebook.cells if cell.cell_type == "code"]
    return "\n\n".join(cells) + "\n"


def read_files(path: Path, lab: Lab) -> dict[str, bytes]:
    """The lab's files from a folder, zip, bare .py file or notebook."""
    if path.is_dir():
        return _from_folder(path, lab)
    if not path.is_file():
        raise Ungradable("unreadable-submission", reason=f"{path} does not exist")
    if path.suffix == ".zip":
        return _from_zip(path, lab)
    if path.suffix == ".ipynb":
        return {lab.main_file: notebook_code(_read_limited(path)).encode("utf-8")}
    if path.suffix == ".py" and len(lab.files) == 1:
        return {lab.main_file: _read_limited(path)}
    if path.suffix == ".py" and path.name in lab.files:
        return _from_folder(path.parent, lab)
    raise Ungradable("unreadable-submission", reason=f"{path.name} is not a folder, zip, .py or .ipynb")


def digest(files: dict[str, bytes]) -> str:
    """A content digest of the submission's files, stable across runs."""
    hasher = hashlib.sha256()
    for name in sorted(files):
        hasher.update(name.encode() + b"\0" + files[name] + b"\0")
    return "sha256:" + hasher.hexdigest()


def prepare(submission: Submission, lab: Lab, scratch_root: Path) -> PreparedSubmission:
    """Copy the submission's lab files into a fresh scratch folder under scratch_root."""
    files = read_files(submission.source, lab)
    workdir = Path(tempfile.mkdtemp(prefix=f"{submission.id}-", dir=scratch_root))
    os.chmod(workdir, 0o755)
    for name in lab.support_files:
        (workdir / name).write_bytes((lab.student_dir / name).read_bytes())
    for name, content in files.items():
        (workdir / name).write_bytes(content)
    return PreparedSubmission(submission.id, str(submission.source), digest(files), workdir,
                              tuple(scan_files(files)))
