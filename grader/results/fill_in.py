"""Filling in the gradebook an LMS exported: Canvas's gradebook CSV, Moodle's grading worksheet.

Side: trusted. The instructor downloads the file from the LMS (Canvas: Grades, Export; Moodle:
the assignment's "Download grading worksheet") and the grader writes its scores into it, so that
headers, identifiers, column names, points and the file's dialect (delimiter, BOM, line ends)
stay exactly as the LMS wrote them. Only the grade cells (and Moodle's comment and Last modified
(grade) cells) of students with a new score change. In Canvas's file the other students' rows are
left out (an absent student is not touched by the import; a row kept as exported would post its
blank over a grade entered after the export); Moodle's worksheet keeps them byte for byte (its
import skips a row whose grade was modified after the download).

- Canvas (app/models/gradebook_importer.rb, `header?`, `update_column_count`,
  `parse_assignments`, `check_for_non_student_row`, `process_student`): the header row, the
  optional "Points Possible" row, students matched by the ID column. The column to fill is the
  one `--canvas-column` names (as exported, by id or by title), else the one titled as the lab;
  scores are scaled to its Points Possible. An excused cell ("EX") is kept.
- Moodle (mod/assign/feedback/offline/importgradeslib.php, `init`, `next`; locallib.php
  `process_import_grades`): headers and identifiers in the site's language
  (`grader.results.moodle_strings`), grades scaled to the row's maximum grade (the importer
  skips a grade above the assignment's maximum), written with the language's decimal separator.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grader.results.gradebook import (
    CANVAS_TITLE_AND_ID,
    comment,
    graded_of,
    moodle_date,
    scaled,
    text_cell,
)
from grader.results.i18n import format_number
from grader.results.moodle_strings import MOODLE_STRINGS, MoodleStrings, worksheet_language

MAX_GRADEBOOK_BYTES = 32 << 20
BOM = "\ufeff"
# The totals Canvas appends after the assignments (`strip_non_assignment_columns`).
CANVAS_TOTALS = re.compile(
    r"Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|Override")
CANVAS_KEPT_CELLS = frozenset({"EX", "N/A"})  # excused, or not assigned to the student


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


def _points_value(text: str) -> float | None:
    """A Points Possible cell as Canvas reads it (`decimal_comma_to_period`), or None."""
    cleaned = text.strip()
    if not re.fullmatch(r"-?[0-9.,]+", cleaned):
        return None
    parts = re.split(r"[,.]", cleaned)
    last = parts.pop()
    return float("".join(parts) + "." + last if parts else last)


# --- Canvas ----------------------------------------------------------------------------------


def canvas_student_columns(header: Sequence[str]) -> int | None:
    """How many student columns open a Canvas header (`header?`, `update_column_count`), or None
    when the row is not a header Canvas's importer accepts."""
    if not (len(header) > 3 and "Student" in header[0] and "ID" in header[1]):
        return None
    count = 3
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        count = 4
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        count = 5
        for optional in (r"Integration\s+ID", r"Root\s+Account"):
            if len(header) > count - 1 and re.search(optional, header[count - 1]):
                count += 1
    if len(header) < count or "Section" not in header[count - 1]:
        return None
    return count


def _title_and_id(header: str) -> tuple[str, str | None]:
    match = CANVAS_TITLE_AND_ID.match(header)
    return (match[1], match[2]) if match else (header, None)


def canvas_column(header: Sequence[str], wanted: str | None, lab: str) -> int:
    """The index of the assignment column to fill: the one `wanted` names as Canvas matches it
    (`parse_assignments`: by id, else by exact title), else the one titled as the lab."""
    first = canvas_student_columns(header) or 0
    assignments = {index: _title_and_id(cell) for index, cell in enumerate(header)
                   if index >= first and not CANVAS_TOTALS.search(cell)}
    if wanted:
        title, wanted_id = _title_and_id(wanted.strip())
        wanted_id = wanted_id or (title if title.isdigit() else None)
        found = [i for i, (_, aid) in assignments.items() if wanted_id and aid == wanted_id]
        found = found or [i for i, (t, _) in assignments.items() if t == title]
    else:
        found = [i for i, (t, _) in assignments.items() if t.strip().lower() == lab.lower()]
    if len(found) != 1:
        shown = "; ".join(header[i] for i in assignments) or "none"
        asked = f"--canvas-column {wanted!r}" if wanted else f"an assignment titled {lab!r}"
        raise GradebookError(f"the Canvas export has {'no' if not found else 'more than one'} "
                             f"column for {asked}; its assignments: {shown}")
    return found[0]


