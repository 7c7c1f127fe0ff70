"""Tests for grader.intake.lms: Canvas, Moodle and one-folder-per-student exports read back."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lms_archives import (
    BUGGY,
    CANVAS_EXPECTED,
    MOODLE_EXPECTED,
    SOLUTION,
    canvas_export,
    moodle_export,
    write_zip,
)

from grader.intake import lms
from grader.intake.candidates import named_as
from grader.labs import get_lab

LAB = get_lab("lab01_graph")


@pytest.mark.parametrize(("name", "expected"), [
    ("doejane_1001_5001_value.py", ("doejane", None, "1001", "5001", "value.py")),
    ("doejane_LATE_1001_5001_value.py", ("doejane", "LATE", "1001", "5001", "value.py")),
    ("doejane_late_1001_5001_value.py", ("doejane", "late", "1001", "5001", "value.py")),
    ("smith2jo_77_9_my_2_value.py", ("smith2jo", None, "77", "9", "my_2_value.py")),
    ("LATE_anon_x7Hq2_9_value.py", (None, "LATE", "anon_x7Hq2", "9", "value.py")),
    ("núñezjosé_5_6_lab01_graph.ipynb", ("núñezjosé", None, "5", "6", "lab01_graph.ipynb")),
])
def test_canvas_names_are_split_as_canvas_builds_them(name: str, expected: tuple) -> None:
    match = lms.CANVAS_FILE.match(name)
    assert match is not None, name
    assert (match["name"], match["late"], match["user"], match["attachment"],
            match["original"]) == expected


@pytest.mark.parametrize(("original", "base"), [
    ("value.py", "value.py"), ("value-1.py", "value.py"), ("value-12.py", "value.py"),
    ("lab01-2.tar.gz", "lab01.tar.gz"), ("my-file.py", "my-file.py"),
])
def test_canvas_second_file_of_one_name_is_read_as_that_name(original: str, base: str) -> None:
    """Attachment.make_unique_filename: `<base>-<n><extensions>`."""
    item = lms._CanvasFile(Path(original), "x", "1", False, 1, original)
    assert item.base == base
    assert named_as(original, "value.py") == (base == "value.py")


def test_canvas_export_gives_one_member_per_user_with_ids_and_names(tmp_path: Path) -> None:
    members = lms.read_export("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
    got = {m.submission_id: (m.student_id, m.name, m.late, m.duplicates) for m in members}
    assert got == {e.submission_id: (e.student_id, e.name, e.late, e.duplicates)
                   for e in CANVAS_EXPECTED}


def test_canvas_renamed_upload_alone_is_the_source(tmp_path: Path) -> None:
    """content_zipper.rb zips the current attempt only: a lone value-2.py is that attempt."""
    members = lms.read_export("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
    jane = next(m for m in members if m.student_id == "1001")
    assert jane.source.name == "doejane_1001_5090_value-2.py" and not jane.duplicates
    assert jane.source.read_bytes() == SOLUTION


def test_canvas_files_of_one_attempt_are_staged_together_under_their_names(tmp_path: Path) -> None:
    members = lms.read_export("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
    ann = next(m for m in members if m.student_id == "1003")
    assert sorted(p.name for p in ann.source.iterdir()) == ["lab01_graph.ipynb", "value.py"]
    tam = next(m for m in members if m.student_id == "1009")
    staged = {p.name: p.read_bytes() for p in tam.source.iterdir()}
    assert staged == {"value.py": SOLUTION, "value-1.py": BUGGY}


@pytest.mark.parametrize("form", ["4.1", "older", "mixed"])
def test_moodle_download_gives_one_member_per_participant_in_every_form(tmp_path: Path,
                                                                         form: str) -> None:
    """downloader.php (4.1+: `..._assignsubmission_file/`), locallib.php before 4.1
    (`..._assignsubmission_file_/`), and "download as files" mixed in: nobody is skipped."""
    members = lms.read_export("moodle", moodle_export(tmp_path / "in", form), tmp_path / "s")
    got = {m.submission_id: (m.student_id, m.name) for m in members}
    assert got == {e.submission_id: (e.student_id, e.name) for e in MOODLE_EXPECTED}
    bo = next(m for m in members if m.student_id == "200004")
    held = sorted(p.name for p in bo.source.rglob("*")) if bo.source.is_dir() else [bo.source.name]
    assert any(name.endswith("lab01_graph.ipynb") for name in held), held


def test_moodle_entry_named_neither_way_is_an_error_not_skipped(tmp_path: Path) -> None:
    export = write_zip(tmp_path / "odd.zip", {
        "Jane Doe_200001_assignsubmission_file/value.py": SOLUTION,
        "Ann Lee_assignsubmission_file/value.py": SOLUTION,
    })
    with pytest.raises(lms.ExportError, match="Ann Lee_assignsubmission_file"):
        lms.read_export("moodle", export, tmp_path / "scratch")


def test_moodle_flat_download_is_grouped_by_participant(tmp_path: Path) -> None:
    export = write_zip(tmp_path / "flat.zip", {
        "Jane Doe_200001_assignsubmission_file_value.py": SOLUTION,
        "Jane Doe_200001_assignsubmission_file_notes.txt": b"notes",
    })
    members = lms.read_export("moodle", export, tmp_path / "scratch")
    assert [(m.student_id, m.name) for m in members] == [("200001", "Jane Doe")]
    assert sorted(p.name for p in members[0].source.iterdir()) == ["notes.txt", "value.py"]


def test_folders_export_gives_one_member_per_folder_or_zip(tmp_path: Path) -> None:
    for student in ("ana", "ben"):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "value.py").write_bytes(SOLUTION)
    write_zip(tmp_path / "class" / "carla.zip", {"value.py": SOLUTION})
    members = lms.read_export("folders", tmp_path / "class", tmp_path / "scratch")
    assert [m.submission_id for m in members] == ["ana", "ben", "carla"]


def test_an_export_that_is_not_the_lms_said_is_refused(tmp_path: Path) -> None:
    export = canvas_export(tmp_path / "in")
    with pytest.raises(lms.ExportError) as refused:
        lms.read_export("moodle", export, tmp_path / "scratch")
    assert refused.value.key == "not_moodle", refused.value


def test_unpack_refuses_paths_outside_and_links(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("../escape.py", b"x")
        bundle.writestr("/abs.py", b"x")
        link = zipfile.ZipInfo("link.py")
        link.external_attr = (0o120777 << 16)
        bundle.writestr(link, "/etc/passwd")
        bundle.writestr("ok/value.py", SOLUTION)
    folder = lms.unpack(archive, tmp_path / "scratch")
    found = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert found == ["ok/value.py"]
    assert not (tmp_path / "escape.py").exists()


def test_a_folder_of_student_folders_looks_like_a_class(tmp_path: Path) -> None:
    for student in ("ana", "ben"):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "value.py").write_bytes(SOLUTION)
    assert lms.guess_class(tmp_path / "class", LAB) == "folders"
    assert lms.guess_class(tmp_path / "class" / "ana", LAB) is None


@pytest.mark.parametrize("form", ["4.1", "older"])
def test_unpacked_canvas_and_moodle_downloads_look_like_classes(tmp_path: Path, form: str) -> None:
    canvas = lms.unpack(canvas_export(tmp_path / "c"), tmp_path / "cs")
    moodle = lms.unpack(moodle_export(tmp_path / "m", form), tmp_path / "ms")
    assert (lms.guess_class(canvas, LAB), lms.guess_class(moodle, LAB)) == ("canvas", "moodle")


def test_a_lab_folder_with_tests_is_one_submission(tmp_path: Path) -> None:
    folder = tmp_path / "lab01_graph"
    (folder / "tests").mkdir(parents=True)
    (folder / "value.py").write_bytes(SOLUTION)
    (folder / "tests" / "test_value.py").write_bytes(b"")
    assert lms.guess_class(folder, LAB) is None
