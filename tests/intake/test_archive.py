"""Tests for grader.intake.archive: the one set of rules by which a student's zip and an LMS export are read."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from grader.intake import archive
from grader.intake.archive import ArchiveError

VALUE = b"class Value:\n    pass\n"


def zipped(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    """A deflated zip of the members (name: content), and of symbolic links (name: target)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for name, content in members.items():
            bundle.writestr(name, content)
        for name, target in (links or {}).items():
            link = zipfile.ZipInfo(name)
            link.external_attr = 0o120777 << 16  # S_IFLNK: what `zip --symlinks` writes
            bundle.writestr(link, target)
    return buffer.getvalue()


def declaring(data: bytes, size: int) -> bytes:
    """The zip with every central-directory entry declaring `size` bytes unpacked (what the
    rules read; the bytes stored stay as they were)."""
    patched = bytearray(data)
    end = patched.rindex(b"PK\x05\x06")
    count, _, offset = struct.unpack_from("<HII", patched, end + 10)
    for _ in range(count):
        struct.pack_into("<I", patched, offset + 24, size)
        name, extra, comment = struct.unpack_from("<HHH", patched, offset + 28)
        offset += 46 + name + extra + comment
    return bytes(patched)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def paths_of(path: Path) -> list[str]:
    return [member.path for member in archive.members(path)]


def refusal(path: Path) -> ArchiveError:
    with pytest.raises(ArchiveError) as caught:
        archive.members(path)
    return caught.value


# --- what is skipped -------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*archive.SKIPPED, "._value.py"])
def test_a_member_named_as_a_tool_writes_it_is_skipped_at_any_depth(tmp_path: Path,
                                                                    name: str) -> None:
    zip_path = write(tmp_path / "a.zip", zipped({
        name: b"x", f"lab01/{name}": b"x", f"{name}/value.py": VALUE,
        f"lab01/{name}/deeper/value.py": VALUE, "lab01/value.py": VALUE}))
    assert paths_of(zip_path) == ["lab01/value.py"]


def test_every_skipped_name_says_why() -> None:
    assert all(reason.strip() for reason in archive.SKIPPED.values()), archive.SKIPPED


def test_folders_are_not_members(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", zipped({"lab01/": b"", "lab01\\src\\": b"",
                                                 "lab01/value.py": VALUE}))
    assert paths_of(zip_path) == ["lab01/value.py"]


def test_names_that_only_look_like_skipped_ones_are_kept(tmp_path: Path) -> None:
    kept = ["my.git/value.py", "value._py", "a._b.py", "MACOSX/value.py", ".gitignore"]
    zip_path = write(tmp_path / "a.zip", zipped(dict.fromkeys(kept, VALUE)))
    assert paths_of(zip_path) == kept


# --- what is never read nor written ----------------------------------------------------------


@pytest.mark.parametrize("name", ["../value.py", "lab01/../../value.py", "/tmp/value.py",
                                  "..\\value.py", "\\tmp\\value.py", "."])
def test_a_path_out_of_the_folder_is_skipped(tmp_path: Path, name: str) -> None:
    zip_path = write(tmp_path / "a.zip", zipped({name: VALUE, "ok/value.py": VALUE}))
    assert paths_of(zip_path) == ["ok/value.py"]


def test_a_symbolic_link_is_skipped(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", zipped(
        {"ok/value.py": VALUE}, links={"value.py": "../../solutions/lab01_graph/value.py"}))
    assert paths_of(zip_path) == ["ok/value.py"]


def test_extract_writes_only_the_members_that_pass(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", zipped(
        {"../escape.py": b"x", "/abs.py": b"x", "__MACOSX/._value.py": b"x",
         ".ipynb_checkpoints/lab-checkpoint.ipynb": b"{}", "ok/value.py": VALUE},
        links={"link.py": "/etc/passwd"}))
    target = tmp_path / "out" / "export"
    found = archive.extract(zip_path, target)
    written = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert written == [m.path for m in found] == ["ok/value.py"], written
    assert (target / "ok" / "value.py").read_bytes() == VALUE
    assert not (tmp_path / "out" / "escape.py").exists()


