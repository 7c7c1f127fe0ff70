"""A simulated semester through the command line: four labs, 30 students, attempts, late work
under a capped penalty, late days, a hard cut-off, two extensions, one override, one regrade.

Grading is the costly part, so each student's buggy attempts are graded for real (under the
student's id) and the many correct ones get the reference solution's document under the
student's id, at chosen times (the replay test proves each is the document the grader writes
for that student). The mid-semester fix to lab04's `learns-xor` check is simulated in the regrade's
documents (the check passes where it failed), so replaying those rows with today's suite must
report exactly them as different. The final grades are compared with a table computed by hand
below, from the policy in POLICY.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from grader import cli
from grader.semester.ledger import open_ledger

ROOT = Path(__file__).resolve().parents[2]
SEED = "semester"
STUDENTS = [f"s{n:02d}" for n in range(1, 31)]
# lab -> (two buggy fixtures); the reference solution is solutions/<lab>
GRADED = {"lab01_graph": ("bfs-order", "grad-overwrite-in-add"),
          "lab02_ops": ("exp-ignores-upstream", "pow-accepts-value-exponent"),
          "lab03_backprop": ("backward-resets-grads", "check-grad-loose-floor"),
          "lab04_xor": ("backward-on-summed-error", "zero-grad-after-update")}
# What the grader gives each (checked from the documents before anything else): the inputs of
# the hand computation below.
RAW = {"lab01_graph": {"solution": 67, "bfs-order": 62, "grad-overwrite-in-add": 60, "max": 67},
       "lab02_ops": {"solution": 119, "exp-ignores-upstream": 117,
                     "pow-accepts-value-exponent": 117, "max": 119},
       "lab03_backprop": {"solution": 100, "backward-resets-grads": 90,
                          "check-grad-loose-floor": 98, "max": 100},
       "lab04_xor": {"solution": 50, "backward-on-summed-error": 45,
                     "zero-grad-after-update": 43, "max": 50}}
DUE = {"lab01_graph": "2026-09-14T23:59:00Z", "lab02_ops": "2026-09-28T23:59:00Z",
       "lab03_backprop": "2026-10-12T23:59:00Z", "lab04_xor": "2026-10-26T23:59:00Z"}
POLICY = """
[semester]
counts = "last"
penalty_percent = 10
penalty_per = "day"
penalty_cap_percent = 30
late_days = 1
cutoff_hours = 168

[due]
lab01_graph = "2026-09-14T23:59:00Z"
lab02_ops = "2026-09-28T23:59:00Z"
lab03_backprop = "2026-10-12T23:59:00Z"
lab04_xor = "2026-10-26T23:59:00Z"

