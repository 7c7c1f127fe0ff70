"""Tests for grader.intake.collect: every hand-in format becomes a clean folder holding the lab's files."""

from __future__ import annotations

import functools
import io
import struct
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.common.labs import get_lab
from grader.intake import archive as archive_rules
from grader.intake.archive import MAX_MEMBER_BYTES, MAX_RATIO
from grader.intake.collect import (
    MAX_FILE_BYTES,
    Submission,
    Ungradable,
    collect,
    digest,
    notebook_code,
    prepare,
    read_files,
    submission_id,
    unique_ids,
)

LAB = get_lab("lab01_graph")
VALUE = b"class Value:\n    pass\n"
JUNK = {
    "conftest.py": b"raise SystemExit('conftest ran')\n",
    "json.py": b"raise ImportError('shadowed json')\n",
    "sitecustomize.py": b"print('site')\n",
    "notes.txt": b"todo\n",
}


def write_tree(root: Path, files: dict[str, bytes]) -> Path:
    """Create the files (paths relative to root) and return root."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return root


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    """A zip archive holding the members; returns its path."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for name, content in members.items():
            bundle.writestr(name, content)
    return path


# How a zip can break so that zipfile opens it and fails only when a member is read.
ZIP_DAMAGE = ("encrypted", "unsupported-compression", "bad-crc", "corrupt-deflate")


def damaged_zip(how: str, name: str = "value.py", content: bytes = VALUE * 40) -> bytes:
    """A one-member zip whose headers zipfile accepts and whose member it cannot read: the
    entry flagged encrypted, compressed by method 99 (AES), its CRC-32 wrong, or its deflate
    stream overwritten (the tests/fixtures/redteam/zip-* archives are made by this)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr(name, content)
    data = bytearray(buffer.getvalue())
    central = data.rindex(b"PK\x01\x02")  # the central directory's entry; the local one is at 0
    if how == "encrypted":
        data[6] |= 1
        data[central + 8] |= 1
    elif how == "unsupported-compression":
        struct.pack_into("<H", data, 8, 99)
        struct.pack_into("<H", data, central + 10, 99)
    elif how == "bad-crc":
        data[14] ^= 0xFF
        data[central + 16] ^= 0xFF
    elif how == "corrupt-deflate":
        start = 30 + len(name.encode())
        data[start:start + 8] = b"\xff" * 8
    else:
        raise ValueError(how)
    return bytes(data)


def ungradable_detail(path: Path) -> dict[str, object]:
    """The detail of the Ungradable that reading path raises."""
    with pytest.raises(Ungradable) as caught:
        read_files(path, LAB)
    return caught.value.detail


# --- folders ---------------------------------------------------------------------------------


def test_folder_with_top_level_value_py_is_read(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"value.py": VALUE})
    assert read_files(folder, LAB) == {"value.py": VALUE}


def test_value_py_nested_in_a_folder_is_found(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"lab01/src/value.py": VALUE})
    assert read_files(folder, LAB) == {"value.py": VALUE}


def test_several_different_value_py_files_are_ambiguous_and_named(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {
        "b/deeper/value.py": b"# deep\n", "a/value.py": VALUE, "z/value.py": b"# z\n"})
    assert ungradable_detail(folder) == {"kind": "ambiguous-file", "params": {
        "file": "value.py", "candidates": ["a/value.py", "b/deeper/value.py", "z/value.py"]}}


def test_identical_copies_of_value_py_count_once(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"value.py": VALUE, "backup/value.py": VALUE})
    assert read_files(folder, LAB) == {"value.py": VALUE}


def test_the_lab_folder_with_its_untouched_notebook_grades_value_py(tmp_path: Path) -> None:
    notebook = (LAB.student_dir / "lab01_graph.ipynb").read_bytes()
    folder = write_tree(tmp_path / "alice", {"value.py": VALUE, "lab01_graph.ipynb": notebook})
    assert read_files(folder, LAB) == {"value.py": VALUE}


def test_an_untouched_stub_beside_an_edited_notebook_grades_the_notebook(tmp_path: Path) -> None:
    stub = (LAB.student_dir / "value.py").read_bytes()
    folder = write_tree(tmp_path / "alice", {"value.py": stub, "mine.ipynb": notebook_with(VALUE)})
    assert read_files(folder, LAB)["value.py"].strip() == VALUE.strip()


def test_value_py_and_an_edited_notebook_with_other_code_are_ambiguous(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"value.py": VALUE,
                                             "lab.ipynb": notebook_with(b"x = 1\n")})
    assert ungradable_detail(folder)["kind"] == "ambiguous-file"


def test_a_zip_inside_a_folder_is_looked_into(tmp_path: Path) -> None:
    folder = tmp_path / "alice"
    folder.mkdir()
    write_zip(folder / "lab01.zip", {"lab01_graph/value.py": VALUE})
    assert read_files(folder, LAB) == {"value.py": VALUE}


def test_a_zip_holding_two_different_value_py_is_ambiguous(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "alice.zip", {"new/value.py": VALUE, "old/value.py": b"# o\n"})
    assert ungradable_detail(archive)["params"]["candidates"] == ["new/value.py", "old/value.py"]


def test_a_lone_renamed_py_file_in_a_folder_is_the_lab_file(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"my_engine.py": VALUE, "notes.txt": b"hi"})
    assert read_files(folder, LAB) == {"value.py": VALUE}


def notebook_with(code: bytes) -> bytes:
    """A notebook whose one code cell holds `code`."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(code.decode("utf-8"))]
    return nbformat.writes(notebook).encode("utf-8")


