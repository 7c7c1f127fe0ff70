"""Canvas's gradebook import, re-implemented from its source as the oracle of the Canvas tests.

Follows instructure/canvas-lms:
- `app/models/gradebook_importer.rb`: `csv_stream` (`semicolon_delimited?`/`identify_delimiter`,
  `skip_lines: /^[;, ]*$/`, the `decimal_comma_to_period` converter for `;` files),
  `check_for_non_student_row` (the header row, `Points Possible`, muted/empty rows), `header?`,
  `row_has_student_headers?`, `update_column_count`, `strip_non_assignment_columns`,
  `parse_assignments` (`Assignment.title_and_id`, by id, by exact title, else a new assignment),
  `process_student` (the ID column's `to_i`, then the name), `process_submissions`, and in
  `parse!` the "no change" rule that drops unchanged columns (`no_change_to_submission?`,
  `no_change_to_value?`, `no_score?`); a student the file has no row for is not in `@students`,
  so nothing is posted for them;
- `ui/features/gradebook_uploads/jquery/process_gradebook_upload.js`
  `populateGradeDataPerSubmission`: a submission whose grade differs from `original_grade` is
  posted as `posted_grade: grade`, so a blank cell over an existing grade posts a blank, which
  removes the grade (`updateWillRemoveGrade` in the upload page);
- `app/models/assignment.rb` `generate_comments_from_files` and
  `infer_comment_context_from_filename`: which submission a re-uploaded file is attached to.

It is written from that source, not from grader.platforms, so the tests do not check our reading
of Canvas against itself.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation


@dataclass
class Course:
    """The Canvas course the file is imported into."""

    assignments: dict[int, str]                  # id -> title
    students: dict[int, tuple[str, str]]         # id -> (name, sortable name)
    scores: dict[tuple[int, int], str] = field(default_factory=dict)  # (user, assignment) -> score.to_s


@dataclass
class Upload:
    """What an upload would do."""

    posted: dict[tuple[int, int], str | None]    # (user id, assignment id) -> posted_grade
    new_assignments: list[str]                   # titles Canvas offers to create
    unknown_students: list[str]                  # rows matched to no student (names)


class InvalidHeaderRow(Exception):
    """`GradebookImporter::InvalidHeaderRow`: Canvas refuses the file."""


def _delimiter(text: str) -> str:
    """`identify_delimiter` on the first three lines: ';' only if it alone splits them evenly."""
    lines = text.splitlines()[:3]
    counts = {}
    for separator in (";", ","):
        sizes = {len(next(csv.reader([line], delimiter=separator))) for line in lines}
        if len(sizes) == 1:
            counts[separator] = sizes.pop()
    return ";" if list(counts) == [";"] else ","


def _decimal_comma_to_period(cell: str | None) -> str | None:
    if cell is None or not re.fullmatch(r"-?[0-9.,]+%?", cell):
        return cell
    parts = re.split(r"[,.]", cell)
    last = parts.pop()
    return last if not parts else "".join(parts) + "." + last


def _rows(text: str) -> list[list[str | None]]:
    text = text.removeprefix("\ufeff")
    separator = _delimiter(text)
    rows = []
    for line_cells in csv.reader(io.StringIO(text), delimiter=separator):
        raw = separator.join(line_cells)
        if re.fullmatch(r"[;, ]*", raw):  # skip_lines
            continue
        cells: list[str | None] = [c if c != "" else None for c in line_cells]  # :nil converter
        if separator == ";":
            cells = [_decimal_comma_to_period(c) for c in cells]
        rows.append(cells)
    return rows


def _student_columns(row: list[str | None]) -> int:
    """`header?` with `update_column_count`; InvalidHeaderRow when Canvas would refuse it."""
    cell = [c or "" for c in row]
    if not (len(row) > 3 and re.search("Student", cell[0]) and re.search("ID", cell[1])):
        raise InvalidHeaderRow(row)
    count = 3
    if re.search(r"SIS\s+Login\s+ID", cell[2]):
        count = 4
    elif re.search(r"SIS\s+User\s+ID", cell[2]) and re.search(r"SIS\s+Login\s+ID", cell[3]):
        count = 5
        if re.search(r"Integration\s+ID", cell[4]):  # the exporter's optional column
            count += 1
        if re.search(r"Root\s+Account", cell[count - 1]):
            count += 1
    if not re.search("Section", cell[count - 1]):
        raise InvalidHeaderRow(row)
    return count


def _title_and_id(header: str) -> tuple[str, str | None]:
    match = re.fullmatch(r"(.*)\s\((\d+)\)", header, re.DOTALL)
    return (match[1], match[2]) if match else (header, None)


def import_csv(text: str, course: Course) -> Upload:
    """What uploading `text` into `course` posts, per user and assignment."""
    rows = _rows(text)
    header = rows[0]
    count = _student_columns(header)
    columns = [c or "" for c in header[count:]]
    while columns and re.search("Current Score|Current Points|Current Grade|Final Score|"
                                "Final Points|Final Grade", columns[-1]):
        columns.pop()
    assignment_ids: list[int | None] = []
    new_assignments = []
    for name_and_id in columns:
        title, aid = _title_and_id(name_and_id)
        found = int(aid) if aid and int(aid) in course.assignments else None
        if found is None:
            found = next((i for i, t in course.assignments.items() if t == name_and_id), None)
        if found is None:
            new_assignments.append(title)
        assignment_ids.append(found)
    grades: dict[tuple[int, int], str | None] = {}
    unknown = []
    for row in rows[1:]:
        if row[0] and "Points Possible" in row[0]:
            continue
        if all(re.fullmatch(r"(?i)(Muted|)", c.strip()) for c in row if c is not None):
            continue
        student_id = row[1]
        student = int(student_id) if student_id and student_id.strip().isdigit() and int(
            student_id) in course.students else None
        if student is None and row[0]:
            student = next((i for i, (n, s) in course.students.items() if row[0] in (n, s)), None)
        if student is None:
            unknown.append(row[0] or "")
            continue
        for index, assignment in enumerate(assignment_ids):
            if assignment is not None:
                cell = row[count + index] if count + index < len(row) else None
                grades[(student, assignment)] = cell
    # parse!: a column where no student's grade changed is dropped ("weed out assignments").
    changed_columns = {assignment for (student, assignment), grade in grades.items()
                       if not _no_change(grade, course.scores.get((student, assignment)))}
    # populateGradeDataPerSubmission: every other grade unequal to original_grade is posted.
    posted = {key: grade for key, grade in grades.items() if key[1] in changed_columns
              and grade != course.scores.get(key)}
    return Upload(posted, new_assignments, unknown)


def _no_change(grade: str | None, original: str | None) -> bool:
    """`parse!`'s column rule: `no_change_to_submission?`, i.e. `no_change_to_value?` with
    `consider_excused: true`."""
    return no_change_to_value(grade, original, consider_excused=True)


def _no_score(value: str | None) -> bool:
    """gradebook_importer.rb `no_score?`: blank or "-"."""
    return value is None or not value.strip() or value == "-"


def no_change_to_value(new: str | None, current: str | None, consider_excused: bool = False
                       ) -> bool:
    """gradebook_importer.rb `no_change_to_value?`: equal; both without a score; else (both
    present, neither "EX" when excused counts) equal at the exporter's precision, as
    `I18n.n(value, precision: 2)` writes them."""
    if new == current:
        return True
    if _no_score(current) and _no_score(new):
        return True
    if not (current and current.strip() and new and new.strip()):
        return False
    if consider_excused and (new.casefold() == "ex" or current.casefold() == "ex"):
        return False
    return _precision_2(current) == _precision_2(new)


def _precision_2(value: str) -> str:
    """`I18n.n(value, precision: 2)`: a number rounded half up to two decimals, else the text."""
    try:
        return str(Decimal(value.strip()).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    except InvalidOperation:
        return value


def _float(text: str | None) -> float:
    """Ruby's String#to_f: the leading number, 0.0 when there is none."""
    match = re.match(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?", text or "")
    return float(match[0]) if match else 0.0


def removed_grades(upload: Upload, course: Course) -> list[tuple[int, int]]:
    """The (user, assignment) whose existing grade the upload removes (posts a blank over it)."""
    return sorted(key for key, grade in upload.posted.items()
                  if not grade and course.scores.get(key))


def changed_grades(upload: Upload, course: Course) -> dict[tuple[int, int], str | None]:
    """The posted grades that change a score: JavaScript posts "9.00" over "9.0" (a string
    compare), which leaves the score as it was; these are the others."""
    return {key: grade for key, grade in upload.posted.items()
            if not _no_change(grade, course.scores.get(key))}


# --- "Re-Upload Submissions": feedback files back onto submissions ------------------------------


@dataclass
class CanvasAssignment:
    """What the re-upload reads of an assignment: each user's active submission and the ids of
    its current attempt's attachments, and every attachment's display name."""

    submissions: dict[int, set[int]]             # user id -> attachment ids of the current attempt
    display_names: dict[int, str]                # attachment id -> display name


def infer_comment_context_from_filename(fullpath: str, assignment: CanvasAssignment
                                        ) -> dict[str, object] | None:
    """app/models/assignment.rb `infer_comment_context_from_filename`: the base name split on
    "_"; its first two tokens matching /^\\d+$/ are the user id and the attachment id (no
    attachment when the last token starts with "link" or the name starts with "._"); ignored
    unless the attachment exists, the user has an active submission, and the attachment is one of
    that submission's (the user may read their own attachments)."""
    filename = fullpath.rsplit("/", 1)[-1]
    split = filename.split("_")
    digits = [token for token in split if re.search(r"(?m)^\d+$", token)][:2]
    user_id = int(digits[0]) if digits else None
    attachment_id = int(digits[1]) if len(digits) > 1 else None
    if re.match(r"(?m)^link", split[-1]) or re.match(r"(?m)^\._", filename):
        attachment_id = None
    submission = assignment.submissions.get(user_id) if user_id is not None else None
    if attachment_id is None or attachment_id not in assignment.display_names \
            or submission is None or attachment_id not in submission:
        return None
    return {"user": user_id, "filename": fullpath,
            "display_name": assignment.display_names[attachment_id]}


def generate_comments_from_files(zip_bytes: bytes, assignment: CanvasAssignment
                                 ) -> tuple[dict[int, list[str]], list[str]]:
    """app/models/assignment.rb `generate_comments_from_files`: every file of the zip
    (ZipExtractor#unzip_files) through `infer_comment_context_from_filename`; the files of one
    user become one comment on their submission. Returns user -> the zip entries attached, and
    the ignored entries."""
    comments: dict[int, list[str]] = {}
    ignored = []
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as bundle:
        for info in bundle.infolist():
            if info.is_dir():
                continue
            found = infer_comment_context_from_filename(info.filename, assignment)
            if found is None:
                ignored.append(info.filename)
                continue
            comments.setdefault(int(str(found["user"])), []).append(info.filename)
    return comments, ignored
