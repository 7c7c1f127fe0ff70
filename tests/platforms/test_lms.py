"""Tests for reading a class export: Canvas and Moodle downloads (each its target's naming,
`grader.results.lms.canvas` and `.moodle`, reached through the registry) and one folder per
student (`grader.intake.lms`) read back."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lms_archives import (
    BUGGY,
    CANVAS_EXPECTED,
    CANVAS_FILES,
    MOODLE_EXPECTED,
    SOLUTION,
    canvas_export,
    moodle_export,
    notebook,
    write_zip,
    zipped,
)
from test_submission import damaged_zip  # the broken zips intake refuses

from grader.common.labs import get_lab
from grader.intake import archive, lms
from grader.intake.candidates import named_as
from grader.intake.collect import MAX_FILE_BYTES, Ungradable, read_files
from grader.results.lms import canvas as canvas_target
from grader.results.lms.registry import guess_class, read_class

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
    match = canvas_target.CANVAS_FILE.match(name)
    assert match is not None, name
    assert (match["name"], match["late"], match["user"], match["attachment"],
            match["original"]) == expected


@pytest.mark.parametrize(("original", "base"), [
    ("value.py", "value.py"), ("value-1.py", "value.py"), ("value-12.py", "value.py"),
    ("lab01-2.tar.gz", "lab01.tar.gz"), ("my-file.py", "my-file.py"),
])
def test_canvas_second_file_of_one_name_is_read_as_that_name(original: str, base: str) -> None:
    """Attachment.make_unique_filename: `<base>-<n><extensions>`."""
    item = canvas_target._CanvasFile(Path(original), "x", "1", False, 1, original)
    assert item.base == base
    assert named_as(original, "value.py") == (base == "value.py")


def test_canvas_export_gives_one_member_per_user_with_ids_and_names(tmp_path: Path) -> None:
    members = read_class("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
    got = {m.submission_id: (m.student_id, m.name, m.late, m.duplicates) for m in members}
    assert got == {e.submission_id: (e.student_id, e.name, e.late, e.duplicates)
                   for e in CANVAS_EXPECTED}


def test_canvas_renamed_upload_alone_is_the_source(tmp_path: Path) -> None:
    """content_zipper.rb zips the current attempt only: a lone value-2.py is that attempt."""
    members = read_class("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
    jane = next(m for m in members if m.student_id == "1001")
    assert jane.source.name == "doejane_1001_5090_value-2.py" and not jane.duplicates
    assert jane.source.read_bytes() == SOLUTION


def test_canvas_files_of_one_attempt_are_staged_together_under_their_names(tmp_path: Path) -> None:
    members = read_class("canvas", canvas_export(tmp_path / "in"), tmp_path / "scratch")
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
    members = read_class("moodle", moodle_export(tmp_path / "in", form), tmp_path / "s")
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
        read_class("moodle", export, tmp_path / "scratch")


def test_moodle_flat_download_is_grouped_by_participant(tmp_path: Path) -> None:
    export = write_zip(tmp_path / "flat.zip", {
        "Jane Doe_200001_assignsubmission_file_value.py": SOLUTION,
        "Jane Doe_200001_assignsubmission_file_notes.txt": b"notes",
    })
    members = read_class("moodle", export, tmp_path / "scratch")
    assert [(m.student_id, m.name) for m in members] == [("200001", "Jane Doe")]
    assert sorted(p.name for p in members[0].source.iterdir()) == ["notes.txt", "value.py"]


def test_folders_export_gives_one_member_per_folder_or_zip(tmp_path: Path) -> None:
    for student in ("ana", "ben"):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "value.py").write_bytes(SOLUTION)
    write_zip(tmp_path / "class" / "carla.zip", {"value.py": SOLUTION})
    members = read_class("folders", tmp_path / "class", tmp_path / "scratch")
    assert [m.submission_id for m in members] == ["ana", "ben", "carla"]


def test_an_export_that_is_not_the_lms_said_is_refused(tmp_path: Path) -> None:
    export = canvas_export(tmp_path / "in")
    with pytest.raises(lms.ExportError) as refused:
        read_class("moodle", export, tmp_path / "scratch")
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


def test_a_broken_export_is_refused_naming_the_member_and_zipfiles_words(tmp_path: Path) -> None:
    """A download damaged on its way is the instructor's to fetch again: a usage error, not a
    grader failure (it was `BadZipFile` and exit 3)."""
    export = tmp_path / "submissions.zip"
    export.write_bytes(damaged_zip("bad-crc", name="doejane_1001_5001_value.py",
                                   content=SOLUTION))
    with pytest.raises(lms.ExportError) as refused:
        read_class("canvas", export, tmp_path / "scratch")
    assert refused.value.key == "bad_member", refused.value
    assert refused.value.params["member"] == "doejane_1001_5001_value.py", refused.value
    assert "CRC" in refused.value.params["error"], refused.value


def test_an_export_that_zipfile_cannot_open_is_refused(tmp_path: Path) -> None:
    data = bytearray(zipped({"doejane_1001_5001_value.py": SOLUTION}))
    central = data.rindex(b"PK\x01\x02")
    data[central + 3] = 0  # the directory's first entry loses its signature; its end is intact
    export = tmp_path / "submissions.zip"
    export.write_bytes(bytes(data))
    with pytest.raises(lms.ExportError) as refused:
        read_class("canvas", export, tmp_path / "scratch")
    assert refused.value.key == "bad_zip", refused.value
    assert refused.value.params["error"].startswith("BadZipFile"), refused.value


def test_an_export_bomb_is_refused_for_its_ratio(tmp_path: Path) -> None:
    export = tmp_path / "submissions.zip"
    with zipfile.ZipFile(export, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as bundle:
        bundle.writestr("doejane_1001_5001_value.py", SOLUTION)
        for attachment in (5002, 5003):
            bundle.writestr(f"smithbob_1002_{attachment}_data.bin", bytes(40 << 20))
    with pytest.raises(lms.ExportError) as refused:
        read_class("canvas", export, tmp_path / "scratch")
    assert refused.value.key == "compression_ratio", refused.value
    assert refused.value.params["limit"] == str(archive.MAX_RATIO), refused.value


@pytest.mark.parametrize(("limit", "key"), [("MAX_MEMBERS", "too_many_files"),
                                            ("MAX_MEMBER_BYTES", "too_large"),
                                            ("MAX_TOTAL_BYTES", "too_large")])
def test_an_export_over_a_limit_is_refused_with_the_key_it_always_had(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str, key: str) -> None:
    monkeypatch.setattr(archive, limit, 4)  # the real limits take gigabytes to reach
    export = write_zip(tmp_path / "submissions.zip", {"doejane_1001_5001_value.py": SOLUTION,
                                                      "a_1_2_x.txt": b"x", "b_3_4_y.txt": b"y",
                                                      "c_5_6_z.txt": b"z", "d_7_8_w.txt": b"w"})
    with pytest.raises(lms.ExportError) as refused:
        read_class("canvas", export, tmp_path / "scratch")
    assert refused.value.key == key, refused.value


def test_a_student_file_over_the_lab_file_limit_is_unpacked(tmp_path: Path) -> None:
    """The export's member limit is the archive rules' (64 MiB), not collect's 1 MiB for a lab
    file: a notebook with its figures, a zip holding a dataset, are one student's to answer for."""
    big = notebook(SOLUTION)[:-1] + b', "padding": "' + b"x" * (2 * MAX_FILE_BYTES) + b'"}'
    export = write_zip(tmp_path / "submissions.zip", {
        "doejane_1001_5001_lab01_graph.ipynb": big, "smithbob_1002_5002_value.py": SOLUTION})
    members = read_class("canvas", export, tmp_path / "scratch")
    assert sorted(m.student_id for m in members) == ["1001", "1002"], members
    jane = next(m for m in members if m.student_id == "1001")
    assert jane.source.stat().st_size == len(big)