@dataclass(frozen=True)
class CanvasPlan:
    """Where in a Canvas export the grades go."""

    student_columns: int
    column: int
    points: float
    points_row: int | None


def plan_canvas(sheet: Sheet, wanted: str | None, lab: str, points: float | None) -> CanvasPlan:
    """Check the export the way Canvas's importer reads it and find the column and its points."""
    header = sheet.records[0][0]
    student_columns = canvas_student_columns(header)
    if student_columns is None:
        raise GradebookError("not a Canvas gradebook export: its first row must start "
                             "Student, ID, [SIS User ID, SIS Login ID,] Section")
    column = canvas_column(header, wanted, lab)
    points_row = next((i for i, (cells, _) in enumerate(sheet.records[1:], 1)
                       if cells and "Points Possible" in cells[0]), None)
    possible = None
    if points_row is not None:
        cell = sheet.records[points_row][0][column] if column < len(
            sheet.records[points_row][0]) else ""
        if re.search(r"read\s+only", cell):
            raise GradebookError(f"the Canvas column {header[column]!r} is read only")
        possible = _points_value(cell)
    if possible is not None and points is not None and abs(possible - points) > 1e-9:
        raise GradebookError(f"--points {format_number(points)} differs from the "
                             f"{format_number(possible)} points Canvas exported for {header[column]!r}")
    if possible is None and points is None:
        raise GradebookError(f"the Canvas export gives no Points Possible for {header[column]!r}: "
                             "give --points")
    return CanvasPlan(student_columns, column, possible if possible is not None else points or 0.0,
                      points_row)


def _student_rows(sheet: Sheet, skip: int | None) -> Iterator[tuple[int, list[str]]]:
    for index, (cells, _) in enumerate(sheet.records[1:], 1):
        if index != skip and len(cells) > 1:
            yield index, cells