def test_windows_separators_are_read_as_folders(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", zipped({"lab01\\value.py": VALUE}))
    [member] = archive.members(zip_path)
    assert member.path == "lab01/value.py" and archive.read(zip_path, member) == VALUE


def test_of_two_members_of_one_path_the_last_is_read(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", zipped({"lab01\\value.py": b"# old\n",
                                                 "lab01/value.py": VALUE}))
    [member] = archive.members(zip_path)
    assert archive.read(zip_path, member) == VALUE


def test_a_name_no_file_system_takes_is_cut_with_its_extension_kept(tmp_path: Path) -> None:
    """A zip may name a member with 65,535 bytes; Linux takes 255 (one student's long file
    name stopped unpacking a whole Canvas export: OSError, File name too long)."""
    long_name = "bob_124_457_" + "ñ" * 300 + ".py"
    zip_path = write(tmp_path / "a.zip", zipped({long_name: VALUE, f"{'d' * 300}/value.py": VALUE}))
    found = archive.extract(zip_path, tmp_path / "out")
    for member in found:
        parts = member.path.split("/")
        assert all(len(part.encode("utf-8")) <= archive.NAME_MAX_BYTES for part in parts), parts
        assert (tmp_path / "out" / member.path).read_bytes() == VALUE
    assert sorted(m.path.rsplit(".", 1)[-1] for m in found) == ["py", "py"]
    assert any(m.path.startswith("bob_124_457_ñ") for m in found), [m.path for m in found]