[[extension]]
student = "s07"
lab = "lab02_ops"
until = "2026-10-02T23:59:00Z"
reason = "medical"
"""
ON_TIME = {"lab01_graph": "2026-09-13T12:00:00Z", "lab02_ops": "2026-09-27T12:00:00Z",
           "lab03_backprop": "2026-10-11T12:00:00Z", "lab04_xor": "2026-10-25T12:00:00Z"}
# The attempts that are not "the solution, on time, once": lab -> round -> student ->
# (submission, time; None: the time is unknown). Round 1 holds every student's first attempt.
ATTEMPTS: dict[str, list[dict[str, tuple[str, str | None]]]] = {
    "lab01_graph": [
        {"s02": ("bfs-order", "2026-09-13T10:00:00Z"),
         "s03": ("grad-overwrite-in-add", "2026-09-16T02:59:00Z"),  # 1 day 3 h late
         "s04": ("bfs-order", "2026-09-10T10:00:00Z")},
        {"s02": ("solution", "2026-09-15T01:59:00Z"),  # 2 h late
         "s04": ("grad-overwrite-in-add", "2026-09-12T10:00:00Z")},
        {"s04": ("solution", "2026-09-14T12:00:00Z")}],
    "lab02_ops": [
        {"s02": ("solution", "2026-09-30T02:59:00Z"),  # 1 day 3 h late
         "s05": ("solution", "2026-10-04T00:00:00Z"),  # 5 days 1 min late
         "s06": ("exp-ignores-upstream", "2026-09-27T10:00:00Z"),
         "s07": ("solution", "2026-10-01T12:00:00Z"),  # late but for the extension
         "s08": ("solution", "2026-09-20T10:00:00Z")},
        {"s06": ("solution", "2026-10-07T00:00:00Z"),  # 8 days 1 min late: after the cut-off
         "s08": ("pow-accepts-value-exponent", "2026-09-27T10:00:00Z")},
        {"s08": ("exp-ignores-upstream", "2026-09-29T05:00:00Z")}],  # 5 h 1 min late
    "lab03_backprop": [
        {"s09": ("check-grad-loose-floor", "2026-10-14T05:59:00Z"),  # 1 day 6 h late
         "s10": ("backward-resets-grads", None),
         "s11": ("backward-resets-grads", "2026-10-12T10:00:00Z"),
         "s12": ("backward-resets-grads", "2026-10-14T20:00:00Z")}],  # extended (command)
    "lab04_xor": [
        {"s13": ("backward-on-summed-error", "2026-10-25T10:00:00Z"),
         "s14": ("zero-grad-after-update", "2026-10-26T10:00:00Z"),
         "s15": ("backward-on-summed-error", "2026-10-29T00:00:00Z")}],  # 2 days 1 min late
}
FIXED_CHECK = "learns-xor"  # lab04's check the mid-semester fix corrects (weight 4), failed or not run

# The final grades, computed by hand from POLICY and RAW (every other student: the maximum).
# 10% per started day late, at most 30%; one late day per student per semester, spent on the
# first late lab; later than 168 h after the due date: not accepted; the last accepted counts.
EXPECTED = {
    ("s02", "lab01_graph"): "67",  # last attempt 2 h late: its one late day covers it
    ("s03", "lab01_graph"): "54",  # 60; 27 h late, the late day covers 24 h, 3 h: -10%
    ("s04", "lab01_graph"): "67",  # three attempts, the last on time
    ("s02", "lab02_ops"): "95.2",  # 119; 27 h late, no late day left: 2 started days, -20%
    ("s05", "lab02_ops"): "83.3",  # 119; 5 days 1 min less the late day: 5 days, capped 30%
    ("s06", "lab02_ops"): "117",  # the solution came after the cut-off: the first attempt counts
    ("s07", "lab02_ops"): "119",  # on time by the extension
    ("s08", "lab02_ops"): "117",  # the last of three, 5 h late, covered by the late day
    ("s09", "lab03_backprop"): "88.2",  # 98; 30 h late, late day covers 24 h, 6 h: -10%
    ("s10", "lab03_backprop"): "90",  # time unknown: no penalty
    ("s11", "lab03_backprop"): "95",  # the grader's 90, overridden
    ("s12", "lab03_backprop"): "90",  # on time by the extension
    ("s13", "lab04_xor"): "49",  # 45 + the fixed check's 4
    ("s14", "lab04_xor"): "47",  # 43 + 4
    ("s15", "lab04_xor"): "39.2",  # 49; 2 days 1 min late, late day: 1 day 1 min, -20%
}


def run(*words: str) -> str:
    """Run the command line as an instructor types it; its standard output (exit code 0)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(words))
    assert code == 0, (words, out.getvalue(), err.getvalue())
    return out.getvalue()


def as_student(doc: dict[str, Any], student: str) -> dict[str, Any]:
    """The document a submission graded under the student's id gets."""
    doc = copy.deepcopy(doc)
    doc["submission"].update({"id": student, "student_id": student})
    return doc