@pytest.mark.parametrize("skipped", ["__MACOSX", "__pycache__", ".git", ".ipynb_checkpoints"])
def test_value_py_inside_tool_folders_is_ignored(tmp_path: Path, skipped: str) -> None:
    folder = write_tree(tmp_path / "alice", {f"{skipped}/value.py": VALUE})
    assert ungradable_detail(folder) == {"kind": "missing-file", "params": {"file": "value.py"}}


def test_prepared_folder_holds_only_the_lab_files(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"value.py": VALUE, **JUNK})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    prepared = prepare(Submission("alice", folder), LAB, scratch)
    copied = sorted(path.name for path in prepared.workdir.iterdir())
    assert copied == ["value.py"], f"junk reached the sandbox folder: {copied}"
    assert (prepared.workdir / "value.py").read_bytes() == VALUE
    assert prepared.workdir.parent == scratch
    assert (prepared.id, prepared.source) == ("alice", str(folder))


def test_two_prepared_submissions_get_separate_folders(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"value.py": VALUE})
    first = prepare(Submission("alice", folder), LAB, tmp_path)
    second = prepare(Submission("alice", folder), LAB, tmp_path)
    assert first.workdir != second.workdir


def test_oversize_file_in_a_folder_is_too_large(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"value.py": b"#" * (MAX_FILE_BYTES + 1)})
    assert ungradable_detail(folder) == {
        "kind": "too-large", "params": {"file": "value.py", "limit": MAX_FILE_BYTES}}


def test_empty_folder_is_missing_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    assert ungradable_detail(folder) == {"kind": "missing-file", "params": {"file": "value.py"}}


# --- zips ------------------------------------------------------------------------------------


def test_zip_with_a_nested_folder_is_read(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "alice.zip", {"alice/lab01/value.py": VALUE, **JUNK})
    assert read_files(archive, LAB) == {"value.py": VALUE}


def test_macosx_folder_in_a_zip_is_ignored(tmp_path: Path) -> None:
    # "__MACOSX" sorts before "alice": without the skip its copy would be chosen.
    archive = write_zip(tmp_path / "alice.zip", {
        "__MACOSX/value.py": b"\x00\x05\x16\x07 resource fork",
        "__MACOSX/alice/._value.py": b"\x00\x05\x16\x07",
        "alice/value.py": VALUE,
    })
    assert read_files(archive, LAB) == {"value.py": VALUE}


def test_zip_without_value_py_is_missing_the_file(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "alice.zip", {"alice/values.py": VALUE, "README.md": b"x"})
    assert ungradable_detail(archive) == {"kind": "missing-file", "params": {"file": "value.py"}}


