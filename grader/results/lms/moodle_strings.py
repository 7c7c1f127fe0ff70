"""The strings a Moodle site writes in, and looks for in, the assignment's grading worksheet.

Side: trusted. Moodle's worksheet importer (`assignfeedback_offline_grade_importer::init` and
`::next`, mod/assign/feedback/offline/importgradeslib.php) finds its columns by exact header
strings from `get_string` in the site's language, and reads the participant id as the
`Identifier` cell minus the length of `get_string('hiddenuser', 'assign')`; a worksheet headed in
another language is refused (`invalidgradeimport`). Grades are read by `unformat_float`, which
takes the language's decimal separator (`langconfig` `decsep`).

English: moodle/moodle lang/en/moodle.php, mod/assign/lang/en/assign.php,
mod/assign/feedback/comments/lang/en/assignfeedback_comments.php. Spanish: Moodle's language
pack as AMOS publishes it (version 4.5), read in projectestac/moodle-langpacks es/moodle.php,
es/assign.php, es/assignfeedback_comments.php, es/langconfig.php.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MOODLE_STRINGS", "MoodleStrings", "worksheet_language"]


@dataclass(frozen=True)
class MoodleStrings:
    """One language's worksheet strings (the string ids are Moodle's)."""

    recordid: str            # 'recordid', assign: the Identifier column
    hiddenuser: str          # 'hiddenuser', assign: the prefix of every identifier
    fullname: str            # 'fullname', core
    status: str              # 'status', assign
    gradenoun: str           # 'gradenoun', core ('grade' before Moodle 4.1)
    maxgrade: str            # 'maxgrade', assign
    gradecanbechanged: str   # 'gradecanbechanged', assign
    lastmodifiedsubmission: str
    lastmodifiedgrade: str   # 'lastmodifiedgrade', assign
    feedbackcomments: str    # 'pluginname', assignfeedback_comments: its editor field's header
    decsep: str              # 'decsep', langconfig
    yes: str                 # 'yes', core: "Grade can be changed"

    def identifier(self, participant: str) -> str:
        """The Identifier cell Moodle writes (`assign_grading_table::col_recordid`)."""
        return self.hiddenuser + participant

    def participant(self, identifier: str) -> str:
        """The participant id Moodle's importer reads from an Identifier cell: the cell minus the
        prefix's length, as `substr($idstr, strlen(get_string('hiddenuser', 'assign')))`."""
        return identifier.encode("utf-8")[len(self.hiddenuser.encode("utf-8")):].decode(
            "utf-8", errors="replace")

    def number(self, value: float) -> str:
        """A grade as `format_float` writes it in this language (two decimals at most)."""
        text = f"{round(value, 2):.2f}".rstrip("0").rstrip(".")
        return text.replace(".", self.decsep)

    def unformat(self, text: str) -> float | None:
        """A grade as `unformat_float` reads it: blank is None, the decimal separator is the
        language's, spaces are dropped; None also for what PHP's float cast would not read."""
        cleaned = text.strip().replace(" ", "").replace(self.decsep, ".")
        if not cleaned:
            return None
        try:
            return float(cleaned)
        except ValueError:
            return None


MOODLE_STRINGS = {
    "en": MoodleStrings(
        recordid="Identifier", hiddenuser="Participant ", fullname="Full name", status="Status",
        gradenoun="Grade", maxgrade="Maximum grade", gradecanbechanged="Grade can be changed",
        lastmodifiedsubmission="Last modified (submission)",
        lastmodifiedgrade="Last modified (grade)", feedbackcomments="Feedback comments",
        decsep=".", yes="Yes"),
    "es": MoodleStrings(
        recordid="Identificador", hiddenuser="Participante", fullname="Nombre completo",
        status="Estado", gradenoun="Calificación", maxgrade="Calificación máxima",
        gradecanbechanged="La calificación puede ser cambiada",
        lastmodifiedsubmission="Última modificación (entrega)",
        lastmodifiedgrade="Última modificación (calificación)",
        feedbackcomments="Comentarios de retroalimentación", decsep=",", yes="Sí"),
}


def worksheet_language(header: list[str]) -> str | None:
    """The language whose Identifier, Grade and Last modified (grade) headers the row holds."""
    for lang, strings in MOODLE_STRINGS.items():
        if {strings.recordid, strings.gradenoun, strings.lastmodifiedgrade} <= set(header):
            return lang
    return None
