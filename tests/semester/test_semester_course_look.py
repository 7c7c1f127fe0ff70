"""The semester's notes reach a course's look: when the ledger writes a report folder's reports
again with their notes (`semester record`, `grade --ledger`: `annotate_folder`), it renders them
through the course templates the folder was graded with (`grader.results.course_look`), not the
grader's own."""

from __future__ import annotations

from pathlib import Path

from test_semester_note import annotated

from grader.grading.batch import write_reports
from grader.grading.course_config import load_course_config
from grader.results.course_look import remember_templates
from grader.results.i18n import Catalogue
from grader.results.score_document import Semester, parse_record
from grader.results.semester_note import note_lines
from grader.semester.annotation import annotate_folder
from grader.semester.recording import document_digest

MARK = "COURSE-NOTE"


def test_the_notes_written_later_go_through_the_folders_course_templates(tmp_path: Path) -> None:
    partial = tmp_path / "course" / "templates" / "partials" / "semester_note.md.j2"
    partial.parent.mkdir(parents=True)
    partial.write_text("{% for note in semester_note %}" + MARK + " {{ note }}\n{% endfor %}",
                       encoding="utf-8")
    (tmp_path / "course" / "course.toml").write_text("[weights]\n", encoding="utf-8")
    templates = load_course_config(tmp_path / "course" / "course.toml").templates
    doc = annotated()
    section = parse_record(Semester, doc.pop("semester"), "semester")
    out = tmp_path / "out"
    out.mkdir()
    remember_templates(out, templates)
    report = write_reports(doc, out, templates)
    assert MARK not in (report / "feedback.md").read_text(encoding="utf-8")  # no note yet
    digest = document_digest((report / "scores.json").read_bytes())
    assert annotate_folder(out, {digest: section}) == 1
    notes = note_lines(section, Catalogue.load("en"))
    assert notes
    feedback = (report / "feedback.md").read_text(encoding="utf-8")
    assert [line for line in feedback.splitlines() if line.startswith(MARK)] == [
        f"{MARK} {note}" for note in notes]
