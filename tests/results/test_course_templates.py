"""A course's template overrides: a `templates/` folder beside its course file is searched before
the grader's, checked when the course file is read, and used by `grade` for its reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grader.cli import main
from grader.common.labs import COURSE_ROOT, TEMPLATE_DIR
from grader.grading.course_config import ConfigError, load_course_config
from grader.results.i18n import Catalogue
from grader.results.render import render_dashboard, render_feedback

DATA = Path(__file__).resolve().parents[1] / "data"
MARK = "COURSE-BLOCK"
# The course's Markdown check block: the grader's own, with a line of the course's above it.
BLOCK_OVERRIDE = "check/block.md.j2"


def sample(name: str = "score_mixed") -> dict[str, Any]:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def course(tmp_path: Path, files: dict[str, str]) -> Path:
    """A course folder: course.toml and its templates/ holding `files`; the course file."""
    for name, text in files.items():
        path = tmp_path / "templates" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = tmp_path / "course.toml"
    config.write_text("[weights]\n", encoding="utf-8")
    return config


def marked_block() -> str:
    """The grader's Markdown check block with the course's mark on a line of its own first."""
    own = (TEMPLATE_DIR / BLOCK_OVERRIDE).read_text(encoding="utf-8")
    return own.replace("{% macro check_block(check, in_page=true) %}\n",
                       "{% macro check_block(check, in_page=true) %}\n" + MARK + " {{ check.id }}\n")


def test_a_course_block_changes_its_format_and_the_others_fall_back(tmp_path: Path) -> None:
    config = load_course_config(course(tmp_path, {BLOCK_OVERRIDE: marked_block()}))
    assert config.templates == (tmp_path / "templates").resolve()
    doc = sample()
    failed = [check["id"] for check in doc["checks"] if check["status"] != "passed"]
    overridden = render_feedback(doc, "markdown", templates=config.templates)
    assert [line.split()[1] for line in overridden.splitlines()
            if line.startswith(MARK)] == failed
    for check_id in failed:  # the mark added, nothing else changed
        overridden = overridden.replace(f"{MARK} {check_id}\n", "", 1)
    assert overridden == render_feedback(doc, "markdown")
    for fmt in ("terminal", "html"):  # no override of theirs: the grader's templates
        assert render_feedback(doc, fmt, templates=config.templates) == render_feedback(doc, fmt)
    assert MARK not in render_feedback(doc, "markdown")  # the grader's own stay as they were


def test_a_course_page_overrides_the_grader_page(tmp_path: Path) -> None:
    folder = course(tmp_path, {"dashboard.html.j2": "<p>{{ t('ui.summary_title', count='3') }}"
                                                    " &amp; our course</p>\n"})
    templates = load_course_config(folder).templates
    title = Catalogue.load("en").text("ui.summary_title", count="3")
    assert render_dashboard([sample()], "en", templates) == f"<p>{title} &amp; our course</p>\n"


def test_a_course_template_of_its_own_may_be_imported_by_its_overrides(tmp_path: Path) -> None:
    folder = course(tmp_path, {
        "own/mark.j2": "{% macro mark(check) %}" + MARK + " {{ check.id }}{% endmacro %}",
        BLOCK_OVERRIDE: "{% from 'own/mark.j2' import mark %}\n"
                        "{% macro check_block(check, in_page=true) %}\n{{ mark(check) }}\n"
                        "{% endmacro %}\n"})
    text = render_feedback(sample(), "markdown", templates=load_course_config(folder).templates)
    assert f"{MARK} diamond-accumulates" in text


@pytest.mark.parametrize(("name", "text", "says"), [
    ("check/block.markdown.j2", "x", "the grader has no template 'check/block.markdown.j2'"),
    ("feedback.md.j2", "{% if %}", "feedback.md.j2, line 1"),
])
def test_a_bad_override_is_one_clear_error_naming_it(tmp_path: Path, name: str, text: str,
                                                     says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        load_course_config(course(tmp_path, {name: text}))


def test_no_templates_folder_means_the_graders_own(tmp_path: Path) -> None:
    assert load_course_config(course(tmp_path / "bare", {})).templates is None
    # a course file beside the grader's own templates (kept in this repository): no override
    beside = course(tmp_path / "here", {})
    (tmp_path / "here" / "templates").symlink_to(TEMPLATE_DIR)
    assert load_course_config(beside).templates is None


def test_grade_writes_its_reports_through_the_courses_templates(tmp_path: Path) -> None:
    config = course(tmp_path / "course", {BLOCK_OVERRIDE: marked_block()})
    buggy = COURSE_ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-add"
    out = tmp_path / "out"
    code = main(["grade", "lab01_graph", str(buggy), "--out", str(out), "--config", str(config),
                 "--allow-unisolated", "--seed", "course-templates"])
    assert code == 0
    report = out / buggy.name
    doc = json.loads((report / "scores.json").read_text(encoding="utf-8"))
    failed = [check["id"] for check in doc["checks"] if check["status"] != "passed"]
    assert failed, "the buggy fixture should fail checks"
    markdown = (report / "feedback.md").read_text(encoding="utf-8")
    assert [line.split()[1] for line in markdown.splitlines() if line.startswith(MARK)] == failed
    assert MARK not in (report / "feedback.html").read_text(encoding="utf-8")