def test_corrupt_zip_is_unreadable(tmp_path: Path) -> None:
    archive = tmp_path / "alice.zip"
    archive.write_bytes(b"PK\x03\x04 this is not really a zip")
    detail = ungradable_detail(archive)
    assert detail["kind"] == "unreadable-submission", detail
    assert detail["params"]["reason"]["kind"] == "why-bad-zip", detail


@pytest.mark.parametrize("how", ZIP_DAMAGE)
def test_a_zip_whose_member_cannot_be_read_is_unreadable_with_the_reason(
        tmp_path: Path, how: str) -> None:
    archive = tmp_path / "alice.zip"
    archive.write_bytes(damaged_zip(how))
    detail = ungradable_detail(archive)
    assert detail["kind"] == "unreadable-submission", detail
    reason = detail["params"]["reason"]
    assert reason["kind"] == "why-zip-member" and reason["params"]["file"] == "value.py", reason


@pytest.mark.parametrize("how", ZIP_DAMAGE)
def test_a_damaged_zip_inside_a_folder_makes_that_submission_unreadable(
        tmp_path: Path, how: str) -> None:
    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "handin.zip").write_bytes(damaged_zip(how))
    assert ungradable_detail(folder)["kind"] == "unreadable-submission"


def test_names_from_inside_a_zip_reach_the_reason_cleaned(tmp_path: Path) -> None:
    names = ["\x1b[2J/value.py", "\x1b]52;c;ZWNobyBoaQ==\x07/value.py", "\u202egpj.py/value.py"]
    archive = write_zip(tmp_path / "alice.zip", {name: VALUE + name.encode() for name in names})
    detail = ungradable_detail(archive)
    assert detail["kind"] == "ambiguous-file", detail
    text = str(detail["params"])
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text, text
    assert "\\x1b[2J/value.py" in detail["params"]["candidates"], detail


def test_oversize_member_of_a_zip_is_too_large(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "alice.zip", {"value.py": b"#" * (2 * MAX_FILE_BYTES)})
    assert archive.stat().st_size < MAX_FILE_BYTES, "the archive itself should be small"
    assert ungradable_detail(archive) == {
        "kind": "too-large", "params": {"file": "value.py", "limit": MAX_FILE_BYTES}}


@pytest.mark.parametrize("form", ["folder", "zip"])
def test_macos_appledouble_files_beside_a_renamed_file_compete_with_nothing(
        tmp_path: Path, form: str) -> None:
    # A Mac writes `._<name>` beside each file it copies to a USB stick or zips without
    # __MACOSX: without the skip, `._my_engine.py` is a second top-level .py file.
    files = {"my_engine.py": VALUE, "._my_engine.py": b"\x00\x05\x16\x07", ".DS_Store": b"\x00"}
    path = (write_tree(tmp_path / "alice", files) if form == "folder"
            else write_zip(tmp_path / "alice.zip", files))
    assert read_files(path, LAB) == {"value.py": VALUE}


def test_zip_members_out_of_the_folder_or_links_are_never_read(tmp_path: Path) -> None:
    archive = tmp_path / "alice.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("../value.py", b"# climbs out\n")
        bundle.writestr("/abs/value.py", b"# absolute\n")
        link = zipfile.ZipInfo("lab01/value.py")
        link.external_attr = 0o120777 << 16
        bundle.writestr(link, "../../solutions/lab01_graph/value.py")
        bundle.writestr("alice/value.py", VALUE)
    assert read_files(archive, LAB) == {"value.py": VALUE}


def test_a_zip_made_with_windows_separators_is_read(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "alice.zip", {"alice\\lab01\\value.py": VALUE})
    assert read_files(archive, LAB) == {"value.py": VALUE}


def test_a_large_file_beside_the_lab_file_in_a_zip_is_not_read(tmp_path: Path) -> None:
    """MAX_FILE_BYTES bounds the lab's files only: a student's data or figures may be larger."""
    archive = write_zip(tmp_path / "alice.zip", {"value.py": VALUE,
                                                 "data.csv": b"1,2\n" * MAX_FILE_BYTES})
    assert read_files(archive, LAB) == {"value.py": VALUE}