def test_a_file_where_another_member_s_folder_goes_refuses_the_extraction(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", zipped({"x": b"a", "x/value.py": VALUE}))
    with pytest.raises(ArchiveError) as refused:
        archive.extract(zip_path, tmp_path / "out")
    assert refused.value.reason == "member-unwritable" and refused.value.member == "x/value.py"


def test_an_open_archive_reads_every_member_from_one_directory(tmp_path: Path) -> None:
    """The directory is parsed once however many members are read (reopening it per member
    made 20,000 candidates cost hours)."""
    zip_path = write(tmp_path / "a.zip", zipped({f"c{n}/value.py": VALUE for n in range(2000)}))
    with archive.OpenArchive(zip_path) as opened:
        assert all(opened.read(member) == VALUE for member in opened.members)
        assert len(opened.members) == 2000


# --- limits ----------------------------------------------------------------------------------


def test_more_members_than_the_limit_are_refused(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_MEMBERS", 3)  # 200,001 members take seconds to write
    zip_path = write(tmp_path / "a.zip", zipped({f"f{i}.py": b"" for i in range(4)}))
    error = refusal(zip_path)
    assert (error.reason, error.limit) == ("too-many-members", 3), error
    write(zip_path, zipped({f"f{i}.py": b"" for i in range(3)}))
    assert len(archive.members(zip_path)) == 3


def test_the_member_limit_counts_skipped_members_too(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The count bounds the work of listing the archive, which skipped members cost as well."""
    monkeypatch.setattr(archive, "MAX_MEMBERS", 3)
    zip_path = write(tmp_path / "a.zip", zipped({f"__MACOSX/._f{i}": b"" for i in range(4)}))
    assert refusal(zip_path).reason == "too-many-members"


def test_a_member_declaring_more_than_the_member_limit_is_refused(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip",
                     declaring(zipped({"lab01/data.csv": b"1,2\n"}), archive.MAX_MEMBER_BYTES + 1))
    error = refusal(zip_path)
    assert (error.reason, error.member, error.limit) == (
        "member-too-large", "lab01/data.csv", archive.MAX_MEMBER_BYTES), error
    write(zip_path, declaring(zipped({"lab01/data.csv": b"1,2\n"}), archive.MAX_MEMBER_BYTES))
    assert paths_of(zip_path) == ["lab01/data.csv"]


def test_members_declaring_more_than_the_total_limit_are_refused(tmp_path: Path) -> None:
    count = archive.MAX_TOTAL_BYTES // archive.MAX_MEMBER_BYTES + 1
    zip_path = write(tmp_path / "a.zip", declaring(
        zipped({f"part{i}.bin": b"x" for i in range(count)}), archive.MAX_MEMBER_BYTES))
    error = refusal(zip_path)
    assert (error.reason, error.member) == ("too-large", f"part{count - 1}.bin"), error


def test_skipped_members_count_nothing_toward_the_sizes(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", declaring(
        zipped({"__MACOSX/._big": b"x", "../big": b"x"}), archive.MAX_MEMBER_BYTES + 1))
    assert paths_of(zip_path) == []


def test_a_zip_bomb_is_refused_for_its_ratio(tmp_path: Path) -> None:
    # 80 MiB of zeros deflate (fastest level) to about 370 KB: over 200 times smaller.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as bundle:
        for name in ("a.bin", "b.bin"):
            bundle.writestr(name, bytes(40 << 20))
    zip_path = write(tmp_path / "bomb.zip", buffer.getvalue())
    error = refusal(zip_path)
    assert (error.reason, error.limit) == ("ratio", archive.MAX_RATIO), error
    assert str(archive.MAX_RATIO) in str(error), error


def test_a_small_zip_of_repetitive_text_is_not_a_bomb(tmp_path: Path) -> None:
    """Under RATIO_FREE_BYTES the ratio is not looked at: 2 MiB of one character compress a
    thousand times, and are the student's (collect says the file is too large)."""
    zip_path = write(tmp_path / "a.zip", zipped({"value.py": b"#" * (2 << 20)}))
    assert paths_of(zip_path) == ["value.py"]


# --- broken archives -------------------------------------------------------------------------


def test_a_file_that_is_no_zip_is_unreadable(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", b"PK\x03\x04 this is not really a zip")
    error = refusal(zip_path)
    assert error.reason == "unreadable" and error.error.startswith("BadZipFile"), error


def test_a_truncated_zip_is_unreadable(tmp_path: Path) -> None:
    data = zipped({"value.py": VALUE * 50})
    assert refusal(write(tmp_path / "a.zip", data[: len(data) // 2])).reason == "unreadable"


def test_a_member_holding_more_than_it_declares_cannot_be_read(tmp_path: Path) -> None:
    """zipfile stops at the declared size and then fails the CRC: the limits hold on what is read."""
    zip_path = write(tmp_path / "a.zip", declaring(zipped({"value.py": VALUE * 50}), 10))
    [member] = archive.members(zip_path)
    with pytest.raises(ArchiveError) as caught:
        archive.read(zip_path, member)
    assert (caught.value.reason, caught.value.member) == ("member-unreadable", "value.py")
    assert "CRC" in caught.value.error, caught.value


def test_a_member_zipfile_cannot_read_stops_an_extraction(tmp_path: Path) -> None:
    zip_path = write(tmp_path / "a.zip", declaring(zipped({"value.py": VALUE * 50}), 10))
    with pytest.raises(ArchiveError) as caught:
        archive.extract(zip_path, tmp_path / "out")
    assert caught.value.reason == "member-unreadable", caught.value


def test_an_error_names_the_member_cleaned_and_cut(tmp_path: Path) -> None:
    name = "\x1b[2J" + "a" * 400 + ".py"
    zip_path = write(tmp_path / "a.zip", declaring(zipped({name: b"x"}), archive.MAX_MEMBER_BYTES + 1))
    error = refusal(zip_path)
    assert "\x1b" not in error.member and len(error.member) < 200, error.member
    assert "\x1b" not in str(error), str(error)


@pytest.mark.parametrize("reason", sorted(archive.REFUSALS))
def test_every_refusal_has_a_message_naming_what_it_found(reason: str) -> None:
    error = ArchiveError(reason, member="lab01/value.py", limit=7, error="BadZipFile: Bad CRC-32")
    message = str(error)
    assert message == archive.REFUSALS[reason].format(
        member="lab01/value.py", limit=7, error="BadZipFile: Bad CRC-32"), message
    assert "{" not in message, message
