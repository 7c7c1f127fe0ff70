"""Canvas: its download's naming, its gradebook import CSV, its feedback re-upload zip.

Side: trusted (intake of a Canvas download, class files). Everything the grader does for Canvas
(instructure/canvas-lms), as the LMS target `TARGET`:

- Intake naming (`read_canvas_download`): the "Download Submissions" zip
  (`ContentZipper#zip_assignment`, `lib/content_zipper.rb`) names each file
  `<sortable name, lower case, word characters only>[_LATE]_<user id>_<attachment id>_<file>`,
  where an anonymised assignment puts `anon_<anonymous id>` in place of the user id, and text or
  URL entries are `<name>_<user id>_text.html` / `_link.html`. Only the current attempt is zipped
  (`get_uploaded_files_from`: the submission's `attachment_ids`), so every file of a user is
  graded together; a file named as another of the user's files with `-1`, `-2`, ... before its
  extension (`Attachment.make_unique_filename`) is a second file of that name in the attempt (or
  a re-upload Canvas renamed because the earlier one is still in the student's files), and the
  feedback says so.
- A fresh gradebook (app/models/gradebook_importer.rb, `header?`): the header starts with
  `Student`, `ID`, then optional `SIS User ID` and `SIS Login ID`, and `Section` must close the
  student columns; each further column is an assignment, matched by the id in `Title (id)`
  (`Assignment.title_and_id`) or else by exact title, else Canvas creates a new assignment: hence
  the column must be given as Canvas exports it. Students are matched by `ID`, the Canvas user id
  the bulk download names. The importer has no comment column.
- The gradebook Canvas exported, filled in (`gradebook_importer.rb`, `header?`,
  `update_column_count`, `parse_assignments`, `check_for_non_student_row`, `process_student`):
  the header row, the optional "Points Possible" row, students matched by the ID column. The
  column to fill is the one `--canvas-column` names (as exported, by id or by title), else the
  one titled as the lab; scores are scaled to its Points Possible. An excused cell ("EX") is kept.
  The other students' rows are left out (an absent student is not touched by the import; a row
  kept as exported would post its blank over a grade entered after the export).
- The feedback zip, "Re-Upload Submissions" (app/models/assignment.rb
  `generate_comments_from_files`, `infer_comment_context_from_filename`): only the file's base
  name is read, split on `_`; its first two tokens made of digits only are the user id and the
  attachment id, and the attachment must be one of that user's current submission's files (a
  name ending in a `link...` token, or starting `._`, is ignored). Each feedback file is named
  `<name>[_LATE]_<user id>_<attachment id>_feedback.html`, with the user and the first
  attachment the report's source names (the download's file names; tokens of the name made of
  digits only are dropped, so they cannot be read as the user id). An anonymous download
  (`anon_<id>`) carries no user id: Canvas cannot match it, so its students are left out and
  named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.intake import lms as intake
from grader.intake.lms import ClassMember
from grader.results.gradebook import graded_of, scaled, text_cell
from grader.results.gradebook import rows_csv as _rows_csv
from grader.results.i18n import format_number
from grader.results.lms.feedback_return import FEEDBACK_FILE
from grader.results.lms.sheet import GradebookError, Sheet
from grader.results.lms.sheet import student_rows as _student_rows
from grader.results.lms.target import GradebookSettings, LmsTarget
from grader.results.score_document import Document, as_document

__all__ = ["CANVAS_COLUMNS", "CANVAS_TITLE_AND_ID", "TARGET", "Canvas", "CanvasPlan",
           "canvas_column", "canvas_csv", "canvas_name", "canvas_student_columns", "fill_canvas",
           "plan_canvas"]

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
# Assignment.title_and_id (app/models/assignment.rb): the column header that names an assignment.
CANVAS_TITLE_AND_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z", re.DOTALL)

# The totals Canvas appends after the assignments (`strip_non_assignment_columns`).
CANVAS_TOTALS = re.compile(
    r"Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|Override")
CANVAS_KEPT_CELLS = frozenset({"EX", "N/A"})  # excused, or not assigned to the student

# --- intake naming: lib/content_zipper.rb `ContentZipper#zip_assignment` -------------------

_CANVAS_PREFIX = r"^(?:(?!(?i:late)_)(?P<name>.+?)_)?(?:(?P<late>(?i:late))_)?(?P<user>anon_[0-9A-Za-z]+|\d+)_"
CANVAS_FILE = re.compile(_CANVAS_PREFIX + r"(?P<attachment>\d+)_(?P<original>.+)$", re.DOTALL)
CANVAS_TEXT = re.compile(_CANVAS_PREFIX + r"(?P<entry>text|link)\.html$")
# Attachment.make_unique_filename: "<base>-<n><extensions>", extensions as in its own regex.
RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<ext>(?:\.[A-Za-z][A-Za-z0-9]*)*\.[A-Za-z0-9]*)$")


@dataclass(frozen=True)
class _CanvasFile:
    path: Path
    name: str
    user: str
    late: bool
    attachment: int
    original: str

    @property
    def base(self) -> str:
        """The original name without the suffix Canvas adds to a second file of that name."""
        match = RESUBMITTED.match(self.original)
        return match["stem"] + match["ext"] if match else self.original


def _canvas_files(entries: Sequence[Path]) -> tuple[list[_CanvasFile], dict[str, list[Path]]]:
    files: list[_CanvasFile] = []
    texts: dict[str, list[Path]] = {}
    for path in entries:
        if not path.is_file():
            continue
        match = CANVAS_FILE.match(path.name)
        if match:
            files.append(_CanvasFile(path, match["name"] or "", match["user"], bool(match["late"]),
                                     int(match["attachment"]), match["original"]))
            continue
        text = CANVAS_TEXT.match(path.name)
        if text:
            texts.setdefault(text["user"], []).append(path)
    return files, texts


def _duplicates(files: Sequence[_CanvasFile]) -> tuple[str, ...]:
    """The files sharing one original name with another file of the same attempt."""
    groups: dict[str, list[_CanvasFile]] = {}
    for item in files:
        groups.setdefault(item.base, []).append(item)
    return tuple(sorted(f.path.name for group in groups.values() if len(group) > 1
                        for f in group))


def read_canvas_download(entries: Sequence[Path], scratch: Path, label: str) -> list[ClassMember]:
    """One member per Canvas user among the top entries of a "Download Submissions" folder."""
    files, texts = _canvas_files(entries)
    if not files and not texts:
        raise intake.ExportError("not_canvas", export=label)
    by_user: dict[str, list[_CanvasFile]] = {}
    for item in files:
        by_user.setdefault(item.user, []).append(item)
    members = []
    for user, items in by_user.items():
        items.sort(key=lambda f: (f.original, f.attachment))
        name = next((f.name for f in items if f.name), "")
        submission_id = intake.safe_id(f"{name}_{user}" if name else user)
        if len(items) == 1:
            source = items[0].path
        else:  # under the names the student gave them, as Canvas shows them
            source = intake.stage_files(((f.original, f.path) for f in items),
                            scratch / "canvas" / submission_id)
        members.append(ClassMember(
            submission_id, user, name, "canvas", source,
            f"{label}: {', '.join(f.path.name for f in items)}",
            late=any(f.late for f in items), duplicates=_duplicates(items),
            files=tuple(sorted(f.path.name for f in items))))
    for user, paths in texts.items():
        if user not in by_user:  # a text or URL entry only: nothing to grade, said so by intake
            name = CANVAS_TEXT.match(paths[0].name)["name"] or ""  # type: ignore[index]
            folder = scratch / "canvas-text" / intake.safe_id(f"{name}_{user}")
            folder.mkdir(parents=True)
            members.append(ClassMember(intake.safe_id(f"{name}_{user}" if name else user), user, name,
                                       "canvas", folder, f"{label}: {paths[0].name}",
                                       files=tuple(p.name for p in paths)))
    return intake.unique_members(members)



# --- gradebook ---------------------------------------------------------------------------


def _points_value(text: str) -> float | None:
    """A Points Possible cell as Canvas reads it (`decimal_comma_to_period`), or None."""
    cleaned = text.strip()
    if not re.fullmatch(r"-?[0-9.,]+", cleaned):
        return None
    parts = re.split(r"[,.]", cleaned)
    last = parts.pop()
    return float("".join(parts) + "." + last if parts else last)


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


def fill_canvas(sheet: Sheet, plan: CanvasPlan, docs: Sequence[Document]) -> list[str]:
    """Write the scaled score of each graded Canvas student into its row and leave out the rows
    of every other student; returns the ids of graded students the export has no row for.

    A row kept as exported would post its cells again on upload: a blank one over a grade the
    instructor entered after the export removes that grade (gradebook_importer.rb
    `no_change_to_value?` sees a change; the upload page posts it as null,
    `updateWillRemoveGrade`), and a student absent from the file gets nothing posted."""
    by_id = {str(doc.submission.student_id): doc for doc in graded_of(docs, "canvas")}
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


def canvas_csv(docs: Sequence[Document], column: str, out_of: float) -> str:
    """Canvas's gradebook import CSV: one row per graded Canvas student, scored out of `out_of`."""
    rows = [[text_cell(doc.submission.name or ""), str(doc.submission.student_id),
             "", "", "", format_number(scaled(doc, out_of))]
            for doc in graded_of(docs, "canvas") if str(doc.submission.student_id).isdigit()]
    return _rows_csv([*CANVAS_COLUMNS, column], rows)


