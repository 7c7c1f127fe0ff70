"""A simulated semester through the command line: four labs, 30 students, attempts, late work
under a capped penalty, late days, a hard cut-off, two extensions, one override of a score and
one of a check, a real mid-semester fix to a check followed by a regrade, and a replay of every
recorded grade.

Grading is the costly part, so each student's buggy attempts are graded for real (under the
student's id) and the many correct ones get the reference solution's document under the
student's id, at chosen times (the replay proves each is the document the grader writes for
that student). The mid-semester fix is real: lab04 is first graded with a hidden suite whose
`learns-xor` check could not fail (only a NaN loss failed it: PRE_FIX), then with today's
suite; the ledger keeps the suite each grading ran, so every recorded grade, before and after
the fix, replays identical. The final grades are compared with a table computed by hand below,
from the policy in POLICY.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "platforms"))  # the LMS oracles
from canvas_importer import Course, changed_grades, import_csv, removed_grades  # noqa: E402
from moodle_importer import Assignment, import_worksheet  # noqa: E402

from grader import cli  # noqa: E402
from grader.common.labs import LABS, Lab  # noqa: E402
from grader.semester.ledger import open_ledger  # noqa: E402
from grader.semester.replay import replay  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LABS_LAB04 = LABS["lab04_xor"]
SEED = "semester"
STUDENTS = [str(1000 + n) for n in range(1, 31)]  # Canvas user ids are numbers
# lab -> (two buggy fixtures); the reference solution is solutions/<lab>
GRADED = {"lab01_graph": ("bfs-order", "grad-overwrite-in-add"),
          "lab02_ops": ("exp-ignores-upstream", "pow-accepts-value-exponent"),
          "lab03_backprop": ("backward-resets-grads", "check-grad-loose-floor"),
          "lab04_xor": ("backward-on-summed-error", "zero-grad-after-update")}
# What the grader gives each (checked from the documents before anything else): the inputs of
# the hand computation below.
RAW = {"lab01_graph": {"solution": 81, "bfs-order": 76, "grad-overwrite-in-add": 66, "max": 81},
       "lab02_ops": {"solution": 230, "exp-ignores-upstream": 216,
                     "pow-accepts-value-exponent": 228, "max": 230},
       "lab03_backprop": {"solution": 100, "backward-resets-grads": 90,
                          "check-grad-loose-floor": 98, "max": 100},
       "lab04_xor": {"solution": 60, "backward-on-summed-error": 55,
                     "zero-grad-after-update": 53, "max": 60}}
# lab04 before the fix: learns-xor (4 points) passes wherever it runs; zero-grad-after-update
# fails a prerequisite of it, so it is not run either way.
RAW_BEFORE_FIX = {"solution": 60, "backward-on-summed-error": 59, "zero-grad-after-update": 53}
FIXED_CHECK = "learns-xor"
# The bug of the suite before the fix, and the line the fix restored (today's suite).
FIXED_LINE = "    if not loss < verdicts.TARGET_LOSS:\n"
PRE_FIX_LINE = "    if loss != loss:  # the bug the fix corrects: only a NaN loss failed\n"
CHECK_OVERRIDE = ("1009", "lab03_backprop", "check-grad-rejects-wrong-gradient", 1)  # its weight
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
student = "1007"
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
        {"1002": ("bfs-order", "2026-09-13T10:00:00Z"),
         "1003": ("grad-overwrite-in-add", "2026-09-16T02:59:00Z"),  # 1 day 3 h late
         "1004": ("bfs-order", "2026-09-10T10:00:00Z")},
        {"1002": ("solution", "2026-09-15T01:59:00Z"),  # 2 h late
         "1004": ("grad-overwrite-in-add", "2026-09-12T10:00:00Z")},
        {"1004": ("solution", "2026-09-14T12:00:00Z")}],
    "lab02_ops": [
        {"1002": ("solution", "2026-09-30T02:59:00Z"),  # 1 day 3 h late
         "1005": ("solution", "2026-10-04T00:00:00Z"),  # 5 days 1 min late
         "1006": ("exp-ignores-upstream", "2026-09-27T10:00:00Z"),
         "1007": ("solution", "2026-10-01T12:00:00Z"),  # late but for the extension
         "1008": ("solution", "2026-09-20T10:00:00Z")},
        {"1006": ("solution", "2026-10-07T00:00:00Z"),  # 8 days 1 min late: after the cut-off
         "1008": ("pow-accepts-value-exponent", "2026-09-27T10:00:00Z")},
        {"1008": ("exp-ignores-upstream", "2026-09-29T05:00:00Z")}],  # 5 h 1 min late
    "lab03_backprop": [
        {"1009": ("check-grad-loose-floor", "2026-10-14T05:59:00Z"),  # 1 day 6 h late
         "1010": ("backward-resets-grads", None),
         "1011": ("backward-resets-grads", "2026-10-12T10:00:00Z"),
         "1012": ("backward-resets-grads", "2026-10-14T20:00:00Z")}],  # extended (command)
    "lab04_xor": [
        {"1013": ("backward-on-summed-error", "2026-10-25T10:00:00Z"),
         "1014": ("zero-grad-after-update", "2026-10-26T10:00:00Z"),
         "1015": ("backward-on-summed-error", "2026-10-29T00:00:00Z")}],  # 2 days 1 min late
}
CANVAS_IDS = {"lab01_graph": 4301, "lab02_ops": 4302, "lab03_backprop": 4303, "lab04_xor": 4304}
OUTSIDER = 1031  # a student the LMS has a grade for and the ledger does not know

# The final grades, computed by hand from POLICY and RAW (every other student: the maximum).
# 10% per started day late, at most 30%; one late day per student per semester, spent on the
# first late lab; later than 168 h after the due date: not accepted; the last accepted counts.
EXPECTED = {
    ("1002", "lab01_graph"): "81",  # last attempt 2 h late: its one late day covers it
    ("1003", "lab01_graph"): "59.4",  # 66 * 0.9; 27 h late, the late day covers 24 h, 3 h: -10%
    ("1004", "lab01_graph"): "81",  # three attempts, the last on time
    ("1002", "lab02_ops"): "184",  # 230 * 0.8; 27 h late, no late day left: 2 started days, -20%
    ("1005", "lab02_ops"): "161",  # 230 * 0.7; 5 days 1 min less the late day: 5 days, capped 30%
    ("1006", "lab02_ops"): "216",  # the solution came after the cut-off: the first attempt
    #                                (exp-ignores-upstream, 216) counts
    ("1007", "lab02_ops"): "230",  # on time by the extension
    ("1008", "lab02_ops"): "216",  # the last of three (exp-ignores-upstream), 5 h late, covered
    #                                by the late day
    ("1009", "lab03_backprop"): "89.1",  # 98, +1 for the check the instructor set to passed:
    #                                      99; 30 h late, late day covers 24 h, 6 h: -10%
    ("1010", "lab03_backprop"): "90",  # time unknown: no penalty
    ("1011", "lab03_backprop"): "95",  # the grader's 90, overridden
    ("1012", "lab03_backprop"): "90",  # on time by the extension
    ("1013", "lab04_xor"): "55",  # 59 before the fix, 55 after it (learns-xor fails)
    ("1014", "lab04_xor"): "53",  # learns-xor not run, before and after the fix
    ("1015", "lab04_xor"): "44",  # 55 * 0.8; 2 days 1 min late, late day: 1 day 1 min, -20%
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


def grade_round(lab: str, folder: Path, chosen: dict[str, tuple[str, str | None]],
                solution: dict[str, Any]) -> Path:
    """A report folder of one round: the buggy submissions graded for real under the students'
    ids, the solution's document given to the others; the round's times CSV."""
    grade_as_students(lab, {s: name for s, (name, _) in chosen.items() if name != "solution"},
                      folder)
    return write_round(folder, {s: as_student(solution, s)
                                for s, (name, _) in chosen.items() if name == "solution"},
                       {s: when for s, (_, when) in chosen.items()})


def record_lab(lab: str, work: Path, ledger: Path, policy: Path) -> dict[str, dict[str, Any]]:
    """Grade the lab's real submissions, then record each round of the students' attempts (the
    solution's checks all pass, so its document names no example drawn from the id; the replay
    proves it identical)."""
    real = graded_once(lab, work / "graded" / lab)
    for round_index, special in enumerate(ATTEMPTS[lab]):
        students = STUDENTS if round_index == 0 else sorted(special)
        chosen = {s: special.get(s, ("solution", ON_TIME[lab])) for s in students}
        folder = work / lab / f"round{round_index + 1}"
        times = grade_round(lab, folder, chosen, real["solution"])
        run("semester", "record", lab, str(folder), "--ledger", str(ledger), "--seed", SEED,
            "--times", str(times), "--policy", str(policy), "--by", "prof")
    return real


@contextlib.contextmanager
def suite_before_the_fix(work: Path) -> Any:
    """lab04's hidden suite as it was before the mid-semester fix: today's, with PRE_FIX_LINE in
    place of FIXED_LINE (grading runs the suite folders it is given, so the lab's hidden suite
    is pointed at this copy)."""
    today = Lab.hidden_tests.fget(LABS_LAB04)  # type: ignore[attr-defined]
    copy_dir = work / "suite-before-fix" / "lab04_xor"
    shutil.copytree(today, copy_dir, ignore=shutil.ignore_patterns("__pycache__"))
    [test_file] = copy_dir.glob("test_*.py")
    source = test_file.read_text(encoding="utf-8")
    assert source.count(FIXED_LINE) == 1, "the fixed line of learns-xor moved: update FIXED_LINE"
    test_file.write_text(source.replace(FIXED_LINE, PRE_FIX_LINE), encoding="utf-8")
    original = Lab.hidden_tests
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Lab, "hidden_tests", property(
            lambda lab: copy_dir if lab.name == "lab04_xor" else original.fget(lab)))  # type: ignore[attr-defined]
        yield


def regrade_after_the_fix(work: Path) -> Path:
    """lab04 graded again with today's suite (the fix): the buggy submissions of round 1 for
    real, the solution's new document for the others; the folder."""
    real = graded_once("lab04_xor", work / "graded" / "lab04_xor-fixed")
    chosen = {s: ATTEMPTS["lab04_xor"][0].get(s, ("solution", ON_TIME["lab04_xor"]))
              for s in STUDENTS}
    folder = work / "lab04_xor" / "regrade"
    grade_round("lab04_xor", folder, chosen, real["solution"])
    return folder


