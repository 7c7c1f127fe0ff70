"""A class as LMSs hand it over, through `python -m grader`: Canvas and Moodle downloads built as
those systems name them, the gradebooks they exported filled in and imported back under the LMSs'
own rules (canvas_importer, moodle_importer), shards joined by `merge` or refused, `--resume`
and the refusal of a class folder passed as one submission."""

from __future__ import annotations

import csv
import datetime
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from canvas_importer import changed_grades, import_csv, removed_grades
from lms_archives import CANVAS_EXPECTED, MOODLE_EXPECTED, Expected, canvas_export, moodle_export
from moodle_importer import Assignment, import_worksheet
from test_gradebook import LAB01, canvas_course

from grader.results.gradebook import scaled

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo" / "class" / "lab01_graph"
LMS_DATA = ROOT / "tests" / "data" / "lms"


@dataclass
class Result:
    """What one command printed and returned."""

    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout[-1500:]}\n--- stderr\n{self.stderr[-1500:]}"


def grader(*args: str | Path) -> Result:
    """Run `python -m grader ARGS` in English (unless --lang says otherwise)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LANGUAGE")}
    env.update(GRADER_LANG="en", NO_COLOR="1")
    completed = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=ROOT,
                               env=env, capture_output=True, text=True, timeout=600, check=False)
    return Result(completed.returncode, completed.stdout, completed.stderr)


def reports(out: Path) -> dict[str, dict[str, Any]]:
    """Every scores.json in a report folder, by submission id."""
    return {p.parent.name: json.loads(p.read_text(encoding="utf-8"))
            for p in out.glob("*/scores.json")}


def read_csv(path: Path) -> list[dict[str, str]]:
    """A CSV file's rows as dicts."""
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def check_members(docs: dict[str, dict[str, Any]], expected: tuple[Expected, ...]) -> None:
    """One report per student, with the LMS's ids and names and the expected outcome."""
    assert sorted(docs) == sorted(e.submission_id for e in expected)
    for item in expected:
        doc = docs[item.submission_id]
        record = doc["submission"]
        assert (record["student_id"], record["name"], doc["status"]) == (
            item.student_id, item.name, item.status), item
        assert record.get("late", False) == item.late, item
        assert tuple(record.get("duplicates", ())) == item.duplicates, item
        if item.full_marks:
            assert doc["score"] == doc["max_score"] > 0, item
        if item.candidates:
            assert doc["reason"]["kind"] == "ambiguous-file", item
            assert tuple(doc["reason"]["params"]["candidates"]) == item.candidates, item
            for candidate in item.candidates:
                assert candidate in doc["reason"]["text"], item


