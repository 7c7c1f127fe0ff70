"""Tests for grader.cli through `python -m grader`: commands, exit codes, reports on disk."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from grader.grading.sandbox.jail import available_isolation
from grader.results.i18n import Catalogue
from grader.results.messages import describe_detail
from grader.results.render import render_feedback

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo" / "class" / "lab01_graph"
STUDENTS = sorted(path.name for path in DEMO.iterdir() if path.is_dir())
EXIT_OK, EXIT_USAGE = 0, 2


@dataclass
class Result:
    """What one command printed and returned."""

    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout[-2000:]}\n--- stderr\n{self.stderr[-2000:]}"


def grader(*args: str | Path, isolation: str | None = None) -> Result:
    """Run `python -m grader ARGS` from the repository root, in English, without colour;
    `isolation` caps the isolation it may use (GRADER_ISOLATION)."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("GRADER_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG",
                          "GRADER_ISOLATION")}
    env.update(GRADER_LANG="en", NO_COLOR="1", **({"GRADER_ISOLATION": isolation} if isolation else {}))
    env.pop("GRADER_SEED", None)
    completed = subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=300, check=False)
    return Result(completed.returncode, completed.stdout, completed.stderr)


@dataclass
class DemoRun:
    """The demo class graded once: the command's result and the documents it wrote."""

    result: Result
    out_dir: Path
    docs: dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """`grade lab01_graph demo/class/lab01_graph/* --out OUT`, run once for this module."""
    out_dir = tmp_path_factory.mktemp("demo") / "out"
    result = grader("grade", "lab01_graph", *(DEMO / name for name in STUDENTS),
                    "--out", out_dir, "--workers", "2")
    docs = {}
    for name in STUDENTS:
        path = out_dir / name / "scores.json"
        if path.is_file():
            docs[name] = json.loads(path.read_text(encoding="utf-8"))
    return DemoRun(result, out_dir, docs)


def detail_kinds(doc: dict[str, Any]) -> set[str]:
    """The detail kinds of a document's failed checks."""
    return {c["detail"]["kind"] for c in doc["checks"] if c["status"] == "failed"}


# --- usage -----------------------------------------------------------------------------------


def test_help_lists_the_commands() -> None:
    result = grader("--help")
    assert result.code == EXIT_OK, result
    for command in ("check", "grade", "render", "build-labs"):
        assert command in result.stdout, f"--help does not list {command}:\n{result}"


@pytest.mark.parametrize("command", [
    ("grade", "lab99_nope", "demo/class/lab01_graph/ana", "--out", "unused"),
    ("check", "lab99_nope"),
])
def test_unknown_lab_is_a_one_line_usage_error(command: tuple[str, ...]) -> None:
    result = grader(*command)
    assert result.code == EXIT_USAGE, result
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "unknown lab 'lab99_nope'" in errors[0], result


def test_missing_submission_path_is_a_usage_error(tmp_path: Path) -> None:
    missing = tmp_path / "nobody"
    result = grader("grade", "lab01_graph", missing, "--out", tmp_path / "out")
    assert result.code == EXIT_USAGE, result
    assert f"error: no such submission: {missing}" in result.stderr, result
    assert not (tmp_path / "out").exists(), "nothing should be written on a usage error"


def test_check_of_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = grader("check", "--path", tmp_path / "nobody")
    assert result.code == EXIT_USAGE, result
    assert "does not exist" in result.stderr, result


# --- grade -----------------------------------------------------------------------------------


def test_grading_the_demo_class_finishes_with_exit_zero(demo: DemoRun) -> None:
    assert demo.result.code == EXIT_OK, demo.result


def test_grade_prints_a_summary_row_per_student(demo: DemoRun) -> None:
    catalogue = Catalogue.load("en")
    assert catalogue.text("ui.summary_submission") in demo.result.stdout, demo.result
    rows = {line.split()[0]: line for line in demo.result.stdout.splitlines() if line.strip()}
    missing = [name for name in STUDENTS if name not in rows]
    assert missing == [], f"no summary row for {missing}:\n{demo.result}"