@functools.lru_cache(maxsize=1)
def zip_bomb() -> bytes:
    """A zip of value.py and 80 MiB of zeros in two members, in about 370 KB (a ratio over 200)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as bundle:
        bundle.writestr("value.py", VALUE)
        for name in ("a.bin", "b.bin"):
            bundle.writestr(name, bytes(40 << 20))
    return buffer.getvalue()


def test_a_zip_bomb_is_unreadable_with_the_ratio(tmp_path: Path) -> None:
    archive = tmp_path / "alice.zip"
    archive.write_bytes(zip_bomb())
    assert ungradable_detail(archive) == {"kind": "unreadable-submission", "params": {
        "reason": {"kind": "why-zip-ratio", "params": {"limit": MAX_RATIO}}}}


def test_a_zip_member_over_the_archive_limit_makes_the_zip_too_large(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "alice.zip", {"value.py": VALUE,
                                                 "lab/data.bin": bytes(MAX_MEMBER_BYTES + 1)})
    assert ungradable_detail(archive) == {
        "kind": "too-large", "params": {"file": "data.bin", "limit": MAX_MEMBER_BYTES}}


@pytest.mark.parametrize(("limit", "kind"), [("MAX_MEMBERS", "why-zip-too-many-files"),
                                             ("MAX_TOTAL_BYTES", "why-zip-too-large")])
def test_a_zip_over_an_archive_limit_is_unreadable_with_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str, kind: str) -> None:
    monkeypatch.setattr(archive_rules, limit, 2)  # the real limits take 2 GiB to reach
    archive = write_zip(tmp_path / "alice.zip", {"value.py": VALUE, "a.txt": b"a", "b.txt": b"b"})
    assert ungradable_detail(archive) == {"kind": "unreadable-submission", "params": {
        "reason": {"kind": kind, "params": {"limit": 2}}}}


def test_a_hostile_zip_beside_the_files_of_a_folder_is_not_the_submission(
        tmp_path: Path) -> None:
    # As a zip zipfile cannot open is: opened, its value.py would make two candidates.
    folder = write_tree(tmp_path / "alice", {"value.py": b"# mine\n"})
    (folder / "bomb.zip").write_bytes(zip_bomb())
    assert read_files(folder, LAB) == {"value.py": b"# mine\n"}


# --- bare files and notebooks ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["value.py", "alice_lab01.py", "Entrega Final (2).py"])
def test_bare_py_file_with_any_name_is_the_main_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(VALUE)
    assert read_files(path, LAB) == {"value.py": VALUE}


def test_bare_oversize_py_file_is_too_large(tmp_path: Path) -> None:
    path = tmp_path / "alice.py"
    path.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    assert ungradable_detail(path)["kind"] == "too-large"


def make_notebook(path: Path) -> Path:
    """A notebook with magics, shell escapes, markdown and two code cells."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Lab 01\nclass NotCode: pass"),
        nbformat.v4.new_code_cell("%matplotlib inline\n!pip install micrograd\nimport math"),
        nbformat.v4.new_code_cell("class Value:\n    pass\n    %time 1\n  !ls"),
    ]
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    return path


def test_notebook_code_cells_are_joined_without_magics_or_markdown(tmp_path: Path) -> None:
    path = make_notebook(tmp_path / "alice.ipynb")
    code = read_files(path, LAB)["value.py"].decode("utf-8")
    # the magic lines become empty lines, so every line after them keeps its number
    assert code == "\n\nimport math\n\nclass Value:\n    pass\n\n\n", repr(code)
    compile(code, "value.py", "exec")


def test_unreadable_notebook_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "alice.ipynb"
    path.write_text("{not json", encoding="utf-8")
    assert ungradable_detail(path)["kind"] == "unreadable-submission"


def test_notebook_code_of_an_empty_notebook_is_an_empty_module() -> None:
    raw = nbformat.writes(nbformat.v4.new_notebook()).encode("utf-8")
    assert notebook_code(raw) == "\n"


def test_nonexistent_path_is_unreadable(tmp_path: Path) -> None:
    detail = ungradable_detail(tmp_path / "nobody")
    assert detail["kind"] == "unreadable-submission", detail
    assert detail["params"]["reason"]["kind"] == "why-missing", detail


