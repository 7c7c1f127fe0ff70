"""Tests for grader.platforms.lms: Canvas, Moodle and one-folder-per-student exports read back."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lms_archives import (
    CANVAS_EXPECTED,
    MOODLE_EXPECTED,
    SOLUTION,
    canvas_export,
    moodle_export,
    write_zip,
)

from grader.labs import get_lab
from grader.platforms import lms

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


@pytest.mark.parametrize(("original", "base", "number"), [
    ("value.py", "value.py", 0), ("value-1.py", "value.py", 1), ("value-12.py", "value.py", 12),
    ("lab01-2.tar.gz", "lab01.tar.gz", 2), ("my-file.py", "my-file.py", 0),
])
def test_canvas_resubmission_suffix_is_read(original: str, base: str, number: int) -> None:
    item = lms._CanvasFile(Path(original), "x", "1", False, 1, original)
    assert (item.base, item.resubmission) == (base, number)


def test_canvas_export_gives_one_member_per_user_with_ids_and_names(tmp_path: Path) -> None:
    members = lms.read_export("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
    got = {m.submission_id: (m.student_id, m.name, m.late, m.earlier) for m in members}
    assert got == {e.submission_id: (e.student_id, e.name, e.late, e.earlier)
                   for e in CANVAS_EXPECTED}


def test_canvas_latest_attempt_is_the_source(tmp_path: Path) -> None:
    members = lms.read_export("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
    jane = next(m for m in members if m.student_id == "1001")
    assert jane.source.name == "doejane_1001_5090_value-2.py"
    assert jane.source.read_bytes() == SOLUTION


def test_canvas_student_with_two_files_is_staged_under_original_names(tmp_path: Path) -> None:
    members = lms.read_export("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
    ann = next(m for m in members if m.student_id == "1003")
    assert ann.source.is_dir()
    assert sorted(p.name for p in ann.source.iterdir()) == ["lab01_graph.ipynb", "value.py"]


def test_moodle_export_gives_one_member_per_participant(tmp_path: Path) -> None:
    members = lms.read_export("moodle", moodle_export(tmp_path / "in"), tmp_path / "scratch")
    got = {m.submission_id: (m.student_id, m.name) for m in members}
    assert got == {e.submission_id: (e.student_id, e.name) for e in MOODLE_EXPECTED}
    bo = next(m for m in members if m.student_id == "200004")
    assert bo.source.name == "Bo Kim_200004_assignsubmission_file_"


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


def test_unpacked_canvas_and_moodle_downloads_look_like_classes(tmp_path: Path) -> None:
    canvas = lms.unpack(canvas_export(tmp_path / "c"), tmp_path / "cs")
    moodle = lms.unpack(moodle_export(tmp_path / "m"), tmp_path / "ms")
    assert (lms.guess_class(canvas, LAB), lms.guess_class(moodle, LAB)) == ("canvas", "moodle")


def test_a_lab_folder_with_tests_is_one_submission(tmp_path: Path) -> None:
    folder = tmp_path / "lab01_graph"
    (folder / "tests").mkdir(parents=True)
    (folder / "value.py").write_bytes(SOLUTION)
    (folder / "tests" / "test_value.py").write_bytes(b"")
    assert lms.guess_class(folder, LAB) is None
