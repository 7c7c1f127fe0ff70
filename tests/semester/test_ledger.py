"""The ledger: append-only, one transaction per run, two writers at once, refused when damaged."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from grader.semester.ledger import Entry, LedgerDamaged, content_digest, open_ledger

ROOT = Path(__file__).resolve().parents[2]


def grade_rows(count: int, student: str = "s", lab: str = "lab01_graph") -> list[Entry]:
    """`count` grade rows, scores 0..count-1."""
    return [Entry("grade", f"{student}{i}", lab, score=float(i), max_score=10.0,
                  detail={"checks": {"c": "passed"}}) for i in range(count)]


def edit_behind_the_triggers(path: Path, trigger: str, statement: str,
                             params: tuple[object, ...] = ()) -> None:
    """Change the file as someone with SQLite in hand could: drop a trigger, then edit."""
    connection = sqlite3.connect(path)
    connection.execute(f"DROP TRIGGER {trigger}")
    connection.execute(statement, params)
    connection.commit()
    connection.close()


def test_rows_come_back_as_appended_with_who_and_when(tmp_path: Path) -> None:
    with open_ledger(tmp_path / "course.ledger") as ledger:
        assert ledger.append(grade_rows(3), who="prof") == 3
        rows = ledger.entries()
    assert [(r.student, r.score, r.who, r.detail) for r in rows] == [
        (f"s{i}", float(i), "prof", {"checks": {"c": "passed"}}) for i in range(3)]
    assert all(r.at.endswith("Z") for r in rows), rows


@pytest.mark.parametrize("statement", ["UPDATE entries SET score = 100",
                                       "DELETE FROM entries WHERE seq = 1"])
def test_the_file_refuses_to_update_or_delete_a_row(tmp_path: Path, statement: str) -> None:
    path = tmp_path / "course.ledger"
    with open_ledger(path) as ledger:
        ledger.append(grade_rows(2))
    connection = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        connection.execute(statement)
    connection.close()


def test_a_row_edited_behind_the_triggers_breaks_the_chain_and_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "course.ledger"
    with open_ledger(path) as ledger:
        ledger.append(grade_rows(3))
    edit_behind_the_triggers(path, "entries_no_update", "UPDATE entries SET score = 9 WHERE seq = 2")
    with pytest.raises(LedgerDamaged, match=r"row 2 does not match its hash chain"):
        open_ledger(path)


def test_a_failed_run_appends_nothing(tmp_path: Path) -> None:
    path = tmp_path / "course.ledger"
    with open_ledger(path) as ledger:
        ledger.append(grade_rows(2))
        with pytest.raises(sqlite3.IntegrityError):  # the third row's kind is refused by CHECK
            ledger.append([*grade_rows(2, "t"), Entry("rewrite", "x", "lab01_graph")])
        assert [r.student for r in ledger.entries()] == ["s0", "s1"]


WRITER = """
import sys
from grader.semester.ledger import Entry, open_ledger
name, path = sys.argv[1], sys.argv[2]
with open_ledger(path) as ledger:
    for i in range(200):
        ledger.append([Entry("grade", f"{name}-{i}", "lab01_graph", score=float(i))], who=name)
"""


def test_two_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "course.ledger"  # absent: the two also race to create it
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, name, str(path)], cwd=ROOT)
               for name in ("a", "b")]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    with open_ledger(path) as ledger:
        rows = ledger.entries()
    assert sorted(r.student for r in rows) == sorted(
        f"{name}-{i}" for name in "ab" for i in range(200)), len(rows)
    for name in "ab":  # each writer's rows in its own order
        mine = [r.student for r in rows if r.who == name]
        assert mine == [f"{name}-{i}" for i in range(200)], mine[:5]


def test_a_truncated_ledger_is_refused_and_the_last_good_copy_is_intact(tmp_path: Path) -> None:
    path = tmp_path / "course.ledger"
    with open_ledger(path) as ledger:
        for run in range(40):  # enough pages that half the file cuts rows off
            ledger.append(grade_rows(20, f"r{run}-"))
    before = path.with_name("course.ledger.bak")
    kept = tmp_path / "kept.ledger"
    shutil.copy(before, kept)
    size = path.stat().st_size
    assert size > 8192, size
    with path.open("r+b") as handle:
        handle.truncate(size // 2)
    with pytest.raises(LedgerDamaged) as refused:
        open_ledger(path)
    message = str(refused.value)
    assert f"ledger {path} is damaged" in message and "refused" in message, message
    assert str(before) in message, message
    with open_ledger(kept) as backup:  # the state before the last run, whole
        assert len(backup.entries()) == 39 * 20


def test_a_file_that_is_not_a_ledger_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "course.ledger"
    path.write_bytes(b"")
    with pytest.raises(LedgerDamaged, match="refused"):
        open_ledger(path)
    path.write_text("scores\n", encoding="utf-8")
    with pytest.raises(LedgerDamaged, match="refused"):
        open_ledger(path)


def test_suite_files_are_kept_once_by_digest_and_a_changed_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "course.ledger"
    suite = b"def test_check(): assert True\n"
    with open_ledger(path) as ledger:
        ledger.append(grade_rows(1), suite_files=[suite])
        ledger.append(grade_rows(1, student="t"), suite_files=[suite])  # kept once
        digest = content_digest(suite)
        assert ledger.suite_file(digest) == suite
        with pytest.raises(LedgerDamaged, match="no suite file"):
            ledger.suite_file("sha256:" + "0" * 64)
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT count(*) FROM suite_files").fetchone() == (1,)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        connection.execute("UPDATE suite_files SET content = x'00'")
    connection.close()
    edit_behind_the_triggers(path, "suite_files_no_update", "UPDATE suite_files SET content = ?",
                             (b"def test_check(): pass\n",))
    with pytest.raises(LedgerDamaged, match=f"suite file {digest} does not match its digest"):
        open_ledger(path)


def test_a_version_1_ledger_is_upgraded_when_opened_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "course.ledger"
    with open_ledger(path) as ledger:
        ledger.append(grade_rows(2))
    connection = sqlite3.connect(path)  # as version 1 wrote it: no suite_files table
    connection.execute("DROP TABLE suite_files")
    connection.execute("UPDATE schema_version SET version = 1")
    connection.commit()
    connection.close()
    with open_ledger(path) as ledger:
        assert [r.student for r in ledger.entries()] == ["s0", "s1"]
        ledger.append(grade_rows(1, student="t"), suite_files=[b"x"])
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT version FROM schema_version").fetchall() == [(2,)]
    connection.close()