def test_grade_writes_scores_for_every_student(demo: DemoRun) -> None:
    assert sorted(demo.docs) == STUDENTS, f"scores.json written for {sorted(demo.docs)}"
    assert (demo.out_dir / "class.csv").is_file()
    statuses = {name: doc["status"] for name, doc in demo.docs.items()}
    assert set(statuses.values()) == {"graded"}, statuses


def test_syntax_error_is_one_problem_and_every_check_is_not_run(demo: DemoRun) -> None:
    farid = demo.docs["farid"]
    assert farid["status"] == "graded" and farid["score"] == 0.0, farid["reason"]
    problem = farid["problem"]
    assert problem["kind"] == "import-error" and "SyntaxError" in problem["message"], problem
    assert problem["file"] == "value.py" and isinstance(problem["line"], int), problem
    assert {c["status"] for c in farid["checks"]} == {"not-run"}, detail_kinds(farid)
    assert farid["pitfalls"] == [], farid["pitfalls"]


def test_feedback_leads_with_the_problem_and_lists_no_check(demo: DemoRun) -> None:
    text = (demo.out_dir / "farid" / "feedback.md").read_text(encoding="utf-8")
    heading = text.index("## Your code could not be loaded")
    assert "SyntaxError" in text[heading:heading + 400], text[:800]
    assert "## Checks to look at" not in text and "Pitfalls behind" not in text, text[:800]
    dashboard = (demo.out_dir / "dashboard.html").read_text(encoding="utf-8")
    problems = dashboard.index('id="import-failures"')  # its own section, apart from pitfalls
    assert "farid" in dashboard[problems:dashboard.index("<h3", problems + 10)]


def test_infinite_loop_is_reported_as_a_timeout_and_the_run_finishes(demo: DemoRun) -> None:
    gabriel = demo.docs["gabriel"]
    # a timeout of backward() itself is named as such (backward-does-nothing), still a timeout
    timeouts = [c for c in gabriel["checks"] if c["status"] == "failed"
                and c["detail"]["kind"] in ("timeout", "backward-never-returns")]
    assert {c["pitfall"] for c in timeouts} == {"backward-does-nothing"}, timeouts
    assert timeouts, f"no timeout reported: {detail_kinds(gabriel)}"
    catalogue = Catalogue.load("en")
    for check in timeouts:
        assert check["detail"]["params"]["seconds"] > 0, check["detail"]
        assert check["message"] == describe_detail(check["detail"], catalogue), check["message"]
    assert demo.result.code == EXIT_OK, demo.result


# --- isolation -------------------------------------------------------------------------------


def isolation_text(level: str, how: str, memory: str, lang: str = "en") -> str:
    """The summary's line for an isolation, as the catalogue words it."""
    catalogue = Catalogue.load(lang)
    names = {"level": catalogue.text(f"ui.isolation_level.{level}"),
             "how": catalogue.text(f"ui.isolation_how.{how}"),
             "memory": catalogue.text(f"ui.isolation_memory.{memory}")}
    key = "ui.isolation_line" if level == "jail" else "ui.isolation_warning"
    return catalogue.text(key, **names)


def test_every_report_and_the_summary_say_which_isolation_grading_ran_under(demo: DemoRun) -> None:
    expected = available_isolation().as_dict()
    found = {name: doc["isolation"] for name, doc in demo.docs.items()}
    assert set(map(str, found.values())) == {str(expected)}, found
    assert isolation_text(**expected) in demo.result.stdout, demo.result
    dashboard = (demo.out_dir / "dashboard.html").read_text(encoding="utf-8")
    assert f"{expected['level']} ({expected['how']})" in dashboard  # every row's isolation cell


def test_grade_refuses_to_start_without_isolation(tmp_path: Path) -> None:
    result = grader("grade", "lab01_graph", DEMO / STUDENTS[0], "--out", tmp_path / "out",
                    isolation="none")
    assert result.code == EXIT_USAGE, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--allow-unisolated" in lines[0], result
    assert not (tmp_path / "out").exists(), "nothing should be graded or written"


