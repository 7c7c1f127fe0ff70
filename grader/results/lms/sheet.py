"""A downloaded gradebook as rows: the CSV file an LMS exported, read and written in its own dialect.

Side: trusted (class files). The instructor downloads the file from the LMS and the grader writes
its scores into it (each LMS's target, `grader.results.lms.canvas`, `grader.results.lms.moodle`,
says where), so that headers, identifiers, column names, points and the file's dialect
(delimiter, BOM, line ends) stay exactly as the LMS wrote them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["BOM", "MAX_GRADEBOOK_BYTES", "GradebookError", "Sheet", "cell", "read_sheet",
           "student_rows"]

MAX_GRADEBOOK_BYTES = 32 << 20
BOM = "\ufeff"


class GradebookError(ValueError):
    """The downloaded gradebook cannot be filled in as given (a usage error, one line)."""


@dataclass
class Sheet:
    """A CSV file as records: each row's cells and its exact text, with the file's dialect."""

    bom: str
    delimiter: str
    records: list[tuple[list[str], str]]

    def text(self) -> str:
        """The file again, rows as they were unless replaced."""
        return self.bom + "".join(raw for _, raw in self.records)

    def keep_only(self, indices: set[int]) -> None:
        """Leave out every row but those at `indices`."""
        self.records = [record for index, record in enumerate(self.records) if index in indices]

    def replace(self, index: int, cells: list[str]) -> None:
        """Write row `index` anew with `cells`, keeping its line ending."""
        raw = self.records[index][1]
        ending = "\r\n" if raw.endswith("\r\n") else "\n" if raw.endswith("\n") else ""
        buffer = io.StringIO()
        csv.writer(buffer, delimiter=self.delimiter, lineterminator=ending).writerow(cells)
        self.records[index] = (cells, buffer.getvalue())


def read_sheet(raw: bytes, label: str) -> Sheet:
    """A downloaded gradebook as a Sheet; UTF-8 (with or without BOM), comma or semicolon."""
    if len(raw) > MAX_GRADEBOOK_BYTES:
        raise GradebookError(f"{label} is larger than {MAX_GRADEBOOK_BYTES >> 20} MB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise GradebookError(f"{label} is not UTF-8 text as the LMS exports it") from None
    bom = BOM if text.startswith(BOM) else ""
    text = text[len(bom):]
    first = text.split("\n", 1)[0]
    # Canvas's own choice (`identify_delimiter`): semicolons only when they split the header.
    delimiter = ";" if first.count(";") > first.count(",") else ","
    lines = text.splitlines(keepends=True)
    consumed = iter(lines)
    reader = csv.reader(consumed, delimiter=delimiter)
    records = []
    start = 0
    try:
        for cells in reader:
            records.append((cells, "".join(lines[start:reader.line_num])))
            start = reader.line_num
    except csv.Error as exc:
        raise GradebookError(f"{label} is not a readable CSV file ({exc})") from None
    if not records:
        raise GradebookError(f"{label} is empty")
    return Sheet(bom, delimiter, records)


def student_rows(sheet: Sheet, skip: int | None) -> Iterator[tuple[int, list[str]]]:
    """The rows after the header with more than one cell (and not the row `skip`), by index."""
    for index, (cells, _) in enumerate(sheet.records[1:], 1):
        if index != skip and len(cells) > 1:
            yield index, cells


def cell(cells: Sequence[str], index: int | None) -> str:
    """The row's cell at `index`, '' when the row is shorter or there is no such column."""
    return cells[index] if index is not None and index < len(cells) else ""
