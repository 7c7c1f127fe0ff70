"""What goes back to a course after grading: an LMS download graded without --lms refused, one
total per student rounded once whatever the platform, and each student's feedback zipped so that
Canvas's "Re-Upload Submissions" and Moodle's "Upload multiple feedback files in a zip" attach it
to that student (read by ports of the LMSs' own parsers: canvas_importer.py, moodle_importer.py).
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import canvas_importer
import moodle_importer
import pytest
from lms_archives import (
    BUGGY,
    CANVAS_FILES,
    SOLUTION,
    STUB,
    canvas_export,
    moodle_export,
    notebook,
    write_zip,
    zipped,
)

from grader.platforms import gradescope
from grader.results.gradebook import scaled
from grader.results.lms import fill_in
from grader.results.lms.registry import download_naming

ROOT = Path(__file__).resolve().parents[2]
LMS_DATA = ROOT / "tests" / "data" / "lms"


def grader(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`python -m grader ARGS` as an instructor runs it, in English."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LANGUAGE")}
    env.update(GRADER_LANG="en", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


# --- an LMS download graded without --lms ------------------------------------------------------


def unpacked(export: Path, folder: Path) -> Path:
    """The download unpacked as an instructor would (`unzip`), without the grader's help."""
    shutil.unpack_archive(export, folder, "zip")
    return folder


@pytest.mark.parametrize("kind", ["canvas", "moodle"])
def test_a_download_graded_without_lms_is_refused_naming_the_option(tmp_path: Path,
                                                                   kind: str) -> None:
    """Its zip, its unpacked folder, and its entries one by one (`DIR/*`, what the hint for a
    folder of student folders suggests) are each refused in one line naming --lms KIND, before
    any grading: graded anyway, one student's files would be several students."""
    export = canvas_export(tmp_path / "in") if kind == "canvas" else moodle_export(tmp_path / "in")
    folder = unpacked(export, tmp_path / "unpacked")
    entries = sorted(folder.iterdir())
    assert download_naming(entries) == kind == download_naming([export])
    for given in ([export], [folder], entries):
        result = grader("grade", "lab01_graph", *given, "--out", tmp_path / "out")
        assert result.returncode == 2, result
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert f"--lms {kind}" in result.stderr and not (tmp_path / "out").exists(), result.stderr


