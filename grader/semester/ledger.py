"""The course ledger: one SQLite file holding every grading, extension, override and policy, append-only.

Side: trusted process. Why SQLite (the standard library's `sqlite3`): one file the instructor
copies and backs up; transactions make a grading run all-or-nothing; its locking lets two graders
append at once (WAL, a busy timeout, BEGIN IMMEDIATE); `PRAGMA integrity_check` finds a damaged
file. On top of it: triggers refuse UPDATE and DELETE, every row carries a hash chained to the row
before (an edited or removed row breaks the chain), a schema-version table, and before each write
transaction a copy of the ledger is written beside it (`<ledger>.bak`, by one rename), so a file
damaged later still has its last good state. A damaged ledger is refused whole, never half-read.

The hidden suite files each grading ran are kept in the ledger too (`suite_files`: content by its
SHA-256, written once, checked on open), so that a grade recorded before a mid-semester fix to a
check replays with the suite it was graded with. In the ledger rather than in files beside it:
the ledger stays the one file the instructor copies and backs up, its transactions record a
grading and its suite together or not at all, and a suite is small (tens of kilobytes, stored once
per version whatever the number of rows that name it).
"""

from __future__ import annotations

import contextlib
import datetime
import getpass
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2  # 2 added suite_files; a version 1 ledger is upgraded when opened
KINDS = ("grade", "regrade", "override", "extension", "policy")
GENESIS = "0" * 64  # the hash the first row chains to
BUSY_TIMEOUT_MS = 60_000
BACKUP_SUFFIX = ".bak"

SUITE_FILES_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS suite_files (digest TEXT PRIMARY KEY, content BLOB NOT NULL)",
    """CREATE TRIGGER IF NOT EXISTS suite_files_no_update BEFORE UPDATE ON suite_files
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: suite files are never updated'); END""",
    """CREATE TRIGGER IF NOT EXISTS suite_files_no_delete BEFORE DELETE ON suite_files
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: suite files are never deleted'); END""",
)
SCHEMA = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    f"""CREATE TABLE entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ({", ".join(f"'{k}'" for k in KINDS)})),
    student TEXT NOT NULL,
    lab TEXT NOT NULL,
    submitted_at TEXT,
    late INTEGER,
    doc_digest TEXT,
    doc_path TEXT,
    score REAL,
    max_score REAL,
    suite_version TEXT,
    seed TEXT,
    isolation TEXT,
    detail TEXT NOT NULL,
    who TEXT NOT NULL,
    at TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL)""",
    """CREATE TRIGGER entries_no_update BEFORE UPDATE ON entries
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: rows are never updated'); END""",
    """CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: rows are never deleted'); END""",
    *SUITE_FILES_SCHEMA,
)

COLUMNS = ("kind", "student", "lab", "submitted_at", "late", "doc_digest", "doc_path", "score",
           "max_score", "suite_version", "seed", "isolation", "detail", "who", "at")


class LedgerDamaged(Exception):
    """A ledger that cannot be trusted: the message names the file, what is wrong, and the backup."""


@dataclass(frozen=True)
class Entry:
    """One row of the ledger (seq, who and at are filled in when it is appended)."""

    kind: str
    student: str
    lab: str
    submitted_at: str | None = None  # ISO 8601 UTC, as the platform gave it; None: unknown
    late: bool | None = None  # the LMS's late flag; None: it said nothing
    doc_digest: str | None = None
    doc_path: str | None = None
    score: float | None = None
    max_score: float | None = None
    suite_version: str | None = None
    seed: str | None = None
    isolation: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    who: str = ""
    at: str = ""
    seq: int = 0


def current_user() -> str:
    """The OS user recording a row (`--by` overrides it)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}"


def now_utc() -> str:
    """The time now, ISO 8601 in UTC to the second."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _values(entry: Entry) -> tuple[Any, ...]:
    record = asdict(entry)
    record["detail"] = json.dumps(entry.detail, sort_keys=True, ensure_ascii=False)
    record["late"] = None if entry.late is None else int(entry.late)
    return tuple(record[name] for name in COLUMNS)


def content_digest(content: bytes) -> str:
    """The key a suite file is kept under: its SHA-256."""
    return "sha256:" + hashlib.sha256(content).hexdigest()


