"""Moodle's grading worksheet import, re-implemented from its source as the Moodle tests' oracle.

Follows moodle/moodle:
- `mod/assign/feedback/offline/importgradeslib.php`, `assignfeedback_offline_grade_importer`:
  `init` finds the columns whose header equals `get_string('gradenoun')`,
  `get_string('recordid', 'assign')` and `get_string('lastmodifiedgrade', 'assign')` in the site's
  language, and the feedback plugins' editor-field descriptions; without all three the import is
  refused (`invalidgradeimport`). `next` reads the participant id as
  `substr($idstr, strlen(get_string('hiddenuser', 'assign')))`, keeps only rows of known
  participants, reads the date with `strtotime`, and a feedback column only when its index is
  not empty (`!empty($details['index'])`).
- `mod/assign/feedback/offline/locallib.php`, `assign_feedback_offline::process_import_grades`:
  the grade through `unformat_float` (the language's `decsep`), then skipped when equal to the
  current grade, blank or negative, stale (the current grade modified more than 60 s after the
  row's date, unless "ignore modified" is ticked), or out of range (above the assignment's
  maximum grade; the worksheet's "Maximum grade" column is never read). Feedback is imported when
  the row is not stale, whatever happened to its grade.

The strings are the language packs' own (English: mod/assign/lang/en/assign.php,
lang/en/moodle.php, assignfeedback_comments; Spanish: Moodle's 4.5 pack as published in
projectestac/moodle-langpacks es/*.php), copied here rather than taken from grader.platforms.

And `mod/assign/feedback/file/importziplib.php` (`assignfeedback_file_zip_importer`:
`is_valid_filename_for_import`, `is_file_modified`, `import_zip_files`): which participant a file
of an "Upload multiple feedback files in a zip" becomes the feedback of.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import zipfile
from dataclasses import dataclass, field

SITE_STRINGS = {
    "en": {"gradenoun": "Grade", "recordid": "Identifier", "lastmodifiedgrade": "Last modified (grade)",
           "hiddenuser": "Participant ", "feedbackcomments": "Feedback comments", "decsep": "."},
    "es": {"gradenoun": "Calificación", "recordid": "Identificador",
           "lastmodifiedgrade": "Última modificación (calificación)", "hiddenuser": "Participante",
           "feedbackcomments": "Comentarios de retroalimentación", "decsep": ","},
}


@dataclass
class Assignment:
    """The Moodle assignment the worksheet is imported into."""

    lang: str
    max_grade: float
    participants: dict[str, int]                 # unique id (the download's number) -> user id
    grades: dict[int, tuple[float, int]] = field(default_factory=dict)  # user -> (grade, modified)
    comments: dict[int, str] = field(default_factory=dict)
    locked: set[int] = field(default_factory=set)


@dataclass
class Imported:
    """What an import did."""

    grades: dict[int, float]                     # user -> new grade
    feedback: dict[int, str]                     # user -> new comment
    skipped: dict[int, str]                      # user -> why its grade was not imported


class InvalidGradeImport(Exception):
    """`invalidgradeimport`: `init` found no Identifier, Grade or Last modified (grade) column."""


def strtotime(text: str) -> int | None:
    """PHP's strtotime for what a worksheet may hold: ISO 8601 read, anything else False (None).
    (PHP reads English `userdate` text too; no row here depends on it.)"""
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return int(moment.timestamp())


def unformat_float(text: str, decsep: str) -> float | None:
    """lib/moodlelib.php `unformat_float`: trimmed, '' is null, spaces dropped, decsep to '.'."""
    cleaned = text.strip()
    if cleaned == "":
        return None
    cleaned = cleaned.replace(" ", "").replace(decsep, ".")
    try:
        return float(cleaned)
    except ValueError:
        return 0.0  # PHP's (float) cast of a non-number


def import_worksheet(text: str, assignment: Assignment,
                     ignore_modified: bool = False) -> Imported:
    """Import `text` into `assignment` as Moodle does."""
    words = SITE_STRINGS[assignment.lang]
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    columns = rows[0]
    index = {name: columns.index(words[name]) if words[name] in columns else -1
             for name in ("gradenoun", "recordid", "lastmodifiedgrade", "feedbackcomments")}
    if min(index["gradenoun"], index["recordid"], index["lastmodifiedgrade"]) < 0:
        raise InvalidGradeImport(columns)
    result = Imported({}, {}, {})
    prefix = len(words["hiddenuser"].encode("utf-8"))
    for record in rows[1:]:
        unique = record[index["recordid"]].encode("utf-8")[prefix:].decode("utf-8", "replace")
        if not unique.isdigit() or unique not in assignment.participants:
            continue
        user = assignment.participants[unique]
        grade = unformat_float(record[index["gradenoun"]], words["decsep"])
        modified = strtotime(record[index["lastmodifiedgrade"]]) or 0  # false + 60 in PHP
        current = assignment.grades.get(user)
        stale = current is not None and current[1] > modified + 60
        if current is not None and grade is not None and current[0] == grade:
            result.skipped[user] = "not modified"
        elif grade is None or grade < 0:
            result.skipped[user] = "no value"
        elif not ignore_modified and stale:
            result.skipped[user] = "stale"
        elif user in assignment.locked:
            result.skipped[user] = "locked"
        elif grade > assignment.max_grade:
            result.skipped[user] = "out of range"
        else:
            result.grades[user] = grade
        if (ignore_modified or not stale) and index["feedbackcomments"] > 0:
            new = record[index["feedbackcomments"]]
            if new != assignment.comments.get(user, ""):
                result.feedback[user] = new
    return result


def apply(result: Imported, assignment: Assignment, now: int) -> None:
    """The assignment after the import (grades and comments written, at `now`)."""
    for user, grade in result.grades.items():
        assignment.grades[user] = (grade, now)
    assignment.comments.update(result.feedback)


# --- "Upload multiple feedback files in a zip" ---------------------------------------------------

# PHP 8's is_numeric: optional leading and trailing whitespace, a sign, digits with a decimal
# point or an exponent (no hex, no empty string).
PHP_NUMERIC = re.compile(r"^[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\r\v\f]*$")


def is_valid_filename_for_import(path: str, participants: dict[int, int],
                                 plugins: set[tuple[str, str]]
                                 ) -> tuple[int, tuple[str, str], str] | None:
    """mod/assign/feedback/file/importziplib.php `is_valid_filename_for_import`: hidden names
    ('.' or '~' first) are skipped; each path part in turn is exploded on '_' into at most 5
    pieces; with 4 or more, a numeric participant id (piece 1) of the assignment and an installed
    plugin (pieces 2 and 3) match, and the rest (piece 4, then the later parts) is the file name.
    Returns (user id, plugin, file name) or None."""
    name = path.rsplit("/", 1)[-1]
    if path.endswith("/") or name.startswith(".") or name.startswith("~"):
        return None
    parts = path.split("/")
    while parts:
        part = parts.pop(0)
        info = part.split("_", 4)
        if len(info) < 4 or not PHP_NUMERIC.match(info[1]):
            continue
        number = float(info[1])
        participant = int(number) if number.is_integer() else None
        if participant is None or participant not in participants:
            continue
        plugin = (info[2], info[3])
        if plugin not in plugins:
            continue
        rest = info[4] if len(info) == 5 else ""
        return participants[participant], plugin, "/".join([rest, *parts])
    return None


def import_zip_files(zip_bytes: bytes, participants: dict[int, int],
                     plugins: set[tuple[str, str]],
                     submitted: dict[int, dict[str, bytes]]) -> dict[int, dict[str, bytes]]:
    """importziplib.php `import_zip_files` with `is_file_modified`: every valid file becomes the
    user's feedback file of that name, unless (for the assignsubmission plugin type) the user
    handed in a file of the same name and content. Returns user -> {file name: content}. The
    file name is taken as `get_filename()`, so a leading '/' of the rest is dropped."""
    feedback: dict[int, dict[str, bytes]] = {}
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as bundle:
        for info in bundle.infolist():
            found = is_valid_filename_for_import(info.filename, participants, plugins)
            if found is None:
                continue
            user, plugin, filename = found
            content = bundle.read(info)
            filename = filename.lstrip("/")
            if plugin[0] == "assignsubmission" and submitted.get(user, {}).get(filename) == content:
                continue
            feedback.setdefault(user, {})[filename] = content
    return feedback