def test_submissions_not_named_as_a_download_are_not_taken_for_one(tmp_path: Path) -> None:
    """One student's zip, student folders, and files whose names merely hold numbers."""
    one = write_zip(tmp_path / "ana.zip", {"lab01_graph/value.py": SOLUTION,
                                          "lab01_graph/notes_2_3.txt": b""})
    students = []
    for name in ("ana", "ben_2", "carla_2024_v2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "value.py").write_bytes(SOLUTION)
        students.append(tmp_path / name)
    assert download_naming([one]) is None
    assert download_naming(students) is None
    # a single Canvas-named file is one submission as given (a class needs two)
    [name] = [n for n in CANVAS_FILES if n.endswith("value.py")][:1]
    assert download_naming([tmp_path / name]) is None


# --- one rounding ------------------------------------------------------------------------------


def doc_of(passed: int, total: int) -> dict:
    """A graded document of `total` checks of weight 1, `passed` of them passed."""
    doc = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    template = next(c for c in doc["checks"] if c["status"] == "passed")
    checks = []
    for index in range(total):
        check = copy.deepcopy(template)
        ok = index < passed
        check.update(max_score=1.0, score=1.0 if ok else 0.0, status="passed" if ok else "failed")
        checks.append(check)
    return {**doc, "checks": checks, "score": float(passed), "max_score": float(total)}


@pytest.mark.parametrize(("passed", "total", "points", "expected"), [
    (98, 119, 10.0, "8.24"),   # issue 33: Gradescope's rounded checks added up to 8.26
    (1, 3, 10.0, "3.33"), (2, 3, 10.0, "6.67"), (1, 8, 1.0, "0.12"), (119, 119, 7.5, "7.5"),
])
def test_every_platform_gives_the_total_rounded_once(passed: int, total: int, points: float,
                                                     expected: str) -> None:
    """The same number in Gradescope's recorded score, Canvas's filled export and Moodle's
    worksheet: the exact share of the points rounded once to hundredths."""
    doc = doc_of(passed, total)
    doc["submission"] = {**doc["submission"], "student_id": "1001", "lms": "canvas"}
    assert scaled(doc, points) == float(expected)
    assert gradescope.results(doc, points=points)["score"] == float(expected)
    header = "Student,ID,SIS User ID,SIS Login ID,Section,Lab (4321)\n"
    export = header + f"    Points Possible,,,,,{points}\n\"Doe, Jane\",1001,S1,jd,A,\n"
    filled = fill_in.fill(export.encode(), "e.csv", [doc], "lab01_graph", None, "4321").text
    assert filled.splitlines()[-1].rsplit(",", 1)[1] == expected, filled


# --- feedback back into the LMS ----------------------------------------------------------------

SYNTAX_ERROR = SOLUTION + b"\ndef broken(:\n"


@dataclass(frozen=True)
class CanvasStudent:
    """One student of a generated Canvas download: what "Download Submissions" names their
    files (content_zipper.rb: sortable name lower-cased, non-word characters dropped), the
    attachments of their current attempt, and any older attempt's."""

    sortable: str
    user: int
    files: dict[int, tuple[str, bytes]]          # attachment id -> (display name, content)
    late: bool = False
    earlier: tuple[int, ...] = ()               # attachments of an older attempt (not zipped)

    def entries(self) -> dict[str, bytes]:
        """The download's entries of this student."""
        prefix = re.sub(r"[^\w]", "", self.sortable, flags=re.UNICODE).lower()
        late = "_LATE" if self.late else ""
        return {f"{prefix}{late}_{self.user}_{attachment}_{display}": content
                for attachment, (display, content) in self.files.items()}


def canvas_class() -> list[CanvasStudent]:
    """17 students: accents, an apostrophe, a sortable name with digits, late ones, a second
    attempt (Canvas renamed its file value-1.py and zips only it), two files in one attempt, a
    notebook, a zip, a name with spaces, a syntax error, an empty file, the stub, a bug."""
    students = [
        CanvasStudent("Silva, Julia", 3001, {8001: ("value.py", SOLUTION)}, late=True),
        CanvasStudent("Núñez, José", 3002, {8002: ("value.py", BUGGY)}),
        CanvasStudent("O'Brien, Ana María", 3003, {8013: ("value-1.py", SOLUTION)},
                      earlier=(8003,)),
        CanvasStudent("Ørsted, Ída", 3004, {8004: ("my value.py", SOLUTION)}, late=True),
        CanvasStudent("Lee, Ann", 3005, {8005: ("value.py", SYNTAX_ERROR)}),
        CanvasStudent("Kim, Min", 3006, {8006: ("value.py", b"")}),
        CanvasStudent("Wu, Li", 3007, {8007: ("value.py", STUB)}),
        CanvasStudent("Smith 2nd, Bob", 3008, {8008: ("lab01.zip",
                                                      zipped({"lab01_graph/value.py": SOLUTION}))}),
        CanvasStudent("García, Lucía", 3009, {8009: ("lab01_graph.ipynb", notebook(SOLUTION))}),
        CanvasStudent("Ngo, Tam", 3010, {8010: ("value.py", SOLUTION),
                                        8011: ("value-1.py", SOLUTION)}),
    ]
    students += [CanvasStudent(f"Student{chr(65 + i)}, Test", 3011 + i,
                               {8020 + i: ("value.py", BUGGY if i % 2 else SOLUTION)})
                 for i in range(7)]
    return students


def canvas_download(folder: Path, students: list[CanvasStudent]) -> Path:
    """The zip "Download Submissions" gives, with a text entry only student and macOS litter."""
    files: dict[str, bytes] = {}
    for student in students:
        files.update(student.entries())
    files["parkjo_3099_text.html"] = b"<p>on paper</p>"
    folder.mkdir(parents=True, exist_ok=True)
    return write_zip(folder / "submissions.zip", files)


def graded_download(export: Path, kind: str, out: Path, *options: str
                    ) -> tuple[subprocess.CompletedProcess[str], dict[str, Path]]:
    """`grade --lms KIND` out of 10 points, which must finish and name the gradebook file and
    the feedback zip; the run and its report folders by the LMS's student id."""
    result = grader("grade", "lab01_graph", export, "--lms", kind, "--out", out,
                    "--workers", "2", "--points", "10", *options)
    assert result.returncode == 0, result.stderr[-3000:]
    gradebook = {"canvas": "canvas_gradebook.csv", "moodle": "moodle_worksheet.csv"}[kind]
    assert gradebook in result.stdout and f"{kind}_feedback.zip" in result.stdout, result.stdout
    return result, {json.loads(p.read_text(encoding="utf-8"))["submission"]["student_id"]:
                    p.parent for p in out.glob("*/scores.json")}


@pytest.mark.slow  # a class graded through the command line
@pytest.mark.parametrize("how", ["one run", "two shards merged"])
def test_a_canvas_download_goes_back_as_canvas_re_upload_reads_it(tmp_path: Path,
                                                                   how: str) -> None:
    """17 students graded with --lms canvas (in one run, or in two shards joined by `merge`):
    OUT/canvas_feedback.zip, read by the port of canvas-lms app/models/assignment.rb
    `generate_comments_from_files` / `infer_comment_context_from_filename`
    (tests/platforms/canvas_importer.py), attaches to each student's submission exactly their
    own feedback.html, and ignores no file; the text-entry student (no attachment to match) is
    named on the terminal; the late ones are said."""
    students = canvas_class()
    export = canvas_download(tmp_path / "in", students)
    out = tmp_path / "out"
    column = ("--canvas-column", "Lab 01 (4321)")
    if how == "one run":
        result, reports = graded_download(export, "canvas", out, *column)
    else:
        for shard in ("1/2", "2/2"):
            graded_download(export, "canvas", tmp_path / shard[0], *column, "--shard", shard)
        result = grader("merge", tmp_path / "1", tmp_path / "2", "--out", out)
        assert result.returncode == 0 and "canvas_feedback.zip" in result.stdout, result
        reports = {json.loads(p.read_text(encoding="utf-8"))["submission"]["student_id"]:
                   p.parent for p in out.glob("*/scores.json")}
    assert "parkjo_3099" in result.stderr, result.stderr  # nothing of theirs can be attached
    assert "2 submissions were marked late" in result.stdout, result.stdout
    assert len(reports) == len(students) + 1
    assignment = canvas_importer.CanvasAssignment(
        {s.user: set(s.files) for s in students},
        {attachment: display for s in students for attachment, (display, _) in s.files.items()}
        | {old: "value.py" for s in students for old in s.earlier})
    zipped_feedback = (out / "canvas_feedback.zip").read_bytes()
    comments, ignored = canvas_importer.generate_comments_from_files(zipped_feedback, assignment)
    assert ignored == []
    assert sorted(comments) == sorted(s.user for s in students)
    with zipfile.ZipFile(io.BytesIO(zipped_feedback)) as bundle:
        for student in students:
            [entry] = comments[student.user]
            assert bundle.read(entry) == (reports[str(student.user)] / "feedback.html").read_bytes()
    rows = {row["student_id"]: row for row in csv.DictReader(
        io.StringIO((out / "class.csv").read_text(encoding="utf-8")))}
    assert {k for k, row in rows.items() if row["late"] == "yes"} == {"3001", "3004"}


def test_the_canvas_oracle_ignores_what_canvas_would_ignore() -> None:
    """The port's own rule, on names Canvas's parser reads otherwise: an older attempt's
    attachment, a digit-only token before the ids, macOS litter, an anonymous download."""
    assignment = canvas_importer.CanvasAssignment({3003: {8013}}, {8013: "value-1.py",
                                                                    8003: "value.py"})
    read = canvas_importer.infer_comment_context_from_filename
    assert read("obrienanamaria_3003_8013_feedback.html", assignment) is not None
    assert read("obrienanamaria_3003_8003_feedback.html", assignment) is None  # older attempt
    assert read("smith_2_3003_8013_feedback.html", assignment) is None  # 2 read as the user
    assert read("__MACOSX/._obrien_3003_8013_feedback.html", assignment) is None
    assert read("anon_x7Hq2_8013_feedback.html", assignment) is None
    assert read("obrien_3003_8013_link.html", assignment) is None


MOODLE_STUDENTS = [
    ("Ana María Pérez", "400001", {"value.py": SOLUTION}),
    ("José Núñez", "400002", {"value.py": BUGGY}),
    ("Ída Ørsted", "400003", {"lab01_graph/value.py": SOLUTION}),
    ("Jean-Luc O'Neil", "400004", {"value.py": SYNTAX_ERROR}),
    ("Min Kim", "400005", {"value.py": b""}),
    ("Li Wu", "400006", {"lab01_graph.ipynb": notebook(SOLUTION)}),
    # a second attempt: Moodle's download holds only the latest files
    ("Tam Ngo", "400007", {"value.py": SOLUTION, "feedback.html": b"<p>my notes</p>"}),
    *[(f"Student {chr(65 + i)} Test", str(400010 + i), {"value.py": BUGGY if i % 3 else SOLUTION})
      for i in range(9)],
]


@pytest.mark.slow  # a class graded through the command line
def test_a_moodle_download_goes_back_as_moodles_feedback_import_reads_it(tmp_path: Path) -> None:
    """16 participants (Moodle 4.1+ folders) graded with --lms moodle: OUT/moodle_feedback.zip,
    read by the port of mod/assign/feedback/file/importziplib.php `is_valid_filename_for_import`
    and `import_zip_files` (tests/platforms/moodle_importer.py), gives each participant exactly
    their own feedback.html as a feedback file (even Tam, who handed in a file of that name)."""
    files = {f"{name}_{participant}_assignsubmission_file/{path}": content
             for name, participant, held in MOODLE_STUDENTS for path, content in held.items()}
    export = write_zip(tmp_path / "CS101-Lab 01-12345.zip", files)
    out = tmp_path / "out"
    _, reports = graded_download(export, "moodle", out, "--lang", "es")
    participants = {int(p): 9000 + i for i, (_, p, _) in enumerate(MOODLE_STUDENTS)}
    submitted = {participants[int(p)]: {path.rsplit("/", 1)[-1]: c for path, c in held.items()}
                 for _, p, held in MOODLE_STUDENTS}
    plugins = {("assignsubmission", "file"), ("assignsubmission", "onlinetext"),
               ("assignfeedback", "file"), ("assignfeedback", "comments")}
    imported = moodle_importer.import_zip_files((out / "moodle_feedback.zip").read_bytes(),
                                                participants, plugins, submitted)
    assert sorted(imported) == sorted(participants.values())
    for _, participant, _ in MOODLE_STUDENTS:
        assert imported[participants[int(participant)]] == {
            "feedback.html": (reports[participant] / "feedback.html").read_bytes()}


def test_the_moodle_oracle_reads_names_as_moodle_does() -> None:
    """The port's own rule: both folder forms and the flat form match; an underscore in the full
    name shifts the pieces (no match); hidden files and unknown participants are skipped."""
    participants, plugins = {12: 7}, {("assignsubmission", "file")}
    read = moodle_importer.is_valid_filename_for_import
    assert read("Ana Pérez_12_assignsubmission_file/feedback.html", participants, plugins) == (
        7, ("assignsubmission", "file"), "/feedback.html")
    assert read("Ana Pérez_12_assignsubmission_file_/f.html", participants, plugins)[2] == "/f.html"
    assert read("Ana Pérez_12_assignsubmission_file_f.html", participants, plugins)[2] == "f.html"
    assert read("Ana_Pérez_12_assignsubmission_file/f.html", participants, plugins) is None
    assert read("Ana Pérez_12_assignsubmission_file/.f.html", participants, plugins) is None
    assert read("Ana Pérez_13_assignsubmission_file/f.html", participants, plugins) is None


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_late_submission_is_marked_on_the_dashboard_and_in_class_csv(lang: str) -> None:
    """The dashboard's row of a submission the LMS marked late carries the mark, in the
    dashboard's language; an on-time one does not; class.csv says `yes` in its late column."""
    from html.parser import HTMLParser

    from grader.results.gradebook import class_csv
    from grader.results.i18n import Catalogue
    from grader.results.render import render_dashboard

    base = json.loads((ROOT / "tests" / "data" / "score_mixed.json").read_text(encoding="utf-8"))
    late, on_time = copy.deepcopy(base), copy.deepcopy(base)
    late["submission"].update(id="silvajulia_3001", late=True)
    on_time["submission"].update(id="nunezjose_3002")
    page = render_dashboard([late, on_time], lang)

    class Rows(HTMLParser):
        """Each table row's text, and which rows hold a `late` mark."""

        def __init__(self) -> None:
            super().__init__()
            self.rows: list[list[str]] = []
            self.marked: set[int] = set()

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "tr":
                self.rows.append([])
            if tag == "span" and ("class", "late") in attrs:
                self.marked.add(len(self.rows) - 1)

        def handle_data(self, data: str) -> None:
            if self.rows:
                self.rows[-1].append(data)

    parser = Rows()
    parser.feed(page)
    marked = {"".join(parser.rows[i]) for i in parser.marked}
    word = Catalogue.load(lang).text("platforms.dashboard.late")
    assert len(marked) == 1 and "silvajulia_3001" in marked.pop() and word in page
    late_column = {row["submission"]: row["late"]
                   for row in csv.DictReader(io.StringIO(class_csv([late, on_time])))}
    assert late_column == {"silvajulia_3001": "yes", "nunezjose_3002": ""}