def test_grade_with_allow_unisolated_grades_and_warns(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = grader("grade", "lab01_graph", DEMO / STUDENTS[0], "--out", out,
                    "--allow-unisolated", isolation="none")
    assert result.code == EXIT_OK, result
    doc = json.loads((out / STUDENTS[0] / "scores.json").read_text(encoding="utf-8"))
    assert doc["isolation"]["level"] == "limits" and doc["isolation"]["how"] == "none", doc
    warning = isolation_text(**doc["isolation"])
    assert warning.startswith("Warning:") and warning in result.stdout, result
    dashboard = (out / "dashboard.html").read_text("utf-8")
    assert Catalogue.load("en").text("ui.dashboard.isolation_warning", level="jail") in dashboard


def test_check_never_refuses_and_names_its_isolation_only_when_verbose() -> None:
    quiet = grader("check", "--path", "solutions/lab01_graph", isolation="none")
    verbose = grader("check", "--path", "solutions/lab01_graph", "--verbose", isolation="none")
    assert quiet.code == verbose.code == EXIT_OK, (quiet, verbose)
    # the memory bound depends on the machine: a delegated cgroup, or the per-process limit
    lines = [isolation_text("limits", "none", memory) for memory in ("cgroup", "per-process")]
    assert any(line in verbose.stderr for line in lines), verbose
    assert "Warning:" not in quiet.stdout + quiet.stderr, quiet


# --- check and render ------------------------------------------------------------------------


def test_check_on_the_solution_prints_spanish_feedback_with_full_marks(tmp_path: Path) -> None:
    scores = tmp_path / "scores.json"
    result = grader("check", "--path", "solutions/lab01_graph", "--lang", "es", "--json", scores)
    assert result.code == EXIT_OK, result
    doc = json.loads(scores.read_text(encoding="utf-8"))
    assert (doc["lang"], doc["status"]) == ("es", "graded"), doc["reason"]
    assert doc["score"] == doc["max_score"] > 0, f"{doc['score']} / {doc['max_score']}"
    spanish = Catalogue.load("es")
    for key in ("ui.all_passed", "ui.passed_heading", "ui.status.graded"):
        assert spanish.text(key) in result.stdout, f"missing {key!r} in Spanish:\n{result}"


def test_render_rerenders_a_score_document_in_spanish_markdown(tmp_path: Path) -> None:
    source = ROOT / "tests" / "data" / "score_mixed.json"
    result = grader("render", source, "--lang", "es", "--format", "markdown")
    assert result.code == EXIT_OK, result
    doc = json.loads(source.read_text(encoding="utf-8"))
    expected = render_feedback(doc, "markdown", lang="es")
    assert result.stdout == expected + "\n", "render output differs from render_feedback"
    assert Catalogue.load("es").text("ui.status.graded") in result.stdout


def test_render_of_an_unreadable_file_is_a_usage_error(tmp_path: Path) -> None:
    result = grader("render", tmp_path / "nothing.json")
    assert result.code == EXIT_USAGE, result
    assert result.stderr.startswith("error: cannot read"), result


def test_build_labs_check_passes_on_the_committed_tree() -> None:
    result = grader("build-labs", "--check")
    assert result.code == EXIT_OK, result


def test_build_labs_with_a_malformed_readme_marker_is_a_grader_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from grader import cli

    (tmp_path / "README.md").write_text("<!-- build-labs: lab-table -->\n", encoding="utf-8")
    monkeypatch.setenv("GRADER_LANG", "en")
    monkeypatch.setattr(cli, "COURSE_ROOT", tmp_path)
    assert cli.main(["build-labs", "--check"]) == 3
    assert capsys.readouterr().err.startswith(
        "grader failure: README.md holds no complete block for lab-table:")


# --- usage errors are one line, exit 2 ---------------------------------------------------


def one_error_line(result: Result) -> str:
    """The only stderr line of a usage error."""
    assert result.code == EXIT_USAGE, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result
    return lines[0]


def test_out_that_is_a_file_is_a_usage_error(tmp_path: Path) -> None:
    out = tmp_path / "grades.txt"
    out.write_text("not a folder", encoding="utf-8")
    line = one_error_line(grader("grade", "lab01_graph", DEMO / "ana", "--out", out))
    assert f"--out {out} is a file" in line
    assert out.read_text(encoding="utf-8") == "not a folder"


@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_out_in_an_unwritable_place_is_a_usage_error(tmp_path: Path, where: str) -> None:
    if where == "proc":
        out = Path("/proc/minigrad-grades")
    else:
        (tmp_path / "file").write_text("x", encoding="utf-8")
        out = tmp_path / "file" / "grades"
    line = one_error_line(grader("grade", "lab01_graph", DEMO / "ana", "--out", out))
    assert f"--out {out}: cannot write there" in line


def test_an_empty_submission_list_is_a_usage_error(tmp_path: Path) -> None:
    line = one_error_line(grader("grade", "lab01_graph", "--out", tmp_path / "out"))
    assert "no submissions given" in line
    assert not (tmp_path / "out").exists()


def test_a_missing_argument_is_one_line_too() -> None:
    line = one_error_line(grader("grade"))
    assert "required" in line and "--help" in line


def test_workers_has_help_text() -> None:
    result = grader("grade", "--help")
    assert "--workers" in result.stdout and "in parallel" in result.stdout, result


# --- the seed warning and Spanish output -------------------------------------------------


def test_grading_without_a_seed_warns_once_and_still_grades(tmp_path: Path) -> None:
    warning = Catalogue.load("en").text("cli.seed_warning")
    unseeded = grader("grade", "lab01_graph", DEMO / "ana", "--out", tmp_path / "a",
                      "--public-only")
    assert unseeded.code == EXIT_OK, unseeded
    assert unseeded.stderr.count(warning) == 1, unseeded
    assert (tmp_path / "a" / "ana" / "scores.json").is_file()
    seeded = grader("grade", "lab01_graph", DEMO / "ana", "--out", tmp_path / "b",
                    "--public-only", "--seed", "course-secret")
    assert warning not in seeded.stderr, seeded


def test_under_lang_es_progress_summary_and_last_line_are_spanish(tmp_path: Path) -> None:
    result = grader("grade", "lab01_graph", DEMO / "ana", DEMO / "ben", "--out", tmp_path / "o",
                    "--public-only", "--seed", "s", "--lang", "es")
    assert result.code == EXIT_OK, result
    spanish = Catalogue.load("es")
    progress = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert len(progress) == 2 and all("transcurrido" in line for line in progress), result
    assert spanish.text("ui.summary_submission") in result.stdout
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("2 entregas en "), last


# --- demo/README.md: its figures are the demo's own grading -----------------------------------

DEMO_README = ROOT / "demo" / "README.md"


def _code_list(ids: list[str], conjunction: str = "and") -> str:
    """`a`, `b` and `c` (or `a`, `b` y `c`)."""
    quoted = [f"`{name}`" for name in ids]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} {conjunction} {quoted[-1]}"