def fill_canvas(sheet: Sheet, plan: CanvasPlan, docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Write the scaled score of each graded Canvas student into its row and leave out the rows
    of every other student; returns the ids of graded students the export has no row for.

    A row kept as exported would post its cells again on upload: a blank one over a grade the
    instructor entered after the export removes that grade (gradebook_importer.rb
    `no_change_to_value?` sees a change; the upload page posts it as null,
    `updateWillRemoveGrade`), and a student absent from the file gets nothing posted."""
    by_id = {str(doc["submission"]["student_id"]): doc for doc in graded_of(docs, "canvas")}
    comma = sheet.delimiter == ";" and plan.points_row is not None and "," in (
        sheet.records[plan.points_row][0][plan.column])
    seen = set()
    written = {0} | ({plan.points_row} if plan.points_row is not None else set())
    for index, cells in _student_rows(sheet, plan.points_row):
        student = cells[1].strip()
        doc = by_id.get(student)
        if doc is None or plan.column >= len(cells):
            continue
        seen.add(student)
        if cells[plan.column].strip().upper() in CANVAS_KEPT_CELLS:
            continue
        value = format_number(scaled(doc, plan.points))
        updated = list(cells)
        updated[plan.column] = value.replace(".", ",") if comma else value
        sheet.replace(index, updated)
        written.add(index)
    sheet.keep_only(written)
    return sorted(set(by_id) - seen)


# --- Moodle ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoodlePlan:
    """Where in a Moodle worksheet the grades go."""

    words: MoodleStrings
    identifier: int
    grade: int
    modified: int
    maximum: int | None
    feedback: int | None


def plan_moodle(sheet: Sheet) -> MoodlePlan:
    """Find the worksheet's columns by the header strings of its language, as the importer does."""
    header = sheet.records[0][0]
    lang = worksheet_language(header)
    if lang is None:
        raise GradebookError("not a Moodle grading worksheet in English or Spanish: its header "
                             "has no Identifier, Grade and Last modified (grade) columns")
    words = MOODLE_STRINGS[lang]
    lowered = [cell.lower() for cell in header]
    maximum = lowered.index(words.maxgrade.lower()) if words.maxgrade.lower() in lowered else None
    feedback = header.index(words.feedbackcomments) if words.feedbackcomments in header else None
    return MoodlePlan(words, header.index(words.recordid), header.index(words.gradenoun),
                      header.index(words.lastmodifiedgrade), maximum, feedback)


def _cell(cells: Sequence[str], index: int | None) -> str:
    return cells[index] if index is not None and index < len(cells) else ""


def moodle_maximum(sheet: Sheet, plan: MoodlePlan, points: float | None) -> float:
    """The assignment's maximum grade: the worksheet's, which `--points` may only repeat."""
    found = {plan.words.unformat(_cell(cells, plan.maximum))
             for _, cells in _student_rows(sheet, None)} - {None}
    if len(found) > 1:
        raise GradebookError("the Moodle worksheet gives several maximum grades")
    maximum = found.pop() if found else None
    if maximum is not None and points is not None and abs(maximum - points) > 1e-9:
        raise GradebookError(f"--points {format_number(points)} differs from the maximum grade "
                             f"{format_number(maximum)} in the Moodle worksheet")
    if maximum is None and points is None:
        raise GradebookError("the Moodle worksheet gives no maximum grade (a scale, or no "
                             "Maximum grade column): give --points")
    return maximum if maximum is not None else points or 0.0


def fill_moodle(sheet: Sheet, plan: MoodlePlan, maximum: float,
                docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Write grade, date and comment of each graded Moodle participant into its row; returns the
    ids of graded participants the worksheet has no row for."""
    by_id = {str(doc["submission"]["student_id"]): doc for doc in graded_of(docs, "moodle")}
    seen = set()
    for index, cells in _student_rows(sheet, None):
        participant = plan.words.participant(_cell(cells, plan.identifier))
        doc = by_id.get(participant)
        if doc is None:
            continue
        seen.add(participant)
        updated = list(cells) + [""] * (len(sheet.records[0][0]) - len(cells))
        updated[plan.grade] = plan.words.number(scaled(doc, maximum))
        updated[plan.modified] = moodle_date(doc["graded_at"])
        if plan.feedback is not None:
            updated[plan.feedback] = text_cell(comment(doc))
        sheet.replace(index, updated)
    return sorted(set(by_id) - seen)


# --- either ----------------------------------------------------------------------------------


def kind_of(sheet: Sheet) -> str:
    """"canvas" or "moodle": which LMS's file this is, from its header."""
    header = sheet.records[0][0]
    if canvas_student_columns(header) is not None:
        return "canvas"
    if worksheet_language(header) is not None:
        return "moodle"
    raise GradebookError("neither a Canvas gradebook export (Student, ID, ..., Section) nor a "
                         "Moodle grading worksheet (Identifier, Grade, Last modified (grade))")


@dataclass(frozen=True)
class Filled:
    """A downloaded gradebook, filled in."""

    kind: str                 # canvas | moodle
    text: str
    absent: tuple[str, ...]   # graded students the file has no row for


def check(raw: bytes, label: str, lab: str, points: float | None,
          canvas_column_wanted: str | None) -> str:
    """Refuse, before grading, a gradebook that cannot be filled in; returns its kind."""
    sheet = read_sheet(raw, label)
    kind = kind_of(sheet)
    if kind == "canvas":
        plan_canvas(sheet, canvas_column_wanted, lab, points)
    else:
        moodle_maximum(sheet, plan_moodle(sheet), points)
    return kind


def fill(raw: bytes, label: str, docs: Sequence[Mapping[str, Any]], lab: str,
         points: float | None, canvas_column_wanted: str | None) -> Filled:
    """The downloaded gradebook with the graded students' scores written in."""
    sheet = read_sheet(raw, label)
    kind = kind_of(sheet)
    if kind == "canvas":
        absent = fill_canvas(sheet, plan_canvas(sheet, canvas_column_wanted, lab, points), docs)
    else:
        plan = plan_moodle(sheet)
        absent = fill_moodle(sheet, plan, moodle_maximum(sheet, plan, points), docs)
    return Filled(kind, sheet.text(), tuple(absent))


def absent(raw: bytes, label: str, docs: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The graded students the downloaded gradebook has no row for (it gives them no grade)."""
    sheet = read_sheet(raw, label)
    kind = kind_of(sheet)
    if kind == "canvas":
        ids = {cells[1].strip() for _, cells in _student_rows(sheet, None)}
    else:
        plan = plan_moodle(sheet)
        ids = {plan.words.participant(_cell(cells, plan.identifier))
               for _, cells in _student_rows(sheet, None)}
    graded = {str(doc["submission"]["student_id"]) for doc in graded_of(docs, kind)}
    return tuple(sorted(graded - ids))