def test_other_file_types_are_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "alice.txt"
    path.write_bytes(VALUE)
    detail = ungradable_detail(path)
    assert detail["kind"] == "unreadable-submission", detail
    assert "alice.txt" in str(detail["params"]["reason"]), detail


# --- ids -------------------------------------------------------------------------------------


def test_ids_come_from_folder_names_and_file_stems(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "bob", {"value.py": VALUE})
    bare = write_tree(tmp_path, {"carla_lab01.py": VALUE}) / "carla_lab01.py"
    ids = [submission_id(path, LAB) for path in (tmp_path / "bob", folder / "value.py", bare)]
    assert ids == ["bob", "bob", "carla_lab01"], ids


def test_ids_are_filesystem_safe(tmp_path: Path) -> None:
    folder = tmp_path / "José María (late)"
    folder.mkdir()
    ident = submission_id(folder, LAB)
    assert ident and all(c.isascii() and (c.isalnum() or c in "._-") for c in ident), ident


def test_duplicate_ids_get_a_numbered_suffix(tmp_path: Path) -> None:
    paths = [write_tree(tmp_path / group / "alice", {"value.py": VALUE})
             for group in ("a", "b", "c")]
    ids = [sub.id for sub in collect(paths, LAB)]
    assert ids == ["alice", "alice-2", "alice-3"], ids


def test_ids_are_unique_even_when_a_name_looks_like_a_suffixed_duplicate(tmp_path: Path) -> None:
    # alice, alice, alice-2: numbering the second alice must not collide with the real alice-2.
    paths = [write_tree(tmp_path / group / name, {"value.py": VALUE})
             for group, name in (("a", "alice"), ("b", "alice"), ("c", "alice-2"))]
    ids = [sub.id for sub in collect(paths, LAB)]
    assert len(set(ids)) == len(ids), f"duplicate ids: {ids}"
    assert ids[0] == "alice", ids


def test_ids_never_take_a_reserved_name_and_stay_stable(tmp_path: Path) -> None:
    # class.csv.zip and Dashboard.HTML/ would be the class files' names (or theirs on a
    # case-insensitive filesystem); the same list gives the same ids on every run (--resume).
    paths = [write_zip(tmp_path / "class.csv.zip", {"value.py": VALUE}),
             write_tree(tmp_path / "Dashboard.HTML", {"value.py": VALUE}),
             write_tree(tmp_path / "class.csv-2", {"value.py": VALUE}),
             write_tree(tmp_path / "ana", {"value.py": VALUE})]
    reserved = {"class.csv", "dashboard.html"}
    first = [sub.id for sub in unique_ids(collect(paths, LAB), reserved)]
    again = [sub.id for sub in unique_ids(collect(paths, LAB), reserved)]
    assert first == again == ["class.csv-2", "Dashboard.HTML-2", "class.csv-2-2", "ana"], first
    assert not {ident.casefold() for ident in first} & reserved, first


def test_unique_ids_keeps_what_a_submission_says_of_itself(tmp_path: Path) -> None:
    given = [Submission("class.csv", tmp_path, {"student_id": "42", "name": "Ana"})]
    [renamed] = unique_ids(given, {"class.csv"})
    assert renamed.id == "class.csv-2" and renamed.meta == given[0].meta, renamed


# --- digests ---------------------------------------------------------------------------------


def test_digest_is_stable_and_independent_of_order() -> None:
    first = digest({"value.py": VALUE, "nn.py": b"x"})
    second = digest({"nn.py": b"x", "value.py": VALUE})
    assert first == second
    assert first.startswith("sha256:") and len(first) == len("sha256:") + 64, first


def test_digest_depends_on_content_and_names() -> None:
    base = digest({"value.py": VALUE})
    assert digest({"value.py": VALUE + b"\n"}) != base
    assert digest({"other.py": VALUE}) != base


def test_same_code_as_folder_or_zip_has_the_same_digest(tmp_path: Path) -> None:
    folder = write_tree(tmp_path / "alice", {"value.py": VALUE})
    archive = write_zip(tmp_path / "alice.zip", {"alice/value.py": VALUE})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    digests = {prepare(Submission("alice", path), LAB, scratch).digest
               for path in (folder, archive)}
    assert len(digests) == 1, digests
