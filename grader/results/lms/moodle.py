"""Moodle: its download's naming, its grading worksheet, its feedback-files zip.

Side: trusted (intake of a Moodle download, class files). Everything the grader does for Moodle
(moodle/moodle), as the LMS target `TARGET`:

- Intake naming (`read_moodle_download`): "Download all submissions"
  (`mod_assign\\downloader::load_submissionplugin_filelist`, mod/assign/classes/downloader.php,
  Moodle 4.1+; `assign::download_submissions` in mod/assign/locallib.php before) writes one
  folder per participant and plugin, `<Full name>_<participant id>_assignsubmission_file/...`
  (4.1+, as `downloader_test.php` expects) or `..._assignsubmission_file_/...` (older), names
  with `_` turned into spaces, blind marking writes `Participant` for the name; with "download
  submissions in folders" off, files `<Full name>_<participant id>_assignsubmission_file_<file>`.
  A download may mix the forms. The participant id is the number in the grading worksheet's
  identifier. An entry named neither way is an error, never skipped.
- A fresh worksheet (`grader.results.lms.moodle_strings`): headers in the site's language,
  `Identifier` as `get_string('hiddenuser')` + participant id, grades scaled to the assignment's
  maximum (the importer skips a grade above it) and written with the language's decimal
  separator.
- The worksheet Moodle exported, filled in (mod/assign/feedback/offline/importgradeslib.php,
  `init`, `next`; locallib.php `process_import_grades`): headers and identifiers in the site's
  language, grades scaled to the row's maximum grade, written with the language's decimal
  separator. The other participants' rows are kept byte for byte (the import skips a row whose
  grade was modified after the download).
- The feedback zip, "Upload multiple feedback files in a zip"
  (mod/assign/feedback/file/importziplib.php `is_valid_filename_for_import`): a path part split
  on `_` into at most 5 pieces must read
  `<full name>_<participant id>_<plugin type>_<plugin name>[_<rest>]`, the participant id
  numeric and one of the assignment's; the rest of the path is the feedback file's name. Each
  file is `<Full name>_<participant id>_assignsubmission_file/feedback.html`, the folder the
  download gave (a full name's `_` becomes a space, as the download writes it; `.` and `~` do
  not start a file's name, which the import skips).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.intake import archive
from grader.intake import lms as intake
from grader.intake.lms import ClassMember
from grader.results.gradebook import comment, graded_of, scaled, text_cell
from grader.results.gradebook import rows_csv as _rows_csv
from grader.results.i18n import format_number
from grader.results.lms.feedback_return import FEEDBACK_FILE
from grader.results.lms.moodle_strings import MOODLE_STRINGS, MoodleStrings, worksheet_language
from grader.results.lms.sheet import GradebookError, Sheet
from grader.results.lms.sheet import cell as _cell
from grader.results.lms.sheet import student_rows as _student_rows
from grader.results.lms.target import GradebookSettings, LmsTarget
from grader.results.score_document import Document, as_document

__all__ = ["TARGET", "Moodle", "MoodlePlan", "fill_moodle", "moodle_date", "moodle_maximum",
           "moodle_name", "moodle_worksheet", "plan_moodle"]


# --- intake naming: mod/assign/classes/downloader.php ----------------------------------------

# rest: None for a 4.1+ folder, '' for an older folder, the file's name for a flat file.
MOODLE_ENTRY = re.compile(
    r"^(?P<name>.*)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)(?:_(?P<rest>.*))?$",
    re.DOTALL)


def _moodle_entries(entries: Sequence[Path], label: str) -> tuple[
        dict[str, str], dict[str, list[Path]], dict[str, list[tuple[str, Path]]]]:
    """Names, folders and flat files by participant; intake.ExportError naming any entry that is
    neither a folder nor a file as Moodle names them."""
    names: dict[str, str] = {}
    folders: dict[str, list[Path]] = {}
    flat: dict[str, list[tuple[str, Path]]] = {}
    unread = []
    for path in entries:
        match = MOODLE_ENTRY.match(path.name)
        is_folder = match is not None and path.is_dir() and not match["rest"]
        is_flat = match is not None and path.is_file() and bool(match["rest"])
        if match is None or not (is_folder or is_flat):
            unread.append(path.name)
            continue
        participant = match["participant"]
        names.setdefault(participant, match["name"].strip())
        if match["plugin"] != "file":
            continue  # online text and other plugins hold nothing the grader can run
        if is_folder:
            folders.setdefault(participant, []).append(path)
        else:
            flat.setdefault(participant, []).append((match["rest"], path))
    if not names:
        raise intake.ExportError("not_moodle", export=label)
    if unread:
        raise intake.ExportError("not_moodle_entries", export=label,
                                 entries=", ".join(sorted(unread)[:5]))
    return names, folders, flat


def read_moodle_download(entries: Sequence[Path], scratch: Path,
                         label: str) -> list[ClassMember]:
    """One member per participant among the top entries of a "Download all submissions" folder."""
    names, folders, flat = _moodle_entries(entries, label)
    members = []
    for participant, name in names.items():
        submission_id = intake.safe_id(f"{name}_{participant}")
        paths = folders.get(participant, [])
        loose = flat.get(participant, [])
        if len(paths) == 1 and not loose:
            source = paths[0]
        else:
            staged = [(p.name, p) for folder in paths for p in sorted(folder.rglob("*"))
                      if p.is_file() and not archive.skipped(p.relative_to(folder).parts)]
            staged += loose
            source = intake.stage_files(staged, scratch / "moodle" / submission_id)
        shown = [p.name for p in paths] + [p.name for _, p in loose]
        members.append(ClassMember(submission_id, participant, name, "moodle", source,
                                   f"{label}: {', '.join(shown) or participant}",
                                   files=tuple(shown)))
    return intake.unique_members(members)


# --- gradebook ---------------------------------------------------------------------------


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


def fill_moodle(sheet: Sheet, plan: MoodlePlan, maximum: float, docs: Sequence[Document],
                templates: Path | None = None) -> list[str]:
    """Write grade, date and comment of each graded Moodle participant into its row; returns the
    ids of graded participants the worksheet has no row for (`templates`: a course's overrides,
    for the comment)."""
    by_id = {str(doc.submission.student_id): doc for doc in graded_of(docs, "moodle")}
    seen = set()
    for index, cells in _student_rows(sheet, None):
        participant = plan.words.participant(_cell(cells, plan.identifier))
        doc = by_id.get(participant)
        if doc is None:
            continue
        seen.add(participant)
        updated = list(cells) + [""] * (len(sheet.records[0][0]) - len(cells))
        updated[plan.grade] = plan.words.number(scaled(doc, maximum))
        updated[plan.modified] = moodle_date(doc.graded_at)
        if plan.feedback is not None:
            updated[plan.feedback] = text_cell(comment(doc, templates))
        sheet.replace(index, updated)
    return sorted(set(by_id) - seen)


def moodle_date(graded_at: str) -> str:
    """When the grade was set, as the worksheet's Last modified (grade): ISO 8601 with its offset,
    which PHP's strtotime (what the importer calls) reads in every site language."""
    moment = datetime.datetime.strptime(graded_at, "%Y-%m-%dT%H:%M:%SZ")
    return moment.replace(tzinfo=datetime.UTC).isoformat()