def test_a_damaged_student_zip_in_an_export_is_only_that_students_problem(tmp_path: Path) -> None:
    files = dict(CANVAS_FILES)
    files["kimmin_1005_5006_lab01.zip"] = damaged_zip("bad-crc", content=SOLUTION)
    export = write_zip(tmp_path / "submissions.zip", files)
    members = {m.student_id: m for m in read_class("canvas", export, tmp_path / "scratch")}
    assert sorted(members) == sorted(e.student_id for e in CANVAS_EXPECTED), sorted(members)
    with pytest.raises(Ungradable) as caught:
        read_files(members["1005"].source, LAB)
    assert caught.value.detail["params"]["reason"]["kind"] == "why-zip-member", caught.value
    assert read_files(members["1001"].source, LAB) == {"value.py": SOLUTION}


@pytest.mark.parametrize("form", ["zip", "folder"])
def test_tool_files_in_a_moodle_download_are_never_staged(tmp_path: Path, form: str) -> None:
    """A checkpoint notebook or bytecode staged beside the student's files would compete with
    them: the archive rules' skip list holds for an unpacked export as for a zip."""
    files = {
        "Jane Doe_200001_assignsubmission_file/value.py": SOLUTION,
        "Jane Doe_200001_assignsubmission_file/.ipynb_checkpoints/lab01_graph-checkpoint.ipynb":
            notebook(BUGGY),
        "Jane Doe_200001_assignsubmission_file/__pycache__/value.cpython-311.pyc": b"\x00",
        "Jane Doe_200001_assignsubmission_file_notes.txt": b"notes",
    }
    if form == "zip":
        export = write_zip(tmp_path / "moodle.zip", files)
    else:
        export = tmp_path / "moodle"
        for name, content in files.items():
            (export / name).parent.mkdir(parents=True, exist_ok=True)
            (export / name).write_bytes(content)
    [jane] = read_class("moodle", export, tmp_path / "scratch")
    assert sorted(p.name for p in jane.source.iterdir()) == ["notes.txt", "value.py"]


def test_a_folder_of_student_folders_looks_like_a_class(tmp_path: Path) -> None:
    for student in ("ana", "ben"):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "value.py").write_bytes(SOLUTION)
    assert guess_class(tmp_path / "class", LAB) == "folders"
    assert guess_class(tmp_path / "class" / "ana", LAB) is None


@pytest.mark.parametrize("form", ["4.1", "older"])
def test_unpacked_canvas_and_moodle_downloads_look_like_classes(tmp_path: Path, form: str) -> None:
    canvas = lms.unpack(canvas_export(tmp_path / "c"), tmp_path / "cs")
    moodle = lms.unpack(moodle_export(tmp_path / "m", form), tmp_path / "ms")
    assert (guess_class(canvas, LAB), guess_class(moodle, LAB)) == ("canvas", "moodle")


def test_a_lab_folder_with_tests_is_one_submission(tmp_path: Path) -> None:
    folder = tmp_path / "lab01_graph"
    (folder / "tests").mkdir(parents=True)
    (folder / "value.py").write_bytes(SOLUTION)
    (folder / "tests" / "test_value.py").write_bytes(b"")
    assert guess_class(folder, LAB) is None
