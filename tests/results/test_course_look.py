"""Every rendering a course would restyle goes through its template overrides: the feedback in
every format (`grade`'s reports, `render --config`), the LMS files (the gradebook's comment, the
feedback-return zip), the class files and `merge`, and a report folder written again later
(`--resume`, the semester's notes) through the templates it remembers (`course_look`).

Each test overrides one template with the grader's own text under a line of the course's, and
finds that line where the entry point writes, and not where no course is given."""

from __future__ import annotations

import contextlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from grader.cli import main
from grader.common.labs import COURSE_ROOT, TEMPLATE_DIR
from grader.grading.batch import write_reports
from grader.grading.course_config import load_course_config
from grader.results.class_files import write_class_files
from grader.results.course_look import remember_templates, remembered_templates
from grader.results.lms import fill_in
from grader.results.lms.feedback_return import write_feedback_zip
from grader.results.lms.moodle import TARGET as MOODLE
from grader.results.lms.moodle import moodle_worksheet
from grader.results.report_folder import COURSE_TEMPLATES, reserved_ids

DATA = Path(__file__).resolve().parents[1] / "data"
MARK = "COURSE-LOOK"
BUGGY = COURSE_ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-add"


def marked(name: str) -> str:
    """The grader's template `name` with the course's line above it."""
    return f"{MARK}\n" + (TEMPLATE_DIR / name).read_text(encoding="utf-8")


def course(folder: Path, *names: str) -> Path:
    """A course folder whose templates/ overrides `names` (each marked); its course file."""
    for name in names:
        path = folder / "templates" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(marked(name), encoding="utf-8")
    config = folder / "course.toml"
    config.write_text("[weights]\n", encoding="utf-8")
    return config


def templates_of(config: Path) -> Path:
    templates = load_course_config(config).templates
    assert templates is not None
    return templates


def moodle_doc(student: str = "4242") -> dict[str, Any]:
    """tests/data/score_mixed.json as graded from a Moodle download."""
    doc: dict[str, Any] = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    doc["submission"].update(id=f"Ann Lee_{student}", student_id=student, name="Ann Lee",
                             lms="moodle")
    return doc


def said(*words: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(words))
    return code, out.getvalue()


@pytest.mark.parametrize(("fmt", "name"), [("terminal", "feedback.terminal.j2"),
                                           ("markdown", "feedback.md.j2"),
                                           ("html", "feedback.html.j2")])
def test_render_with_a_course_file_renders_through_its_templates(tmp_path: Path, fmt: str,
                                                                  name: str) -> None:
    config = course(tmp_path / "course", name)
    scores = DATA / "score_mixed.json"
    code, restyled = said("render", str(scores), "--format", fmt, "--config", str(config))
    assert code == 0 and restyled.startswith(MARK), restyled[:200]
    code, own = said("render", str(scores), "--format", fmt)
    assert code == 0 and MARK not in own
    assert restyled.removeprefix(MARK).removeprefix("\n") == own  # (its `{#-` eats the line end)


def test_the_gradebook_comment_goes_through_the_course_templates(tmp_path: Path) -> None:
    """Moodle's worksheet carries a comment per row: written fresh and filled in."""
    templates = templates_of(course(tmp_path / "course", "platforms/gradebook_comment.txt.j2"))
    doc = moodle_doc()
    fresh = moodle_worksheet([doc], 10.0, "en", templates)
    assert MARK in fresh and MARK not in moodle_worksheet([doc], 10.0, "en")
    download = (moodle_worksheet([doc], 10.0, "en")).encode("utf-8")
    filled = fill_in.fill(download, "worksheet.csv", [doc], "lab01_graph", 10.0, None, templates)
    assert MARK in filled.text
    assert MARK not in fill_in.fill(download, "worksheet.csv", [doc], "lab01_graph", 10.0,
                                    None).text


def test_the_class_files_and_the_reports_written_again_use_the_folders_templates(
        tmp_path: Path) -> None:
    """Given once, the folder remembers them: the dashboard, the gradebook's comments and a
    report written again without templates (a `--resume`, a semester note) all carry the
    course's look; the name of that record is one no student folder may take."""
    config = course(tmp_path / "course", "dashboard.html.j2", "feedback.md.j2",
                    "platforms/gradebook_comment.txt.j2")
    templates = templates_of(config)
    out = tmp_path / "out"
    out.mkdir()
    assert remembered_templates(out) is None
    assert remember_templates(out, templates) == templates == remembered_templates(out)
    assert COURSE_TEMPLATES in reserved_ids()
    write_reports(moodle_doc(), out)  # no templates given: the folder's
    (out / "gradebook.json").write_text(json.dumps({"points": 10.0}), encoding="utf-8")
    written = write_class_files(out, "en")
    assert MARK in (out / "Ann Lee_4242" / "feedback.md").read_text(encoding="utf-8")
    assert (out / "dashboard.html").read_text(encoding="utf-8").startswith(MARK)
    assert out / MOODLE.gradebook_file in written
    assert MARK in (out / MOODLE.gradebook_file).read_text(encoding="utf-8")
    (out / COURSE_TEMPLATES).unlink()  # forgotten: the grader's own again
    write_reports(moodle_doc(), out)
    assert MARK not in (out / "Ann Lee_4242" / "feedback.md").read_text(encoding="utf-8")


def test_a_moved_course_folder_is_not_used(tmp_path: Path) -> None:
    templates = templates_of(course(tmp_path / "course", "feedback.md.j2"))
    out = tmp_path / "out"
    out.mkdir()
    remember_templates(out, templates)
    templates.rename(tmp_path / "elsewhere")
    assert remembered_templates(out) is None


def test_the_feedback_zip_carries_the_course_feedback(tmp_path: Path) -> None:
    templates = templates_of(course(tmp_path / "course", "feedback.html.j2"))
    out = tmp_path / "out"
    out.mkdir()
    doc = moodle_doc()
    write_reports(doc, out, templates)
    returned = write_feedback_zip(MOODLE, [doc], out)
    assert returned.count == 1
    with zipfile.ZipFile(returned.path) as bundle:
        [name] = bundle.namelist()
        assert bundle.read(name).decode("utf-8").startswith(MARK)


def test_grade_then_merge_keeps_the_course_look(tmp_path: Path) -> None:
    """`grade --config` in shards; `merge` (no course file given) writes the dashboard and
    prints the summary through the templates the shards were graded with."""
    config = course(tmp_path / "course", "dashboard.html.j2", "summary.terminal.j2")
    shard = tmp_path / "shard"
    code, graded = said("grade", "lab01_graph", str(BUGGY), "--out", str(shard), "--config",
                        str(config), "--allow-unisolated", "--seed", "course-look",
                        "--shard", "1/1", "--workers", "1")
    assert code == 0 and MARK in graded
    assert (shard / "dashboard.html").read_text(encoding="utf-8").startswith(MARK)
    merged = tmp_path / "merged"
    code, summary = said("merge", str(shard), "--out", str(merged))
    assert code == 0 and summary.startswith(MARK), summary[:200]
    assert (merged / "dashboard.html").read_text(encoding="utf-8").startswith(MARK)
