"""A class as LMSs hand it over, through `python -m grader`: Canvas and Moodle downloads built as
those systems name them, their gradebook files parsed back, shards joined by `merge`, `--resume`
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
from lms_archives import CANVAS_EXPECTED, MOODLE_EXPECTED, Expected, canvas_export, moodle_export

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo" / "class" / "lab01_graph"


@dataclass
class Result:
    """What one command printed and returned."""

    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout[-1500:]}\n--- stderr\n{self.stderr[-1500:]}"


def grader(*args: str | Path) -> Result:
    """Run `python -m grader ARGS` in English."""
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
        assert tuple(record.get("earlier", ())) == item.earlier, item
        if item.full_marks:
            assert doc["score"] == doc["max_score"] > 0, item
        if item.candidates:
            assert doc["reason"]["kind"] == "ambiguous-file", item
            assert tuple(doc["reason"]["params"]["candidates"]) == item.candidates, item
            for candidate in item.candidates:
                assert candidate in doc["reason"]["text"], item


@pytest.fixture(scope="module")
def canvas(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Canvas download graded with --lms canvas."""
    work = tmp_path_factory.mktemp("canvas")
    result = grader("grade", "lab01_graph", canvas_export(work), "--lms", "canvas",
                    "--out", work / "out", "--workers", "2", "--canvas-column", "Lab 01 (4321)")
    assert result.code == 0, result
    return work / "out"


@pytest.fixture(scope="module")
def moodle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Moodle download graded with --lms moodle, grades out of 10."""
    work = tmp_path_factory.mktemp("moodle")
    result = grader("grade", "lab01_graph", moodle_export(work), "--lms", "moodle",
                    "--out", work / "out", "--workers", "2", "--points", "10")
    assert result.code == 0, result
    return work / "out"


def test_canvas_download_gives_one_report_per_student_with_canvas_ids(canvas: Path) -> None:
    check_members(reports(canvas), CANVAS_EXPECTED)


def test_canvas_gradebook_csv_parses_back_with_blank_ungradable_grades(canvas: Path) -> None:
    rows = read_csv(canvas / "canvas_gradebook.csv")
    assert list(rows[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                             "Lab 01 (4321)"]
    docs = {doc["submission"]["student_id"]: doc for doc in reports(canvas).values()}
    assert sorted(row["ID"] for row in rows) == sorted(docs)
    for row in rows:
        doc = docs[row["ID"]]
        grade = row["Lab 01 (4321)"]
        if doc["status"] == "graded":
            assert float(grade) == doc["score"], row
        else:
            assert grade == "", f"not graded must stay blank, not zero: {row}"


def test_class_csv_has_ids_names_and_one_line_reasons(canvas: Path) -> None:
    rows = {row["student_id"]: row for row in read_csv(canvas / "class.csv")}
    assert rows["1001"]["name"] == "doejane" and rows["1001"]["score"] != ""
    ann = rows["1003"]
    assert ann["status"] == "ungradable" and ann["score"] == "" and ann["max_score"] == ""
    assert "value.py" in ann["reason"] and "\n" not in ann["reason"]


def test_moodle_download_gives_one_report_per_participant(moodle: Path) -> None:
    check_members(reports(moodle), MOODLE_EXPECTED)


def test_moodle_worksheet_parses_back_with_grades_and_comments(moodle: Path) -> None:
    rows = read_csv(moodle / "moodle_worksheet.csv")
    assert {"Identifier", "Grade", "Last modified (grade)", "Feedback comments"} <= set(rows[0])
    docs = {doc["submission"]["student_id"]: doc for doc in reports(moodle).values()}
    for row in rows:
        participant = row["Identifier"].removeprefix("Participant ")
        doc = docs[participant]
        assert row["Feedback comments"], row
        datetime.datetime.fromisoformat(row["Last modified (grade)"])
        if doc["status"] == "graded":
            assert float(row["Grade"]) == pytest.approx(10 * doc["score"] / doc["max_score"],
                                                        abs=0.01)
            assert row["Maximum Grade"] == "10"
        else:
            assert row["Grade"] == "" and "old/value.py" in row["Feedback comments"]
    assert sorted(row["Identifier"] for row in rows) == sorted(
        f"Participant {p}" for p in docs)


def test_a_class_folder_without_lms_is_refused_with_a_hint(tmp_path: Path) -> None:
    result = grader("grade", "lab01_graph", DEMO, "--out", tmp_path / "out")
    assert result.code == 2, result
    assert len(result.stderr.strip().splitlines()) == 1, result
    assert f"{DEMO}/*" in result.stderr and "--lms folders" in result.stderr, result


def test_a_bad_shard_is_a_usage_error(tmp_path: Path) -> None:
    result = grader("grade", "lab01_graph", DEMO / "ana", "--out", tmp_path, "--shard", "4/3")
    assert result.code == 2 and "K/N" in result.stderr, result


def test_shards_then_merge_give_the_same_class_as_one_run(tmp_path: Path) -> None:
    whole = grader("grade", "lab01_graph", DEMO, "--lms", "folders", "--out", tmp_path / "all",
                   "--workers", "2")
    assert whole.code == 0, whole
    for index in (1, 2, 3):
        part = grader("grade", "lab01_graph", DEMO, "--lms", "folders", "--shard", f"{index}/3",
                      "--out", tmp_path / f"shard-{index}", "--workers", "2")
        assert part.code == 0, part
    parts = [set(reports(tmp_path / f"shard-{i}")) for i in (1, 2, 3)]
    assert sum(len(p) for p in parts) == len(set().union(*parts)), "shards overlap"
    merged = grader("merge", *(tmp_path / f"shard-{i}" for i in (1, 2, 3)),
                    "--out", tmp_path / "merged")
    assert merged.code == 0, merged
    alone, joined = reports(tmp_path / "all"), reports(tmp_path / "merged")
    assert {k: d["score"] for k, d in alone.items()} == {k: d["score"] for k, d in joined.items()}
    assert (tmp_path / "all" / "class.csv").read_text() == \
        (tmp_path / "merged" / "class.csv").read_text()
    assert (tmp_path / "merged" / "dashboard.html").is_file()


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