@pytest.fixture(scope="module")
def canvas(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Canvas download graded with --lms canvas, filling in the gradebook Canvas exported."""
    work = tmp_path_factory.mktemp("canvas")
    result = grader("grade", "lab01_graph", canvas_export(work), "--lms", "canvas",
                    "--out", work / "out", "--workers", "2", "--canvas-column", "4321",
                    "--gradebook", LMS_DATA / "canvas_gradebook_export.csv")
    assert result.code == 0, result
    assert "no row in the downloaded gradebook" not in result.stderr, result
    return work / "out"


def moodle_site(lang: str) -> Assignment:
    """The Moodle assignment of the worksheet fixtures, out of 10, graded before this run."""
    assignment = Assignment(lang, 10.0, {str(200001 + i): 9001 + i for i in range(5)})
    before = int(datetime.datetime(2026, 12, 1, 22, tzinfo=datetime.UTC).timestamp())
    assignment.grades = {9001: (4.0, before), 9003: (9.0, before), 9005: (7.0, before)}
    return assignment


@pytest.fixture(scope="module", params=[("4.1", "es"), ("older", "en")])
def moodle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[
        Path, str]:
    """A Moodle 4.1+ download graded in a Spanish Moodle, an older one in an English Moodle:
    each fills in the grading worksheet that Moodle exported."""
    form, lang = request.param
    work = tmp_path_factory.mktemp(f"moodle-{form}")
    result = grader("grade", "lab01_graph", moodle_export(work, form), "--lms", "moodle",
                    "--out", work / "out", "--workers", "2", "--lang", lang,
                    "--gradebook", LMS_DATA / f"moodle_worksheet_{lang}.csv")
    assert result.code == 0, result
    return work / "out", lang


def test_canvas_download_gives_one_report_per_student_with_canvas_ids(canvas: Path) -> None:
    check_members(reports(canvas), CANVAS_EXPECTED)


def test_canvas_regrade_imported_under_canvas_rules_removes_no_grade(canvas: Path) -> None:
    """gradebook_importer.rb (`header?`, `parse_assignments`, `process_student`, `parse!`) and
    process_gradebook_upload.js `populateGradeDataPerSubmission`: Ann (1003) and Jo (1006) had
    grades and are not gradable now; importing the filled-in export keeps them, posts every
    graded student's score out of the column's 10 points, and creates no assignment."""
    course = canvas_course()
    upload = import_csv((canvas / "canvas_gradebook.csv").read_text(encoding="utf-8"), course)
    assert removed_grades(upload, course) == [] and upload.new_assignments == []
    docs = {int(d["submission"]["student_id"]): d for d in reports(canvas).values()}
    graded = {(user, LAB01): scaled(doc, 10) for user, doc in docs.items()
              if doc["status"] == "graded" and user != 1005}  # 1005 is excused ("EX"): kept
    assert {k: float(v or "nan") for k, v in changed_grades(upload, course).items()} == {
        k: v for k, v in graded.items() if k not in course.scores or float(course.scores[k]) != v}
    for user in (1003, 1006):  # reposted as exported ("9.00" over "9.0"), the score unchanged
        grade = upload.posted.get((user, LAB01), course.scores[(user, LAB01)])
        assert float(grade or "nan") == float(course.scores[(user, LAB01)]), (user, grade)


def test_canvas_fresh_csv_needs_the_column_and_points_and_imports_under_canvas_rules(
        canvas: Path, tmp_path: Path) -> None:
    """Without --gradebook, the default column would match no assignment (`parse_assignments`
    creates one): refused with a hint; with --canvas-column 'Title (id)' and --points, the file's
    column is recognised by id and no grade is removed."""
    refused = grader("grade", "lab01_graph", canvas_export(tmp_path / "in"), "--lms", "canvas",
                     "--out", tmp_path / "refused")
    assert refused.code == 2 and len(refused.stderr.strip().splitlines()) == 1, refused
    assert "--canvas-column" in refused.stderr and "--gradebook" in refused.stderr, refused
    assert not (tmp_path / "refused").exists()
    out = tmp_path / "fresh"
    out.mkdir()
    for report in canvas.glob("*/scores.json"):
        shutil.copytree(report.parent, out / report.parent.name)
    fresh = grader("grade", "lab01_graph", canvas_export(tmp_path / "in2"), "--lms", "canvas",
                   "--out", out, "--resume", "--canvas-column", "Lab 01: graphs (4321)",
                   "--points", "10")
    assert fresh.code == 0, fresh
    course = canvas_course()
    upload = import_csv((out / "canvas_gradebook.csv").read_text(encoding="utf-8"), course)
    assert upload.new_assignments == [] and removed_grades(upload, course) == []


@pytest.mark.parametrize(("lms", "options", "says"), [
    ("moodle", (), "--points"),  # Moodle skips a grade above the maximum: it must be known
    ("canvas", ("--canvas-column", "Lab 01", "--points", "10"), "Title (assignment id)"),
    ("folders", ("--gradebook", LMS_DATA / "canvas_gradebook_export.csv", "--canvas-column", "4321"),
     "--lms canvas"),
    ("moodle", ("--gradebook", LMS_DATA / "canvas_gradebook_export.csv", "--canvas-column", "4321"),
     "--lms canvas"),
    ("moodle", ("--gradebook", LMS_DATA / "moodle_worksheet_en.csv", "--points", "58"), "differs"),
])
def test_gradebook_options_the_lms_would_misread_are_refused_before_grading(
        tmp_path: Path, lms: str, options: tuple[str | Path, ...], says: str) -> None:
    export = {"moodle": moodle_export, "canvas": canvas_export}.get(lms, lambda _: DEMO)(tmp_path)
    refused = grader("grade", "lab01_graph", export, "--lms", lms, "--out", tmp_path / "out",
                     *options)
    assert refused.code == 2 and len(refused.stderr.strip().splitlines()) == 1, refused
    assert says in refused.stderr and not (tmp_path / "out").exists(), refused


def test_moodle_download_gives_one_report_per_participant(moodle: tuple[Path, str]) -> None:
    check_members(reports(moodle[0]), MOODLE_EXPECTED)


def test_moodle_worksheet_imports_every_grade_in_range_under_moodles_rules(
        moodle: tuple[Path, str]) -> None:
    """importgradeslib.php `init` (headers in the site's language) and `next` (the participant
    id after `hiddenuser`), locallib.php `process_import_grades` (`unformat_float`, the stale
    and range checks): every graded participant's grade imports, out of 10; Ann's (not
    gradable) row is left as exported, so her grade and comment stay."""
    out, lang = moodle
    site = moodle_site(lang)
    result = import_worksheet((out / "moodle_worksheet.csv").read_text(encoding="utf-8"), site)
    docs = {site.participants[d["submission"]["student_id"]]: d for d in reports(out).values()}
    graded = {user: scaled(doc, 10) for user, doc in docs.items() if doc["status"] == "graded"}
    assert graded and result.grades == {
        u: g for u, g in graded.items() if site.grades.get(u, (None,))[0] != g}
    # Every other row is skipped as unchanged: none out of range, stale or without a value.
    assert set(result.skipped.values()) <= {"not modified"}, result.skipped
    assert 9003 not in result.feedback and 9003 not in result.grades and 9005 not in result.grades


def test_canvas_shards_merge_into_the_export_filled_in_once(canvas: Path, tmp_path: Path) -> None:
    """Each shard fills in the export with its own students; `merge` fills it in with all of
    them, the same file as one run's, and Canvas's rules remove no grade."""
    options = ("--canvas-column", "4321", "--gradebook", LMS_DATA / "canvas_gradebook_export.csv")
    export = canvas_export(tmp_path / "in")
    for index in (1, 2):
        run = grader("grade", "lab01_graph", export, "--lms", "canvas", "--shard", f"{index}/2",
                     "--out", tmp_path / f"shard-{index}", "--workers", "2", *options)
        assert run.code == 0, run
    merged = grader("merge", tmp_path / "shard-1", tmp_path / "shard-2", "--out", tmp_path / "m")
    assert merged.code == 0, merged
    text = (tmp_path / "m" / "canvas_gradebook.csv").read_text(encoding="utf-8")
    assert text == (canvas / "canvas_gradebook.csv").read_text(encoding="utf-8")
    course = canvas_course()
    assert removed_grades(import_csv(text, course), course) == []


def test_class_csv_has_ids_names_and_one_line_reasons(canvas: Path) -> None:
    rows = {row["student_id"]: row for row in read_csv(canvas / "class.csv")}
    assert rows["1001"]["name"] == "doejane" and rows["1001"]["score"] != ""
    ann = rows["1003"]
    assert ann["status"] == "ungradable" and ann["score"] == "" and ann["max_score"] == ""
    assert "value.py" in ann["reason"] and "\n" not in ann["reason"]


def test_a_class_folder_without_lms_is_refused_with_a_hint(tmp_path: Path) -> None:
    result = grader("grade", "lab01_graph", DEMO, "--out", tmp_path / "out")
    assert result.code == 2, result
    assert len(result.stderr.strip().splitlines()) == 1, result
    assert f"{DEMO}/*" in result.stderr and "--lms folders" in result.stderr, result


def test_a_bad_shard_is_a_usage_error(tmp_path: Path) -> None:
    result = grader("grade", "lab01_graph", DEMO / "ana", "--out", tmp_path, "--shard", "4/3")
    assert result.code == 2 and "K/N" in result.stderr, result


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo class graded whole, as shards 1/2 and 2/2, and shard 2/2 again with another
    seed and --points 10."""
    work = tmp_path_factory.mktemp("shards")
    runs = {"all": (), "shard-1": ("--shard", "1/2"), "shard-2": ("--shard", "2/2"),
            "shard-2-other": ("--shard", "2/2", "--seed", "another", "--points", "10")}
    for folder, extra in runs.items():
        seed = () if "--seed" in extra else ("--seed", "s1")
        run = grader("grade", "lab01_graph", DEMO, "--lms", "folders", "--out", work / folder,
                     "--workers", "2", *seed, *extra)
        assert run.code == 0, run
    return work


def test_shards_then_merge_give_the_same_class_as_one_run(shards: Path, tmp_path: Path) -> None:
    parts = [set(reports(shards / f"shard-{i}")) for i in (1, 2)]
    assert not parts[0] & parts[1] and parts[0] | parts[1] == set(reports(shards / "all"))
    merged = grader("merge", shards / "shard-1", shards / "shard-2", "--out", tmp_path / "m")
    assert merged.code == 0, merged
    alone, joined = reports(shards / "all"), reports(tmp_path / "m")
    assert {k: d["score"] for k, d in alone.items()} == {k: d["score"] for k, d in joined.items()}
    assert (shards / "all" / "class.csv").read_text() == (tmp_path / "m" / "class.csv").read_text()
    assert (tmp_path / "m" / "dashboard.html").is_file()


def test_merge_refuses_a_missing_shard_naming_its_students(shards: Path, tmp_path: Path) -> None:
    lacking = sorted(reports(shards / "shard-2"))
    refused = grader("merge", shards / "shard-1", "--out", tmp_path / "m")
    assert refused.code == 2 and len(refused.stderr.strip().splitlines()) == 1, refused
    assert all(student in refused.stderr for student in lacking), refused
    assert not (tmp_path / "m").exists()
    partial = grader("merge", shards / "shard-1", "--out", tmp_path / "m", "--allow-partial")
    assert partial.code == 0, partial
    assert sorted(reports(tmp_path / "m")) == sorted(reports(shards / "shard-1"))
    assert all(student in partial.stderr for student in lacking), partial


@pytest.mark.parametrize("other", ["shard-2-other", "shard-1"])
def test_merge_refuses_shards_graded_differently_or_twice(shards: Path, tmp_path: Path,
                                                        other: str) -> None:
    """Another seed and --points 10 (shard-2-other), or shard 1/2 given twice."""
    refused = grader("merge", shards / "shard-1", shards / other, "--out", tmp_path / "m")
    assert refused.code == 2 and len(refused.stderr.strip().splitlines()) == 1, refused
    assert ("differently" if other != "shard-1" else "twice") in refused.stderr, refused


def test_merge_names_the_setting_that_differs(shards: Path, tmp_path: Path) -> None:
    """The gradebook points alone (the same seed) are enough to refuse."""
    copy = tmp_path / "shard-2"
    shutil.copytree(shards / "shard-2", copy)
    record = json.loads((copy / "shard.json").read_text())
    record["gradebook"]["points"] = 10
    (copy / "shard.json").write_text(json.dumps(record))
    refused = grader("merge", shards / "shard-1", copy, "--out", tmp_path / "m")
    assert refused.code == 2 and "gradebook differs" in refused.stderr, refused


def test_regrading_one_submission_keeps_every_report_in_the_class_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert grader("grade", "lab01_graph", DEMO, "--lms", "folders", "--out", out).code == 0
    before = read_csv(out / "class.csv")
    again = grader("grade", "lab01_graph", DEMO / "ben", "--out", out)
    assert again.code == 0, again
    after = read_csv(out / "class.csv")
    assert [row["submission"] for row in after] == [row["submission"] for row in before]
    assert "ben" in (out / "dashboard.html").read_text() and \
        "ana" in (out / "dashboard.html").read_text()


@pytest.fixture(scope="module")
def graded_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One submission graded with --seed s1, English, hidden suite."""
    out = tmp_path_factory.mktemp("resume") / "out"
    first = grader("grade", "lab01_graph", DEMO / "ana", "--out", out, "--seed", "s1")
    assert first.code == 0, first
    return out


@pytest.mark.parametrize(("change", "kept"), [
    ((), True), (("--lang", "es"), False), (("--seed", "another"), False),
    (("--public-only",), False),
])
def test_resume_keeps_a_report_only_when_every_report_option_matches(
        graded_once: Path, tmp_path: Path, change: tuple[str, ...], kept: bool) -> None:
    out = tmp_path / "out"
    shutil.copytree(graded_once, out)
    options = json.loads((out / "ana" / "scores.json").read_text())["options"]
    assert options["seed"].startswith("sha256:") and "s1" not in json.dumps(options)
    args = ["--seed", "s1", *change] if "--seed" not in change else list(change)
    second = grader("grade", "lab01_graph", DEMO / "ana", "--out", out, "--resume", *args)
    assert second.code == 0, second
    assert ("unchanged, kept" in second.stderr) is kept, second