def moodle_worksheet(docs: Sequence[Document], out_of: float, lang: str = "en",
                     templates: Path | None = None) -> str:
    """Moodle's grading worksheet, headed in `lang`, one row per graded Moodle participant
    (`templates`: a course's overrides, for the comment)."""
    words = MOODLE_STRINGS[lang]
    header = [words.recordid, words.fullname, words.status, words.gradenoun, words.maxgrade,
              words.gradecanbechanged, words.lastmodifiedsubmission, words.lastmodifiedgrade,
              words.feedbackcomments]
    rows = [[words.identifier(str(doc.submission.student_id)),
             text_cell(doc.submission.name or ""), "", words.number(scaled(doc, out_of)),
             words.number(out_of), words.yes, "", moodle_date(doc.graded_at),
             text_cell(comment(doc, templates))]
            for doc in graded_of(docs, "moodle")]
    return _rows_csv(header, rows)


def moodle_name(report: Document) -> str | None:
    """The path Moodle's feedback import reads as this participant's feedback file."""
    record = as_document(report).submission
    participant = str(record.student_id or "")
    if not participant.isdigit():
        return None
    name = re.sub(r"\s+", " ", (record.name or "").replace("_", " ")).strip()
    return f"{name or 'Participant'}_{participant}_assignsubmission_file/{FEEDBACK_FILE}"


class Moodle(LmsTarget):
    """Moodle, as the LMS target the registry lists."""

    name = "moodle"
    gradebook_file = "moodle_worksheet.csv"
    feedback_zip = "moodle_feedback.zip"
    gradebook_kind = "a Moodle grading worksheet (Identifier, Grade, Last modified (grade))"

    recognition_rank = 0  # `_assignsubmission_` in every name: tried before Canvas's digits

    def read_download(self, entries: Sequence[Path], scratch: Path,
                      label: str) -> list[ClassMember]:
        """One member per participant of the download (`read_moodle_download`)."""
        return read_moodle_download(entries, scratch, label)

    def is_download_name(self, name: str) -> bool:
        """A participant's folder or file, as the download names it."""
        return MOODLE_ENTRY.match(name) is not None

    def option_problem(self, points: float | None,
                       column: str | None) -> tuple[str, dict[str, str]] | None:
        """A worksheet needs the assignment's points (its maximum grade)."""
        return ("moodle_needs_points", {}) if points is None else None

    def fresh_gradebook(self, docs: Sequence[Document], settings: GradebookSettings,
                        lang: str, templates: Path | None = None) -> str | None:
        """moodle_worksheet.csv, headed in the site's language (--lang)."""
        return moodle_worksheet(docs, settings["points"], lang, templates)

    def reads_gradebook(self, header: Sequence[str]) -> bool:
        """A header with the Identifier, Grade and Last modified (grade) of a known language."""
        return worksheet_language(list(header)) is not None

    def check_gradebook(self, sheet: Sheet, lab: str, points: float | None,
                        column: str | None) -> None:
        """The worksheet's columns and one maximum grade, which --points may only repeat."""
        moodle_maximum(sheet, plan_moodle(sheet), points)

    def fill_gradebook(self, sheet: Sheet, docs: Sequence[Document], lab: str,
                       points: float | None, column: str | None,
                       templates: Path | None = None) -> list[str]:
        """Grade, date and comment written into each graded participant's row."""
        plan = plan_moodle(sheet)
        return fill_moodle(sheet, plan, moodle_maximum(sheet, plan, points), docs, templates)

    def gradebook_ids(self, sheet: Sheet) -> set[str]:
        """The participant id of every row's Identifier."""
        plan = plan_moodle(sheet)
        return {plan.words.participant(_cell(cells, plan.identifier))
                for _, cells in _student_rows(sheet, None)}

    def feedback_name(self, report: Document) -> str | None:
        """The path Moodle's import reads as this participant's (`moodle_name`)."""
        return moodle_name(report)


TARGET = Moodle()
