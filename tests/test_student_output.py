"""What the student's code printed during a failed check is shown under that check, capped and
escaped, in every feedback format and language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.common.labs import COURSE_ROOT, LABS
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.plugin import OUTPUT_CAP
from grader.grading.shard import GradingPlan, suites_for
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.render import FEEDBACK_TEMPLATES, render_feedback

LAB = LABS["lab01_graph"]
MUL_BACKWARD = "            other.grad += self.data * out.grad  # d(out)/d(other) = self.data\n"


def submission(tmp_path: Path, name: str, printed: str) -> Path:
    """The lab01 solution with `=` for `+=` in mul's backward, printing `printed` there."""
    source = (COURSE_ROOT / "solutions" / "lab01_graph" / "value.py").read_text(encoding="utf-8")
    assert MUL_BACKWARD in source, "the solution's mul backward moved; update this test"
    buggy = (f"            print({printed!r})\n"
             "            other.grad = self.data * out.grad\n")
    folder = tmp_path / name
    folder.mkdir()
    (folder / "value.py").write_text(source.replace(MUL_BACKWARD, buggy), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    tmp_path = tmp_path_factory.mktemp("printing")
    paths = [submission(tmp_path, "chatty", "mul backward ran"),
             submission(tmp_path, "flood", "x" * 5000)]
    plan = GradingPlan(LAB, suites_for(LAB, hidden=True), "output-test", "en")
    docs = grade_class(plan, paths, BatchOptions(out_dir=None, workers=2),
                       progress=lambda *_: None)
    return {doc["submission"]["id"]: doc for doc in docs}


def failed(doc: dict) -> list[dict]:
    return [check for check in doc["checks"] if check["status"] == "failed"]


def test_a_failed_check_keeps_what_the_code_printed(graded) -> None:
    checks = failed(graded["chatty"])
    assert checks, "the buggy engine should fail some checks"
    for check in checks:
        assert check["output"] and "mul backward ran" in check["output"], (check["id"], check)
    passed = [c for c in graded["chatty"]["checks"] if c["status"] == "passed"]
    assert all(c["output"] is None for c in passed), "passed checks carry no output"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("fmt", FEEDBACK_TEMPLATES)
def test_every_format_shows_the_output_under_its_check(graded, fmt: str, lang: str) -> None:
    doc = graded["chatty"]
    text = render_feedback(doc, fmt, lang=lang)
    label = Catalogue.load(lang).text("ui.your_output")
    assert text.count("mul backward ran") >= len(failed(doc)), f"{fmt}/{lang}: output missing"
    assert text.count(label) == len(failed(doc)), f"{fmt}/{lang}: one output block per failure"


def test_output_of_many_scenarios_is_capped_with_a_note_in_the_readers_language(graded) -> None:
    for check in failed(graded["flood"]):
        shown = check["output"].split("\n[...")[0]
        assert len(shown) <= OUTPUT_CAP, (check["id"], len(shown))
    capped = [c for c in failed(graded["flood"]) if "[..." in c["output"]]
    assert capped, "5000 characters printed: the output is capped"
    spanish = render_feedback(graded["flood"], "markdown", lang="es")
    assert re.search(r"\[\.\.\. \d+ bytes más sin mostrar\]", spanish), spanish[-600:]
    assert "more bytes not shown" not in spanish
