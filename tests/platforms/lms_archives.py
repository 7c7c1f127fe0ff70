"""Class exports built the way Canvas and Moodle name them, from the lab01 fixtures.

Canvas (lib/content_zipper.rb): `<sortable name, lower case, word chars>[_LATE]_<user id>_
<attachment id>_<display name>`, re-uploads named `<base>-<n><ext>`. Moodle (mod/assign
locallib.php, download_submissions): `<Full name>_<participant id>_assignsubmission_file_/...`.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = (ROOT / "solutions" / "lab01_graph" / "value.py").read_bytes()
STUB = (ROOT / "labs" / "lab01_graph" / "value.py").read_bytes()
STUB_NOTEBOOK = (ROOT / "labs" / "lab01_graph" / "lab01_graph.ipynb").read_bytes()
BUGGY = (ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-add" / "value.py").read_bytes()


def notebook(code: bytes) -> bytes:
    """A minimal notebook holding `code` in one code cell."""
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "markdown", "id": "intro", "metadata": {}, "source": "# Lab"},
                  {"cell_type": "code", "id": "code", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": code.decode("utf-8")}],
    }).encode("utf-8")


def zipped(files: dict[str, bytes]) -> bytes:
    """A zip holding `files` (path → content)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        for name, content in files.items():
            bundle.writestr(name, content)
    return buffer.getvalue()


def write_zip(path: Path, files: dict[str, bytes]) -> Path:
    """Write `files` as a zip at `path`."""
    path.write_bytes(zipped(files))
    return path


@dataclass(frozen=True)
class Expected:
    """What grading one student of a built export must give."""

    submission_id: str
    student_id: str
    name: str
    status: str
    full_marks: bool = False
    late: bool = False
    earlier: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()


CANVAS_FILES: dict[str, bytes] = {
    # Jane re-uploaded value.py twice: Canvas named the uploads value-1.py and value-2.py.
    "doejane_1001_5001_value.py": BUGGY,
    "doejane_1001_5040_value-1.py": STUB,
    "doejane_1001_5090_value-2.py": SOLUTION,
    "smithbob_LATE_1002_5002_value.py": BUGGY,
    # Ann handed in the engine and an edited notebook with other code: two candidates.
    "leeann_1003_5003_value.py": SOLUTION,
    "leeann_1003_5004_lab01_graph.ipynb": notebook(BUGGY),
    "garciajose_1004_5005_lab01_graph.ipynb": notebook(SOLUTION),
    "kimmin_1005_5006_lab01.zip": zipped({"lab01_graph/value.py": SOLUTION,
                                          "lab01_graph/lab01_graph.ipynb": STUB_NOTEBOOK}),
    "parkjo_1006_text.html": b"<p>I wrote it on paper</p>",
}
CANVAS_EXPECTED = (
    Expected("doejane_1001", "1001", "doejane", "graded", full_marks=True,
             earlier=("doejane_1001_5001_value.py", "doejane_1001_5040_value-1.py")),
    Expected("smithbob_1002", "1002", "smithbob", "graded", late=True),
    Expected("leeann_1003", "1003", "leeann", "ungradable",
             candidates=("lab01_graph.ipynb", "value.py")),
    Expected("garciajose_1004", "1004", "garciajose", "graded", full_marks=True),
    Expected("kimmin_1005", "1005", "kimmin", "graded", full_marks=True),
    Expected("parkjo_1006", "1006", "parkjo", "ungradable"),
)

MOODLE_FILES: dict[str, bytes] = {
    "Jane Doe_200001_assignsubmission_file_/value.py": SOLUTION,
    # The whole lab folder, given notebook untouched: not two candidates.
    "José Núñez_200002_assignsubmission_file_/lab01_graph/value.py": BUGGY,
    "José Núñez_200002_assignsubmission_file_/lab01_graph/lab01_graph.ipynb": STUB_NOTEBOOK,
    "Ann Lee_200003_assignsubmission_file_/value.py": SOLUTION,
    "Ann Lee_200003_assignsubmission_file_/old/value.py": BUGGY,
    "Bo Kim_200004_assignsubmission_file_/lab01_graph.ipynb": notebook(SOLUTION),
    "Bo Kim_200004_assignsubmission_onlinetext_/onlinetext.html": b"<p>see file</p>",
}
MOODLE_EXPECTED = (
    Expected("Jane_Doe_200001", "200001", "Jane Doe", "graded", full_marks=True),
    Expected("Jose_Nunez_200002", "200002", "José Núñez", "graded"),
    Expected("Ann_Lee_200003", "200003", "Ann Lee", "ungradable",
             candidates=("old/value.py", "value.py")),
    Expected("Bo_Kim_200004", "200004", "Bo Kim", "graded", full_marks=True),
)


def canvas_export(folder: Path) -> Path:
    """`submissions.zip` as Canvas's "Download Submissions" writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_zip(folder / "submissions.zip", CANVAS_FILES)


def moodle_export(folder: Path) -> Path:
    """The zip Moodle's "Download all submissions" writes (submissions in folders)."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_zip(folder / "CS101-Lab 01-12345.zip", MOODLE_FILES)