def row_hash(prev_hash: str, values: Sequence[Any]) -> str:
    """The hash of a row: SHA-256 over the previous row's hash and this row's columns."""
    text = json.dumps([prev_hash, *values], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _entry(row: sqlite3.Row) -> Entry:
    late = row["late"]
    return Entry(**{name: row[name] for name in COLUMNS if name not in ("detail", "late")},
                 late=None if late is None else bool(late), detail=json.loads(row["detail"]),
                 seq=row["seq"])


class Ledger:
    """An open ledger, checked whole; `append` adds rows in one transaction."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.backup = self.path.with_name(self.path.name + BACKUP_SUFFIX)
        self._connection = _connect(self.path)
        self._check()

    def close(self) -> None:
        """Close the file."""
        self._connection.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _refuse(self, what: str) -> LedgerDamaged:
        kept = (f"the last good copy is {self.backup}" if self.backup.is_file()
                else "no backup copy exists")
        return LedgerDamaged(f"ledger {self.path} is damaged ({what}); refused, nothing was read "
                             f"or written; {kept}")

    def _check(self) -> None:
        """Integrity, schema version and the whole hash chain, or LedgerDamaged."""
        try:
            result = self._connection.execute("PRAGMA integrity_check").fetchone()[0]
            if result != "ok":
                raise self._refuse(f"SQLite integrity check: {result}")
            versions = [r[0] for r in self._connection.execute("SELECT version FROM schema_version")]
            if versions not in ([1], [SCHEMA_VERSION]):
                raise self._refuse(f"schema version {versions}, expected [{SCHEMA_VERSION}]")
            previous = GENESIS
            for row in self._connection.execute("SELECT * FROM entries ORDER BY seq"):
                if row["prev_hash"] != previous or row["hash"] != row_hash(
                        previous, [row[name] for name in COLUMNS]):
                    raise self._refuse(f"row {row['seq']} does not match its hash chain: "
                                       "edited, removed or reordered")
                previous = row["hash"]
            if versions == [SCHEMA_VERSION]:
                for kept in self._connection.execute("SELECT digest, content FROM suite_files"):
                    if content_digest(kept["content"]) != kept["digest"]:
                        raise self._refuse(f"suite file {kept['digest']} does not match its digest")
        except sqlite3.DatabaseError as exc:
            raise self._refuse(f"SQLite: {exc}") from None
        if versions == [1]:
            self._upgrade()

    def _upgrade(self) -> None:
        """A version 1 ledger (no suite files) becomes version 2, in one transaction."""
        with self._write():
            for statement in SUITE_FILES_SCHEMA:
                self._connection.execute(statement)
            self._connection.execute("DELETE FROM schema_version")
            self._connection.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))

    def suite_file(self, digest: str) -> bytes:
        """A kept suite file's content (checked against its digest when the ledger was opened);
        LedgerDamaged if the ledger holds no such file."""
        row = self._connection.execute("SELECT content FROM suite_files WHERE digest = ?",
                                       (digest,)).fetchone()
        if row is None:
            raise self._refuse(f"no suite file {digest}, which a row names")
        return bytes(row["content"])

    def entries(self, lab: str | None = None) -> list[Entry]:
        """Every row, in the order appended (only `lab`'s when given)."""
        query, params = "SELECT * FROM entries ORDER BY seq", tuple[str, ...]()
        if lab is not None:
            query, params = "SELECT * FROM entries WHERE lab = ? ORDER BY seq", (lab,)
        return [_entry(row) for row in self._connection.execute(query, params)]

    def append(self, entries: Sequence[Entry], who: str | None = None,
               suite_files: Sequence[bytes] = ()) -> int:
        """Append the rows, and keep the suite files they name, in one transaction (all or none),
        after backing the ledger up; the number of rows appended."""
        with self._write():
            for content in suite_files:
                self._connection.execute("INSERT OR IGNORE INTO suite_files VALUES (?, ?)",
                                         (content_digest(content), content))
            self._insert(entries, who)
        return len(entries)

    def append_policy(self, entry: Entry, who: str | None = None) -> bool:
        """Append a `policy` row unless the latest one has the same digest, deciding in the write
        transaction (two graders giving one policy at once record it once); whether it did."""
        with self._write():
            last = self._connection.execute(
                "SELECT detail FROM entries WHERE kind = 'policy' ORDER BY seq DESC LIMIT 1").fetchone()
            if last is not None and json.loads(last[0]).get("digest") == entry.detail["digest"]:
                return False
            self._insert([entry], who)
        return True

    def _insert(self, entries: Sequence[Entry], who: str | None) -> None:
        """Insert the rows, each chained to the one before (inside a write transaction)."""
        who = who or current_user()
        at = now_utc()
        last = self._connection.execute(
            "SELECT hash FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
        previous = last[0] if last else GENESIS
        for entry in entries:
            values = _values(Entry(**{**asdict(entry), "who": entry.who or who,
                                      "at": entry.at or at}))
            digest = row_hash(previous, values)
            self._connection.execute(
                f"INSERT INTO entries ({', '.join(COLUMNS)}, prev_hash, hash) "
                f"VALUES ({', '.join('?' * (len(COLUMNS) + 2))})", (*values, previous, digest))
            previous = digest

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        """BEGIN IMMEDIATE (waits for another writer), the backup, then commit or roll back."""
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            _write_backup(self.path, self.backup)
            yield
        except BaseException:
            self._connection.execute("ROLLBACK")
            raise
        self._connection.execute("COMMIT")


def _write_backup(path: Path, backup: Path) -> None:
    """Copy the ledger as committed (SQLite's backup API) to a twin, renamed into place."""
    temporary = backup.with_name(f"{backup.name}.{os.getpid()}.tmp")
    source = sqlite3.connect(path)
    try:
        target = sqlite3.connect(temporary)
        try:
            source.backup(target)
        finally:
            target.close()
        os.replace(temporary, backup)
    finally:
        source.close()
        temporary.unlink(missing_ok=True)


def _create(path: Path) -> None:
    """A new, empty ledger at `path`, built beside it and linked into place (two graders creating
    it at once: one wins, the other opens the winner's)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    connection = sqlite3.connect(temporary, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("BEGIN")
        for statement in SCHEMA:
            connection.execute(statement)
        connection.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
        connection.execute("COMMIT")
        connection.close()
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        connection.close()
        temporary.unlink(missing_ok=True)


def _connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with a busy timeout; a missing
    file is created (an existing file without the tables is refused by the check, not filled in)."""
    try:
        if not path.exists():
            _create(path)
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        connection.row_factory = sqlite3.Row
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except sqlite3.DatabaseError as exc:
        raise LedgerDamaged(f"ledger {path} cannot be opened as a ledger (SQLite: {exc}); refused, "
                            f"nothing was read or written; the last good copy, if any, is "
                            f"{path.name}{BACKUP_SUFFIX}") from None
    return connection


def open_ledger(path: Path) -> Ledger:
    """Open (or create) the ledger at `path`, checked whole; LedgerDamaged if it cannot be trusted."""
    return Ledger(path)
