"""The semester's note where students and gradebooks see it: the feedback (every format, both
languages), class.csv, the dashboard and the gradebook files, from a document's `semester`
section as grader.semester.annotation builds it from ledger rows.

The case, computed by hand: lab01 due 2026-09-14T23:59Z, handed in 2026-09-16T02:59Z (1 day 3 h
late: 2 started days at 5% = -10%); the grader gave 4 / 15; the instructor set
`diamond-accumulates` (2 points, failed) to passed: 6; after the penalty 6 * 0.9 = 5.4.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader.results.gradebook import class_csv
from grader.results.lms.moodle import moodle_worksheet
from grader.results.render import render_dashboard, render_feedback
from grader.results.score_document import parse, to_json
from grader.results.score_schema import score_schema
from grader.semester.annotation import section_of
from grader.semester.attempts import attempts_by_student, semester_grades
from grader.semester.ledger import Entry
from grader.semester.policy import Policy
from grader.semester.recording import checks_of

DATA = Path(__file__).resolve().parents[1] / "data"
POLICY = Policy(due={"lab01_graph": "2026-09-14T23:59:00Z"}, penalty_percent=5)


def annotated(lang: str = "en") -> dict[str, Any]:
    """tests/data/score_mixed.json as `grade` wrote it for a student, with its section."""
    doc = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    doc.update(lang=lang)
    doc["submission"].update(student_id="4242", lms="moodle")
    rows = [Entry("grade", "4242", "lab01_graph", submitted_at="2026-09-16T02:59:00Z",
                  score=doc["score"], max_score=doc["max_score"], doc_digest="sha256:d",
                  detail={"checks": checks_of(parse(doc))}, seq=1, who="prof"),
            Entry("override", "4242", "lab01_graph", seq=2, who="prof", detail={
                "check": "diamond-accumulates", "status": "passed", "was": "failed",
                "points": 2.0, "reason": "the diamond test was wrong"})]
    [grade] = semester_grades(rows, POLICY)
    [attempt] = attempts_by_student(rows, "lab01_graph")["4242"]
    return {**doc, "semester": to_json(section_of(grade, attempt))}


def test_the_section_follows_the_documents_schema() -> None:
    jsonschema.validate(annotated(), score_schema())


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", ["Semester: late by 1 day 3 h: -10%",
            "Semester: check diamond-accumulates set to “passed” by the instructor (prof): the "
            "diamond test was wrong; the grader said “failed”",
            "Semester: the grade that counts: 5.4 / 15"]),
    ("es", ["Semestre: entregado con 1 día 3 h de retraso: -10 %",
            "Semestre: comprobación diamond-accumulates puesta en «superada» por el docente (prof): "
            "the diamond test was wrong; el corrector dijo «fallada»",
            "Semestre: la nota que cuenta: 5,4 / 15"]),
])
def test_the_feedback_says_the_penalty_and_the_adjustment_in_each_language(
        lang: str, expected: list[str]) -> None:
    doc = annotated(lang)
    terminal = render_feedback(doc, "terminal").splitlines()
    assert [line for line in terminal if line.startswith(expected[0].split(":")[0] + ":")] == expected
    markdown = render_feedback(doc, "markdown")
    html = render_feedback(doc, "html")
    for line in expected:
        label, text = line.split(": ", 1)
        assert f"- **{label}:** " in markdown and text.split(" (")[0] in markdown, line
        assert f"<dt>{label}</dt><dd class=\"semester\">{text.split(' (')[0]}" in html, line


def test_a_document_without_a_ledger_has_no_semester_line() -> None:
    doc = annotated()
    del doc["semester"]
    assert "Semester" not in render_feedback(doc, "terminal")
    row = next(csv.DictReader(io.StringIO(class_csv([doc]))))
    assert (row["time_status"], row["counted_score"]) == ("", "")


def test_class_csv_has_the_lateness_the_penalty_and_the_grade_that_counts() -> None:
    row = next(csv.DictReader(io.StringIO(class_csv([annotated()]))))
    assert {key: row[key] for key in ("score", "submitted_at", "time_status", "late_by_hours",
                                      "penalty_percent", "counted_score")} == {
        "score": "4", "submitted_at": "2026-09-16T02:59:00Z", "time_status": "late",
        "late_by_hours": "27", "penalty_percent": "10", "counted_score": "5.4"}


def test_the_gradebook_gets_the_grade_after_the_penalty() -> None:
    rows = list(csv.reader(io.StringIO(moodle_worksheet([annotated()], 10.0, "en"))))
    assert rows[1][3] == "3.6"  # 5.4 / 15 * 10
    assert rows[1][8].endswith("late by 1 day 3 h: -10%. check diamond-accumulates set to “passed” "
                               "by the instructor (prof): the diamond test was wrong; the grader "
                               "said “failed”. the grade that counts: 5.4 / 15."), rows[1][8]


def test_the_dashboard_shows_the_note() -> None:
    assert "late by 1 day 3 h: -10%" in render_dashboard([annotated()], "en")
    assert "entregado con 1 día 3 h de retraso: -10 %" in render_dashboard([annotated()], "es")


def test_time_unknown_is_said_and_the_policy_may_take_the_cap_for_an_lms_late_flag() -> None:
    doc = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    row = Entry("grade", "s", "lab01_graph", late=True, score=4.0, max_score=15.0,
                detail={"checks": checks_of(parse(doc))}, seq=1)
    lenient = Policy(due={"lab01_graph": "2026-09-14T23:59:00Z"}, penalty_cap_percent=30)
    strict = Policy(**{**lenient.__dict__, "unknown_time": "cap_if_marked_late"})
    notes = {}
    for name, policy in (("lenient", lenient), ("strict", strict)):
        [grade] = semester_grades([row], policy)
        [attempt] = attempts_by_student([row], "lab01_graph")["s"]
        notes[name] = (render_feedback({**doc, "semester": to_json(section_of(grade, attempt))},
                                       "terminal"), grade.final)
    assert "the LMS marks it late but gives no time: no penalty applied" in notes["lenient"][0]
    assert notes["lenient"][1] == 4.0
    assert "the LMS marks it late but gives no time: the policy takes the cap, -30%" in notes["strict"][0]
    assert notes["strict"][1] == pytest.approx(2.8)