def render_demo_readme(docs: dict[str, dict[str, Any]]) -> str:
    """demo/README.md from its template, with the figures of these score documents."""
    import jinja2

    def figures(doc: dict[str, Any]) -> dict[str, Any]:
        by = {status: [c["id"] for c in doc["checks"] if c["status"] == status]
              for status in ("passed", "failed", "not-run")}
        failed = {visibility: [c["id"] for c in doc["checks"]
                               if c["status"] == "failed" and c["visibility"] == visibility]
                  for visibility in ("hidden", "public")}
        problem = doc.get("problem") or {}
        return {"score": f"{doc['score']:g}", "passed": by["passed"], "failed": by["failed"],
                "not_run": by["not-run"], "failed_hidden": failed["hidden"],
                "failed_public": failed["public"],
                "problem": problem.get("message", "").replace("(value.py, ", "(")}

    first = next(iter(docs.values()))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(DEMO_README.parent),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["code"] = _code_list
    return env.get_template("README.md.j2").render(
        students=sorted(docs), s={name: figures(doc) for name, doc in docs.items()},
        total=len(first["checks"]), points=f"{first['max_score']:g}",
        hidden=sum(c["visibility"] == "hidden" for c in first["checks"]),
        public=sum(c["visibility"] == "public" for c in first["checks"]))