def write_round(folder: Path, docs: dict[str, dict[str, Any]],
                times: dict[str, str | None]) -> Path:
    """A report folder of documents, and its times CSV (unknown times left out); the CSV's path."""
    for student, doc in docs.items():
        (folder / student).mkdir(parents=True, exist_ok=False)
        (folder / student / "scores.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    lines = ["student,submitted_at", *(f"{s},{t}" for s, t in times.items() if t)]
    path = folder.with_name(folder.name + "-times.csv")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def fixed(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the fixed check grades it: FIXED_CHECK passes."""
    doc = copy.deepcopy(doc)
    for check in doc["checks"]:
        if check["id"] == FIXED_CHECK and check["status"] != "passed":
            check.update(status="passed", score=check["max_score"], detail=None, message="",
                         hint="", output=None)
            doc["score"] += check["max_score"]
    return doc


def graded_once(lab: str, out: Path) -> dict[str, dict[str, Any]]:
    """The lab's three real submissions graded by `grade`: name -> document."""
    fixtures = [f"tests/fixtures/{lab}/{name}" for name in GRADED[lab]]
    run("grade", lab, f"solutions/{lab}", *fixtures, "--out", str(out), "--seed", SEED,
        "--workers", "1")
    docs = {}
    for name in ("solution", *GRADED[lab]):
        folder = lab if name == "solution" else name
        docs[name] = json.loads((out / folder / "scores.json").read_text(encoding="utf-8"))
    return docs


def grade_as_students(lab: str, chosen: dict[str, str], folder: Path) -> None:
    """Grade each student's buggy submission for real, under the student's id (its folder's
    name): the random checks draw their examples from the seed and the id."""
    if not chosen:
        return
    subs = folder.with_name(folder.name + "-submissions")
    for student, name in chosen.items():
        shutil.copytree(ROOT / "tests" / "fixtures" / lab / name, subs / student,
                        ignore=shutil.ignore_patterns("expected.toml", "__pycache__"))
    run("grade", lab, *(str(subs / s) for s in chosen), "--out", str(folder), "--seed", SEED,
        "--workers", "1")


def record_lab(lab: str, work: Path, ledger: Path, policy: Path) -> dict[str, dict[str, Any]]:
    """Grade the lab's real submissions, then record each round of the students' attempts: the
    buggy ones graded for real, the solution's document given to the others (its checks all
    pass, so it names no example drawn from the id; the replay test proves it identical)."""
    real = graded_once(lab, work / "graded" / lab)
    for round_index, special in enumerate(ATTEMPTS[lab]):
        students = STUDENTS if round_index == 0 else sorted(special)
        chosen = {s: special.get(s, ("solution", ON_TIME[lab])) for s in students}
        folder = work / lab / f"round{round_index + 1}"
        grade_as_students(lab, {s: name for s, (name, _) in chosen.items() if name != "solution"},
                          folder)
        times = write_round(folder, {s: as_student(real["solution"], s)
                                     for s, (name, _) in chosen.items() if name == "solution"},
                            {s: when for s, (_, when) in chosen.items()})
        run("semester", "record", lab, str(folder), "--ledger", str(ledger), "--seed", SEED,
            "--times", str(times), "--policy", str(policy), "--by", "prof")
    return real


@pytest.fixture(scope="module")
def semester(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Grade, record, extend, override and regrade the whole semester; what the tests read."""
    work = tmp_path_factory.mktemp("semester")
    ledger, policy = work / "course.ledger", work / "semester.toml"
    policy.write_text(POLICY, encoding="utf-8")
    here = Path.cwd()
    os.chdir(ROOT)  # grade's documents name their sources relative to here
    try:
        real = {lab: record_lab(lab, work, ledger, policy) for lab in GRADED}
        run("semester", "extend", "s12", "lab03_backprop", "--until", "2026-10-14T23:59:00Z",
            "--reason", "family", "--ledger", str(ledger), "--by", "prof")
        run("semester", "override", "s11", "lab03_backprop", "--score", "95", "--reason",
            "backward-twice judged after a talk", "--ledger", str(ledger), "--by", "prof")
        regrade = work / "lab04_xor" / "regrade"
        recorded = work / "lab04_xor" / "round1"
        for student in STUDENTS:
            doc = json.loads((recorded / student / "scores.json").read_text(encoding="utf-8"))
            (regrade / student).mkdir(parents=True)
            (regrade / student / "scores.json").write_text(json.dumps(fixed(doc)), encoding="utf-8")
        dry = run("semester", "regrade", "lab04_xor", str(regrade), "--ledger", str(ledger),
                  "--seed", SEED, "--dry-run")
        rows_after_dry = len(open_ledger(ledger).entries())
        wet = run("semester", "regrade", "lab04_xor", str(regrade), "--ledger", str(ledger),
                  "--seed", SEED, "--by", "prof")
        grades = run("semester", "grades", "--ledger", str(ledger))
        verify_out = io.StringIO()
        with contextlib.redirect_stdout(verify_out), contextlib.redirect_stderr(io.StringIO()):
            verify_code = cli.main(["semester", "verify", "--ledger", str(ledger)])
    finally:
        os.chdir(here)
    return {"real": real, "ledger": ledger, "dry": dry, "wet": wet, "regrade": regrade,
            "rows_after_dry": rows_after_dry, "grades": grades, "verify": verify_out.getvalue(),
            "verify_code": verify_code}


def test_the_graded_submissions_score_what_the_hand_computation_assumes(
        semester: dict[str, Any]) -> None:
    for lab, docs in semester["real"].items():
        scores = {name: doc["score"] for name, doc in docs.items()}
        assert scores == {k: v for k, v in RAW[lab].items() if k != "max"}, (lab, scores)
        assert {doc["max_score"] for doc in docs.values()} == {RAW[lab]["max"]}, lab


def test_the_final_grades_match_the_hand_computed_table(semester: dict[str, Any]) -> None:
    rows = list(csv.DictReader(io.StringIO(semester["grades"])))
    got = {(r["student"], r["lab"]): r["grade"] for r in rows}
    expected = {(s, lab): EXPECTED.get((s, lab), str(RAW[lab]["max"]))
                for s in STUDENTS for lab in GRADED}
    assert got == expected, {k: (got.get(k), v) for k, v in expected.items() if got.get(k) != v}


def test_the_grades_say_why_in_their_notes(semester: dict[str, Any]) -> None:
    notes = {(r["student"], r["lab"]): r for r in csv.DictReader(io.StringIO(semester["grades"]))}
    assert notes["s03", "lab01_graph"]["note"] == "late by 1 day 3 h: 1 late day used, -10%"
    assert notes["s02", "lab02_ops"]["note"] == "late by 1 day 3 h: -20%"
    assert notes["s05", "lab02_ops"]["note"] == "late by 5 days 1 min: 1 late day used, -30% (the cap)"
    assert notes["s07", "lab02_ops"]["note"] == "on time; extension to 2026-10-02T23:59:00Z: medical"
    assert notes["s10", "lab03_backprop"]["note"] == "time unknown: no penalty applied"
    assert notes["s11", "lab03_backprop"]["note"] == (
        "on time; adjusted by the instructor (prof): backward-twice judged after a talk; "
        "the grader gave 90")
    assert notes["s12", "lab03_backprop"]["note"].endswith("extension to 2026-10-14T23:59:00Z: family")
    assert (notes["s04", "lab01_graph"]["attempts"], notes["s08", "lab02_ops"]["attempts"]) == ("3", "3")
    assert notes["s06", "lab02_ops"]["submitted_at"] == "2026-09-27T10:00:00Z"  # before the cut-off


def test_the_regrade_diff_names_exactly_the_students_and_checks_that_moved(
        semester: dict[str, Any]) -> None:
    expected_lines = ["s13: 45 / 50 → 49 / 50; learns-xor failed → passed",
                      "s14: 43 / 50 → 47 / 50; learns-xor not-run → passed",
                      "s15: 45 / 50 → 49 / 50; learns-xor failed → passed",
                      "3 students moved, 27 unchanged."]
    assert semester["dry"].splitlines()[:4] == expected_lines, semester["dry"]
    assert semester["wet"].splitlines()[:4] == expected_lines, semester["wet"]
    rows = list(csv.DictReader((semester["regrade"] / "regrade-diff.csv").open(encoding="utf-8")))
    assert [(r["student"], r["old_score"], r["new_score"], r["changed_checks"]) for r in rows] == [
        ("s13", "45", "49", "learns-xor:failed->passed"),
        ("s14", "43", "47", "learns-xor:not-run->passed"),  # its prerequisite failed before
        ("s15", "45", "49", "learns-xor:failed->passed")]


def test_the_dry_run_records_nothing_and_the_regrade_adds_rows(semester: dict[str, Any]) -> None:
    with open_ledger(semester["ledger"]) as ledger:
        entries = ledger.entries()
    kinds = [e.kind for e in entries]
    assert kinds.count("regrade") == 30 and len(entries) == semester["rows_after_dry"] + 30
    assert kinds.count("grade") == 30 * 4 + 1 + 2 + 1 + 2  # s02, s04 (2), s06, s08 (2) again
    assert (kinds.count("extension"), kinds.count("override"), kinds.count("policy")) == (1, 1, 1)
    assert {e.who for e in entries} == {"prof"}


def test_replaying_every_recorded_grade_gives_identical_documents(
        semester: dict[str, Any]) -> None:
    lines = semester["verify"].splitlines()
    # Every grade row replays identical; the regrade rows of the simulated fix differ, as they must.
    differing = [line for line in lines if "differs" in line]
    assert len(differing) == 3 and all(
        f"({s}, lab04_xor): the replay differs in checks, score" in text
        for s, text in zip(("s13", "s14", "s15"), differing, strict=True)), lines
    assert lines[-1] == f"Replayed {30 * 4 + 6 + 30} gradings: {30 * 4 + 6 + 27} identical.", lines
    assert semester["verify_code"] == 3