def export(ledger: Path, lms: str, lab: str, work: Path) -> str:
    """The lab's gradebook file for `lms`, out of 10 points, as `semester export` writes it."""
    out = work / f"{lms}-{lab}.csv"
    run("semester", "export", lab, "--ledger", str(ledger), "--lms", lms, "--points", "10",
        *(["--canvas-column", f"{lab} ({CANVAS_IDS[lab]})"] if lms == "canvas" else []),
        "--out", str(out))
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def semester(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Grade, record, extend, override and regrade the whole semester; what the tests read."""
    work = tmp_path_factory.mktemp("semester")
    ledger, policy = work / "course.ledger", work / "semester.toml"
    policy.write_text(POLICY, encoding="utf-8")
    here = Path.cwd()
    os.chdir(ROOT)  # grade's documents name their sources relative to here
    started = time.monotonic()
    try:
        real = {lab: record_lab(lab, work, ledger, policy) for lab in GRADED if lab != "lab04_xor"}
        with suite_before_the_fix(work):
            real["lab04_xor"] = record_lab("lab04_xor", work, ledger, policy)
        run("semester", "extend", "1012", "lab03_backprop", "--until", "2026-10-14T23:59:00Z",
            "--reason", "family", "--ledger", str(ledger), "--by", "prof")
        run("semester", "override", "1011", "lab03_backprop", "--score", "95", "--reason",
            "backward-twice judged after a talk", "--ledger", str(ledger), "--by", "prof")
        student, lab, check, _ = CHECK_OVERRIDE
        run("semester", "override", student, lab, "--check", check, "--status", "passed",
            "--reason", "the tolerance was stated unclearly", "--ledger", str(ledger), "--by", "prof")
        regrade = regrade_after_the_fix(work)
        real["lab04_xor-fixed"] = json.loads(
            (work / "graded" / "lab04_xor-fixed" / "lab04_xor" / "scores.json").read_text(encoding="utf-8"))
        dry = run("semester", "regrade", "lab04_xor", str(regrade), "--ledger", str(ledger),
                  "--seed", SEED, "--dry-run")
        rows_after_dry = len(open_ledger(ledger).entries())
        wet = run("semester", "regrade", "lab04_xor", str(regrade), "--ledger", str(ledger),
                  "--seed", SEED, "--by", "prof")
        grades = run("semester", "grades", "--ledger", str(ledger))
        exported = {(lms, lab): export(ledger, lms, lab, work) for lms in ("canvas", "moodle")
                    for lab in GRADED}
        verify_out = io.StringIO()
        with contextlib.redirect_stdout(verify_out), contextlib.redirect_stderr(io.StringIO()):
            verify_code = cli.main(["semester", "verify", "--ledger", str(ledger)])
        with open_ledger(ledger) as kept:
            before_fix = [e for e in kept.entries("lab04_xor")
                          if e.kind == "grade" and e.student == "1013"]
        today = replay(before_fix)  # without the kept suite: today's, the fixed one
    finally:
        os.chdir(here)
    print(f"simulated semester: {time.monotonic() - started:.1f} s")
    return {"real": real, "ledger": ledger, "exported": exported, "dry": dry, "wet": wet, "regrade": regrade,
            "rows_after_dry": rows_after_dry, "grades": grades, "verify": verify_out.getvalue(),
            "verify_code": verify_code, "work": work, "replayed_with_today": today}


def test_the_graded_submissions_score_what_the_hand_computation_assumes(
        semester: dict[str, Any]) -> None:
    real = dict(semester["real"])
    fixed_solution = real.pop("lab04_xor-fixed")
    for lab, docs in real.items():
        scores = {name: doc["score"] for name, doc in docs.items()}
        raw = RAW_BEFORE_FIX if lab == "lab04_xor" else RAW[lab]
        assert scores == {k: v for k, v in raw.items() if k != "max"}, (lab, scores)
        assert {doc["max_score"] for doc in docs.values()} == {RAW[lab]["max"]}, lab
    assert fixed_solution["score"] == RAW["lab04_xor"]["solution"]
    student, lab, check, points = CHECK_OVERRIDE
    doc = json.loads((semester["work"] / lab / "round1" / student / "scores.json").read_text(
        encoding="utf-8"))
    [overridden] = [c for c in doc["checks"] if c["id"] == check]
    assert (overridden["status"], overridden["max_score"]) == ("failed", points)


def test_the_final_grades_match_the_hand_computed_table(semester: dict[str, Any]) -> None:
    rows = list(csv.DictReader(io.StringIO(semester["grades"])))
    got = {(r["student"], r["lab"]): r["grade"] for r in rows}
    expected = {(s, lab): EXPECTED.get((s, lab), str(RAW[lab]["max"]))
                for s in STUDENTS for lab in GRADED}
    assert got == expected, {k: (got.get(k), v) for k, v in expected.items() if got.get(k) != v}


def test_the_grades_say_why_in_their_notes(semester: dict[str, Any]) -> None:
    notes = {(r["student"], r["lab"]): r for r in csv.DictReader(io.StringIO(semester["grades"]))}
    assert notes["1003", "lab01_graph"]["note"] == "late by 1 day 3 h: 1 late day used, -10%"
    assert notes["1002", "lab02_ops"]["note"] == "late by 1 day 3 h: -20%"
    assert notes["1005", "lab02_ops"]["note"] == "late by 5 days 1 min: 1 late day used, -30% (the cap)"
    assert notes["1007", "lab02_ops"]["note"] == "on time; extension to 2026-10-02T23:59:00Z: medical"
    assert notes["1010", "lab03_backprop"]["note"] == "time unknown: no penalty applied"
    assert notes["1011", "lab03_backprop"]["note"] == (
        "on time; adjusted by the instructor (prof): backward-twice judged after a talk; "
        "the grader gave 90")
    assert notes["1012", "lab03_backprop"]["note"].endswith("extension to 2026-10-14T23:59:00Z: family")
    assert notes["1009", "lab03_backprop"]["note"] == (
        "late by 1 day 6 h: 1 late day used, -10%; check check-grad-rejects-wrong-gradient set to "
        "“passed” by the instructor (prof): the tolerance was stated unclearly; the grader said "
        "“failed”")
    assert notes["1009", "lab03_backprop"]["score"] == "99"  # the grader's 98, and the check's 1
    assert (notes["1004", "lab01_graph"]["attempts"], notes["1008", "lab02_ops"]["attempts"]) == ("3", "3")
    assert notes["1006", "lab02_ops"]["submitted_at"] == "2026-09-27T10:00:00Z"  # before the cut-off


def test_the_regrade_diff_names_exactly_the_students_and_checks_that_moved(
        semester: dict[str, Any]) -> None:
    # RAW_BEFORE_FIX's and RAW's lab04 scores: the fix fails learns-xor (4 points) where it ran
    # and the engine does not learn; 1014's is not run before or after.
    expected_lines = ["1013: 59 / 60 → 55 / 60; learns-xor passed → failed",
                      "1015: 59 / 60 → 55 / 60; learns-xor passed → failed",
                      "2 students moved, 28 unchanged."]
    assert semester["dry"].splitlines()[:3] == expected_lines, semester["dry"]
    assert semester["wet"].splitlines()[:3] == expected_lines, semester["wet"]
    rows = list(csv.DictReader((semester["regrade"] / "regrade-diff.csv").open(encoding="utf-8")))
    assert [(r["student"], r["old_score"], r["new_score"], r["changed_checks"]) for r in rows] == [
        ("1013", "59", "55", "learns-xor:passed->failed"),
        ("1015", "59", "55", "learns-xor:passed->failed")]


def test_the_dry_run_records_nothing_and_the_regrade_adds_rows(semester: dict[str, Any]) -> None:
    with open_ledger(semester["ledger"]) as ledger:
        entries = ledger.entries()
    kinds = [e.kind for e in entries]
    assert kinds.count("regrade") == 30 and len(entries) == semester["rows_after_dry"] + 30
    assert kinds.count("grade") == 30 * 4 + 1 + 2 + 1 + 2  # 1002, 1004 (2), 1006, 1008 (2) again
    assert (kinds.count("extension"), kinds.count("override"), kinds.count("policy")) == (1, 2, 1)
    assert {e.who for e in entries} == {"prof"}
    lab04 = {json.dumps(e.detail["suite_files"]) for e in entries if e.lab == "lab04_xor"
             and e.kind in ("grade", "regrade")}
    assert len(lab04) == 2  # the suite before the fix, and after it


def test_replaying_every_recorded_grade_gives_identical_documents(
        semester: dict[str, Any]) -> None:
    """Every row, before and after the fix, replays with the suite it was graded with."""
    lines = semester["verify"].splitlines()
    assert lines[-1] == f"Replayed {30 * 4 + 6 + 30} gradings: {30 * 4 + 6 + 30} identical.", lines
    assert semester["verify_code"] == 0


def test_a_grade_before_the_fix_replayed_with_todays_suite_differs(
        semester: dict[str, Any]) -> None:
    """The control: without the kept suite, the row of 1013 graded before the fix differs, so
    the identical replay above is owed to the kept suite."""
    [result] = semester["replayed_with_today"]
    assert (result.outcome, result.fields) == ("differs", ("checks", "score"))


def test_the_reports_say_the_penalty_and_class_csv_counts_it(semester: dict[str, Any]) -> None:
    """`semester record` gave the recorded reports their semester note."""
    folder = semester["work"] / "lab01_graph" / "round1"
    feedback = (folder / "1003" / "feedback.md").read_text(encoding="utf-8")
    assert "- **Semester:** late by 1 day 3 h: 1 late day used, -10%" in feedback, feedback
    rows = {r["submission"]: r for r in csv.DictReader((folder / "class.csv").open(encoding="utf-8"))}
    assert (rows["1003"]["time_status"], rows["1003"]["penalty_percent"],
            rows["1003"]["counted_score"]) == ("late", "10", "59.4")
    assert rows["1001"]["time_status"] == "on_time"


def expected_points(lab: str) -> dict[int, float]:
    """The hand-computed table of one lab, out of 10 points (what both LMSs show)."""
    return {int(s): round(float(EXPECTED.get((s, lab), RAW[lab]["max"])) / RAW[lab]["max"] * 10, 2)
            for s in STUDENTS}


@pytest.mark.parametrize("lab", list(GRADED))
def test_the_canvas_gradebook_imports_the_hand_computed_grades(semester: dict[str, Any],
                                                               lab: str) -> None:
    """Imported by the port of Canvas's importer (tests/platforms/canvas_importer.py,
    gradebook_importer.rb and process_gradebook_upload.js): every student's final grade is
    posted, and the grade of a student the ledger does not know is left alone."""
    course = Course({CANVAS_IDS[lab]: lab},
                    {int(s): (s, s) for s in [*STUDENTS, str(OUTSIDER)]},
                    {(OUTSIDER, CANVAS_IDS[lab]): "8.0"})
    upload = import_csv(semester["exported"]["canvas", lab], course)
    assert removed_grades(upload, course) == [] and upload.new_assignments == []
    changed = {user: float(grade or "nan")
               for (user, _), grade in changed_grades(upload, course).items()}
    assert changed == expected_points(lab)


@pytest.mark.parametrize("lab", list(GRADED))
def test_the_moodle_worksheet_imports_the_hand_computed_grades(semester: dict[str, Any],
                                                               lab: str) -> None:
    """Imported by the port of Moodle's importer (tests/platforms/moodle_importer.py,
    importgradeslib.php and locallib.php process_import_grades)."""
    participants = {s: int(s) for s in [*STUDENTS, str(OUTSIDER)]}
    assignment = Assignment("en", 10.0, participants, {OUTSIDER: (8.0, 0)})
    result = import_worksheet(semester["exported"]["moodle", lab], assignment)
    assert result.grades == expected_points(lab) and result.skipped == {}, result


def test_filling_in_the_canvas_download_keeps_the_grades_the_ledger_does_not_know(
        semester: dict[str, Any], tmp_path: Path) -> None:
    """--gradebook: the LMS's own export filled in (grader.results.lms.fill_in); the outsider's 8.00
    is neither blanked nor changed, as Canvas's importer port reads the file."""
    lab = "lab02_ops"
    column = f"{lab} ({CANVAS_IDS[lab]})"
    rows = [f"Student,ID,SIS User ID,SIS Login ID,Section,{column}",
            "    Points Possible,,,,,10.00",
            *(f"{s},{s},,,A," for s in STUDENTS), f"{OUTSIDER},{OUTSIDER},,,A,8.00"]
    download = tmp_path / "canvas-export.csv"
    download.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "filled.csv"
    run("semester", "export", lab, "--ledger", str(semester["ledger"]), "--lms", "canvas",
        "--points", "10", "--canvas-column", column, "--gradebook", str(download),
        "--out", str(out))
    course = Course({CANVAS_IDS[lab]: lab}, {int(s): (s, s) for s in [*STUDENTS, str(OUTSIDER)]},
                    {(OUTSIDER, CANVAS_IDS[lab]): "8.0"})
    upload = import_csv(out.read_text(encoding="utf-8"), course)
    assert removed_grades(upload, course) == []
    changed = {user: float(grade or "nan")
               for (user, _), grade in changed_grades(upload, course).items()}
    assert changed == expected_points(lab)