def canvas_name(report: Document) -> str | None:
    """The name Canvas's re-upload reads as this student's submission, or None (no file of the
    download with an attachment id: an anonymous download, or a text entry only). The report's
    source names the download's files: the first `_<user id>_<digits>_` in it gives the
    attachment, as the download named it."""
    record = as_document(report).submission
    user = str(record.student_id or "")
    found = re.search(rf"_{re.escape(user)}_(\d+)_", record.source)
    if not user.isdigit() or found is None:
        return None
    words = [word for word in (record.name or "").split("_") if word and
             not word.isdigit()]
    late = ["LATE"] if record.late else []
    return "_".join([*words, *late, user, found[1], FEEDBACK_FILE])


class Canvas(LmsTarget):
    """Canvas, as the LMS target the registry lists."""

    name = "canvas"
    gradebook_file = "canvas_gradebook.csv"
    feedback_zip = "canvas_feedback.zip"
    gradebook_kind = "a Canvas gradebook export (Student, ID, ..., Section)"

    def read_download(self, entries: Sequence[Path], scratch: Path,
                      label: str) -> list[ClassMember]:
        """One member per Canvas user of the download (`read_canvas_download`)."""
        return read_canvas_download(entries, scratch, label)

    def is_download_name(self, name: str) -> bool:
        """A user's file, or their text or URL entry, as the download names it."""
        return bool(CANVAS_FILE.match(name) or CANVAS_TEXT.match(name))

    def is_download_entry(self, path: Path) -> bool:
        """A user's file of the download (a text entry alone is no sign of a class)."""
        return path.is_file() and CANVAS_FILE.match(path.name) is not None

    def option_problem(self, points: float | None,
                       column: str | None) -> tuple[str, dict[str, str]] | None:
        """Canvas's import needs the assignment column, as `Title (assignment id)`, and points."""
        if not column or points is None:
            return "canvas_needs_column", {}
        if not CANVAS_TITLE_AND_ID.match(column):
            return "canvas_column_format", {"column": repr(column)}
        return None

    def fresh_gradebook(self, docs: Sequence[Document], settings: GradebookSettings,
                        lang: str, templates: Path | None = None) -> str | None:
        """canvas_gradebook.csv, when a column and points were given (no comment column)."""
        column = settings["canvas_column"]
        return canvas_csv(docs, column, settings["points"]) if column else None

    def reads_gradebook(self, header: Sequence[str]) -> bool:
        """A header Canvas's importer accepts."""
        return canvas_student_columns(header) is not None

    def check_gradebook(self, sheet: Sheet, lab: str, points: float | None,
                        column: str | None) -> None:
        """The export has the column and its points."""
        plan_canvas(sheet, column, lab, points)

    def fill_gradebook(self, sheet: Sheet, docs: Sequence[Document], lab: str,
                       points: float | None, column: str | None,
                       templates: Path | None = None) -> list[str]:
        """The scores written into the column; every other student's row left out (Canvas's
        import has no comment: nothing rendered)."""
        return fill_canvas(sheet, plan_canvas(sheet, column, lab, points), docs)

    def gradebook_ids(self, sheet: Sheet) -> set[str]:
        """The ID column of every student row."""
        return {cells[1].strip() for _, cells in _student_rows(sheet, None)}

    def feedback_name(self, report: Document) -> str | None:
        """The re-upload name Canvas reads as this student's (`canvas_name`)."""
        return canvas_name(report)


TARGET = Canvas()
