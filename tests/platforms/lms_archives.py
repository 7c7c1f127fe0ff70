"""Class exports built the way Canvas and Moodle name them, from the lab01 fixtures.

Canvas (lib/content_zipper.rb, `ContentZipper#add_upload_submission` and `get_filename`):
`<sortable name, lower case, word chars>[_LATE]_<user id>_<attachment id>_<display name>`, the
current attempt only; a second file of one display name is `<base>-<n><ext>`
(`Attachment.make_unique_filename`). Moodle: 4.1+ (mod/assign/classes/downloader.php,
`load_submissionplugin_filelist`, the names `downloader_test.php` expects)
`<Full name>_<participant id>_assignsubmission_file/...`; before 4.1 (mod/assign/locallib.php,
`download_submissions`) `..._assignsubmission_file_/...`; "download as files" (both)
`..._assignsubmission_file_<file>`. See tests/data/lms/README.md.
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
    duplicates: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()


CANVAS_FILES: dict[str, bytes] = {
    # Jane's third upload of value.py, renamed because the earlier ones are still in her files;
    # Canvas zips only the current attempt, so it is the only file.
    "doejane_1001_5090_value-2.py": SOLUTION,
    "smithbob_LATE_1002_5002_value.py": BUGGY,
    # Ann handed in the engine and an edited notebook with other code: two candidates.
    "leeann_1003_5003_value.py": SOLUTION,
    "leeann_1003_5004_lab01_graph.ipynb": notebook(BUGGY),
    "garciajose_1004_5005_lab01_graph.ipynb": notebook(SOLUTION),
    "kimmin_1005_5006_lab01.zip": zipped({"lab01_graph/value.py": SOLUTION,
                                          "lab01_graph/lab01_graph.ipynb": STUB_NOTEBOOK}),
    "parkjo_1006_text.html": b"<p>I wrote it on paper</p>",
    # Two files named value.py in one attempt: the same code (read as one), or not (ambiguous).
    "wuli_1008_5011_value.py": SOLUTION,
    "wuli_1008_5012_value-1.py": SOLUTION,
    "ngotam_1009_5013_value.py": SOLUTION,
    "ngotam_1009_5014_value-1.py": BUGGY,
}
CANVAS_EXPECTED = (
    Expected("doejane_1001", "1001", "doejane", "graded", full_marks=True),
    Expected("smithbob_1002", "1002", "smithbob", "graded", late=True),
    Expected("leeann_1003", "1003", "leeann", "ungradable",
             candidates=("lab01_graph.ipynb", "value.py")),
    Expected("garciajose_1004", "1004", "garciajose", "graded", full_marks=True),
    Expected("kimmin_1005", "1005", "kimmin", "graded", full_marks=True),
    Expected("parkjo_1006", "1006", "parkjo", "ungradable"),
    Expected("wuli_1008", "1008", "wuli", "graded", full_marks=True,
             duplicates=("wuli_1008_5011_value.py", "wuli_1008_5012_value-1.py")),
    Expected("ngotam_1009", "1009", "ngotam", "ungradable",
             duplicates=("ngotam_1009_5013_value.py", "ngotam_1009_5014_value-1.py"),
             candidates=("value-1.py", "value.py")),
)

def moodle_files(form: str) -> dict[str, bytes]:
    """The class's download as Moodle names it: form "4.1" (folders, no trailing underscore),
    "older" (folders ending in `_`), "files" (download as files: `<prefix>_<file name>`), or
    "mixed" (all three in one zip)."""
    students: list[tuple[str, str, dict[str, bytes]]] = [
        ("Jane Doe", "200001", {"value.py": SOLUTION}),
        # The whole lab folder, given notebook untouched: not two candidates.
        ("José Núñez", "200002", {"lab01_graph/value.py": BUGGY,
                                  "lab01_graph/lab01_graph.ipynb": STUB_NOTEBOOK}),
        ("Ann Lee", "200003", {"value.py": SOLUTION, "old/value.py": BUGGY}),
        ("Bo Kim", "200004", {"lab01_graph.ipynb": notebook(SOLUTION)}),
    ]
    files: dict[str, bytes] = {}
    kinds = {"mixed": ("4.1", "older", "4.1", "files")}.get(form, (form,) * len(students))
    for (name, participant, held), kind in zip(students, kinds, strict=True):
        plugins = [("file", path, content) for path, content in held.items()]
        if participant == "200004":
            plugins.append(("onlinetext", "onlinetext.html", b"<p>see file</p>"))
        for plugin, path, content in plugins:
            prefix = f"{name}_{participant}_assignsubmission_{plugin}"
            if kind == "files":  # the file's own name only, after the plugin's "_"
                files[f"{prefix}_{path.rsplit('/', 1)[-1]}"] = content
            else:
                files[f"{prefix}{'/' if kind == '4.1' else '_/'}{path}"] = content
    return files


MOODLE_FILES = moodle_files("older")
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


def moodle_export(folder: Path, form: str = "older") -> Path:
    """The zip Moodle's "Download all submissions" writes, in the given form (`moodle_files`)."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_zip(folder / "CS101-Lab 01-12345.zip", moodle_files(form))
