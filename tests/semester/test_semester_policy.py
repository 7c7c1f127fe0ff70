"""The semester policy: its file, the late penalty and its sentence, and which attempt counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.results.i18n import Catalogue
from grader.semester.attempts import semester_grades
from grader.semester.late import describe, lateness, penalised
from grader.semester.ledger import Entry
from grader.semester.policy import Extension, Policy, PolicyError, load_policy

DUE = "2026-09-14T23:59:00Z"
POLICY = Policy(due={"lab01_graph": DUE, "lab02_ops": "2026-09-21T23:59:00Z"},
                penalty_percent=5, penalty_cap_percent=20, cutoff_hours=240)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "semester.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_policy_file_reads_every_rule(tmp_path: Path) -> None:
    policy = load_policy(write(tmp_path, """
[semester]
counts = "best"
penalty_percent = 2
penalty_per = "hour"
penalty_cap_percent = 50
late_days = 3
cutoff_hours = 48
[due]
lab01_graph = "2026-09-15T01:59:00+02:00"
[[extension]]
student = "s1"
lab = "lab01_graph"
until = "2026-09-20T00:00:00Z"
reason = "medical"
"""))
    assert policy == Policy(due={"lab01_graph": DUE}, counts="best", penalty_percent=2,
                            penalty_per="hour", penalty_cap_percent=50, late_days=3,
                            cutoff_hours=48, extensions=(Extension(
                                "s1", "lab01_graph", "2026-09-20T00:00:00Z", "medical"),))


@pytest.mark.parametrize(("text", "named"), [
    ('[due]\nlab9 = "2026-09-14T23:59:00Z"', "'lab9' is not a lab"),
    ('[due]\nlab01_graph = "2026-09-14T23:59:00"', "no time zone"),
    ('[semester]\ncounts = "first"\n[due]\nlab01_graph = "2026-09-14T23:59:00Z"', "counts"),
    ('[semester]\npenalty_percent = -1\n[due]\nlab01_graph = "2026-09-14T23:59:00Z"',
     "penalty_percent"),
    ('[semester]\nlate_day = 2\n[due]\nlab01_graph = "2026-09-14T23:59:00Z"', "late_day"),
    ('[semester]\ncounts = "last"', "[due]"),
])
def test_a_bad_policy_names_the_key(tmp_path: Path, text: str, named: str) -> None:
    with pytest.raises(PolicyError, match="semester.toml") as refused:
        load_policy(write(tmp_path, text))
    assert named in str(refused.value), refused.value


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "late by 1 day 3 h: -10%"),
    ("es", "entregado con 1 día 3 h de retraso: -10 %"),
])
def test_the_penalty_sentence_in_both_languages(lang: str, text: str) -> None:
    late = lateness(POLICY, DUE, "2026-09-16T02:59:00Z", 0)
    assert (late.percent, describe(late, Catalogue.load(lang))) == (10, text)
    assert penalised(80, late) == pytest.approx(72)


def test_the_penalty_stops_at_the_cap_and_the_cut_off_refuses() -> None:
    capped = lateness(POLICY, DUE, "2026-09-20T00:00:00Z", 0)  # 6 started days: 30% > 20%
    assert (capped.percent, capped.capped) == (20, True)
    assert describe(capped, Catalogue.load("en")) == "late by 5 days 1 min: -20% (the cap)"
    refused = lateness(POLICY, DUE, "2026-09-25T00:00:01Z", 0)
    assert not refused.accepted and penalised(80, refused) == 0


def test_an_unknown_time_is_said_and_not_penalised() -> None:
    late = lateness(POLICY, DUE, None, 0, lms_late=True)
    assert penalised(80, late) == 80
    assert describe(lateness(POLICY, DUE, None, 0), Catalogue.load("en")) == (
        "time unknown: no penalty applied")
    assert "no time" in describe(late, Catalogue.load("en"))


def attempt(seq: int, student: str, lab: str, when: str | None, score: float,
            kind: str = "grade", **detail: object) -> Entry:
    return Entry(kind, student, lab, submitted_at=when, score=score, max_score=100,
                 detail=dict(detail), at="2026-12-01T00:00:00Z", seq=seq)


LEDGER = [
    attempt(1, "a", "lab01_graph", "2026-09-10T10:00:00Z", 60),
    attempt(2, "a", "lab01_graph", "2026-09-14T10:00:00Z", 90),
    attempt(3, "a", "lab01_graph", "2026-09-15T10:00:00Z", 80),  # 10 h late: -5%
]


@pytest.mark.parametrize(("counts", "final"), [("last", 76.0), ("best", 90.0),
                                               ("last_before_deadline", 90.0)])
def test_which_attempt_counts(counts: str, final: float) -> None:
    policy = Policy(**{**POLICY.record(), "counts": counts, "extensions": ()})
    [grade] = semester_grades(LEDGER, policy)
    assert (grade.attempts, grade.final) == (3, final)


def test_a_regrade_replaces_its_attempt_and_an_override_wins_keeping_both() -> None:
    ledger = [*LEDGER, attempt(4, "a", "lab01_graph", "2026-09-15T10:00:00Z", 100, "regrade",
                               regrades=3),
              Entry("override", "a", "lab01_graph", score=50, detail={"reason": "talk"}, seq=5)]
    [grade] = semester_grades(ledger[:4], POLICY)
    assert (grade.score, grade.final) == (100, 95)
    [grade] = semester_grades(ledger, POLICY)
    assert (grade.score, grade.final, grade.override and grade.override.detail) == (
        100, 50, {"reason": "talk"})


def test_an_extension_moves_the_due_date_and_late_days_go_to_the_earliest_lab() -> None:
    ledger = [attempt(1, "b", "lab02_ops", "2026-09-23T00:00:00Z", 100),  # 1 day 1 min late
              attempt(2, "b", "lab01_graph", "2026-09-15T10:00:00Z", 100)]  # 10 h late
    policy = Policy(**{**POLICY.record(), "late_days": 1, "extensions": ()})
    first, second = semester_grades(ledger, policy)
    assert (first.lab, first.late and first.late.late_days_used, first.final) == (
        "lab01_graph", 1, 100)
    assert (second.lab, second.final) == ("lab02_ops", 90)  # 2 started days, no late day left
    extended = [*ledger, Entry("extension", "b", "lab02_ops", detail={
        "until": "2026-09-24T00:00:00Z", "reason": "medical"}, seq=3)]
    assert semester_grades(extended, policy)[1].final == 100


def test_a_penalty_per_hour_counts_started_hours_up_to_the_cap() -> None:
    hourly = Policy(due={"lab01_graph": DUE}, penalty_percent=2, penalty_per="hour",
                    penalty_cap_percent=25)
    late = lateness(hourly, DUE, "2026-09-15T02:00:00Z", 0)  # 2 h 1 min: 3 started hours
    assert (late.percent, late.capped) == (6, False)
    assert describe(late, Catalogue.load("en")) == "late by 2 h 1 min: -6%"
    assert lateness(hourly, DUE, "2026-09-15T23:59:00Z", 0).percent == 25  # 24 h: 48% capped