# The docs' examples of `grade`: the progress line (docs/instructors.md) and the score document
# (docs/score-document.md), with the figures of one demo student (read and written by these
# patterns alone).
PROGRESS_PAGE = ROOT / "docs" / "instructors.md"
SCORE_PAGE = ROOT / "docs" / "score-document.md"
SCORE_SECTION = "## The document"
PROGRESS = re.compile(r"`\[(?P<index>\d+)/(?P<count>\d+)\] (?P<student>\w+): "
                      r"(?P<score>\S+) / (?P<max_score>\S+) ·")
SCORE_EXAMPLE = re.compile(r'"submission": \{"id": "(?P<student>\w+)".*?'
                           r'"score": (?P<score>[\d.]+), "max_score": (?P<max_score>[\d.]+)',
                           re.DOTALL)


def _with_figures(text: str, match: re.Match[str], figures: dict[str, str]) -> str:
    """`text` with the named groups of `match` replaced by `figures`, the rest kept."""
    spans = sorted((match.span(name), value) for name, value in figures.items())
    for (start, end), value in reversed(spans):
        text = text[:start] + value + text[end:]
    return text


def progress_with_demo_figures(page: str, docs: dict[str, dict[str, Any]]) -> str:
    """docs/instructors.md with its progress line of `grade` saying what grading the demo gives:
    the class's size, and the score and maximum of the student it shows."""
    progress = PROGRESS.search(page)
    assert progress, f"{PROGRESS_PAGE.name} shows no progress line of `grade`"
    doc = docs[progress["student"]]
    return _with_figures(page, progress, {
        "count": str(len(STUDENTS)), "score": f"{doc['score']:g}",
        "max_score": f"{doc['max_score']:g}"})


def score_example_with_demo_figures(page: str, docs: dict[str, dict[str, Any]]) -> str:
    """docs/score-document.md with its example's score and maximum those of the demo student
    it names."""
    example = SCORE_EXAMPLE.search(page, page.index(SCORE_SECTION))
    assert example, f"{SCORE_PAGE.name}'s example names no submission, score and max_score"
    doc = docs[example["student"]]
    return _with_figures(page, example, {"score": f"{doc['score']:.1f}",
                                         "max_score": f"{doc['max_score']:.1f}"})


def test_demo_readme_figures_are_those_of_the_demo_grading(demo: DemoRun) -> None:
    """demo/README.md is written from demo/README.md.j2 and this grading, and so are the docs'
    figures of the demo (UPDATE_DEMO=1 writes them all)."""
    assert sorted(demo.docs) == STUDENTS, demo.result
    expected = {DEMO_README: render_demo_readme(demo.docs),
                PROGRESS_PAGE: progress_with_demo_figures(
                    PROGRESS_PAGE.read_text(encoding="utf-8"), demo.docs),
                SCORE_PAGE: score_example_with_demo_figures(
                    SCORE_PAGE.read_text(encoding="utf-8"), demo.docs)}
    if os.environ.get("UPDATE_DEMO"):
        for path, text in expected.items():
            path.write_text(text, encoding="utf-8")
    update = "run `UPDATE_DEMO=1 .venv/bin/pytest tests/test_cli.py -k demo_readme`"
    for path, text in expected.items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)}'s figures are not what the demo's grading gives: {update}")


def test_a_changed_demo_figure_is_drift(demo: DemoRun) -> None:
    """The writers above change a page whose figures differ, so the test above can fail."""
    page = PROGRESS_PAGE.read_text(encoding="utf-8")
    wrong = PROGRESS.sub(lambda m: m[0].replace(f": {m['score']} /", ": 1 /"), page, count=1)
    assert wrong != page and progress_with_demo_figures(wrong, demo.docs) == page
    page = SCORE_PAGE.read_text(encoding="utf-8")
    wrong = page.replace('"max_score": ', '"max_score": 1', 1)
    assert wrong != page and score_example_with_demo_figures(wrong, demo.docs) == page


def test_readme_examples_show_what_grading_the_demo_gives(demo: DemoRun) -> None:
    """The score document docs/score-document.md shows is the demo's own: its schema version, and
    the figures of the check it shows (the scores themselves: the test above)."""
    from grader.results.build import SCHEMA_VERSION

    page = SCORE_PAGE.read_text(encoding="utf-8")
    section = page[page.index(SCORE_SECTION):]
    example = section[section.index("```json"):section.index("\n```\n")]
    assert f'"schema_version": "{SCHEMA_VERSION}"' in example, "the example's schema_version"
    student = SCORE_EXAMPLE.search(example)
    assert student, example[:300]
    doc = demo.docs[student["student"]]
    shown = re.search(r'"checks": \[\{"id": "([\w-]+)".*?"status": "(\w+)", "score": ([\d.]+), '
                      r'"max_score": ([\d.]+), "visibility": "(\w+)"', example, re.DOTALL)
    assert shown, example
    check = next(c for c in doc["checks"] if c["id"] == shown[1])
    assert (shown[2], float(shown[3]), float(shown[4]), shown[5]) == (
        check["status"], check["score"], check["max_score"], check["visibility"]), check


# --- a report folder that fills up, turns read-only ------------------------------------------


@pytest.fixture
def small_out(tmp_path: Path) -> Any:
    """OUT on a tmpfs of 160 KB (one or two reports), unmounted afterwards; root only."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(out_dir)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield out_dir
    finally:
        subprocess.run(["umount", "-l", str(out_dir)], check=False)


def report_folders(out_dir: Path) -> dict[str, set[str]]:
    """Every entry of OUT: folders with the names of their files, files with nothing."""
    return {path.name: {p.name for p in path.iterdir()} if path.is_dir() else set()
            for path in out_dir.iterdir()}


def assert_complete_reports_only(out_dir: Path) -> None:
    """Every folder holds a whole report whose scores.json parses; nothing hidden, no .tmp."""
    for name, files in report_folders(out_dir).items():
        assert not name.startswith(".") and not name.endswith(".tmp"), f"left in OUT: {name}"
        if files or (out_dir / name).is_dir():
            assert files == {"scores.json", "feedback.md", "feedback.html"}, (name, files)
            json.loads((out_dir / name / "scores.json").read_text(encoding="utf-8"))


def test_a_full_disk_says_where_in_one_line_and_resume_finishes(small_out: Path) -> None:
    students = [DEMO / name for name in STUDENTS]
    result = grader("grade", "lab01_graph", *students, "--out", small_out, "--workers", "1",
                    "--seed", "s")
    assert result.code == 3, result
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith("[")]
    assert len(lines) == 1, result  # besides the progress lines, one line says what happened
    assert lines[0].startswith("no space left on device writing " + str(small_out)), lines
    assert lines[0].endswith("reports kept (each one complete); free space and rerun with --resume"), lines
    kept = int(lines[0].split(": ")[-1].split()[0])
    assert_complete_reports_only(small_out)
    assert len([n for n, f in report_folders(small_out).items() if f]) == kept, \
        (kept, report_folders(small_out))
    subprocess.run(["mount", "-o", "remount,size=4m", str(small_out)], check=True)
    resumed = grader("grade", "lab01_graph", *students, "--out", small_out, "--workers", "1",
                     "--seed", "s", "--resume")
    assert resumed.code == 0, resumed
    assert_complete_reports_only(small_out)
    assert set(STUDENTS) | {"class.csv", "dashboard.html", "shard.json"} == \
        set(report_folders(small_out))
