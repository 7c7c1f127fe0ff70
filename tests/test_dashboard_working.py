"""The dashboard's pass rates over working code, beside the whole class's (issue 35): a class
whose untouched stubs, empty files and other labs' files score 0 still shows how the written
code did. Graded for real: lab01's public suite on a small class whose working submissions the
test names itself (the solution and a bug fixture)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from grader.common.labs import COURSE_ROOT, LABS
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan
from grader.results.dashboard import class_view
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.render import render_dashboard

LAB = LABS["lab01_graph"]
BUG = "grad-overwrite-in-mul"
WORKING = ("solution", BUG)  # the submissions whose code loaded, is lab01's, and was written


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    base = tmp_path_factory.mktemp("class")
    files = {
        "solution": (LAB.solution_dir / LAB.main_file).read_bytes(),
        BUG: (COURSE_ROOT / "tests" / "fixtures" / LAB.name / BUG / LAB.main_file).read_bytes(),
        "stub": (LAB.student_dir / LAB.main_file).read_bytes(),
        "empty": b"",
        "lab02-file": (LABS["lab02_ops"].student_dir / "value.py").read_bytes(),
    }
    paths = []
    for name, code in files.items():
        (base / name).mkdir()
        (base / name / LAB.main_file).write_bytes(code)
        paths.append(base / name)
    plan = GradingPlan(LAB, (LAB.public_tests,), "working-rates", "en")
    graded = grade_class(plan, paths, BatchOptions(out_dir=None, workers=1),
                         progress=lambda *_: None)
    return {doc["submission"]["id"]: doc for doc in graded}


def _rate(docs: list[dict[str, Any]], check_id: str) -> float:
    statuses = [check["status"] for doc in docs for check in doc["checks"]
                if check["id"] == check_id]
    return round(100 * statuses.count("passed") / len(statuses), 1)


def test_the_class_is_what_the_test_says(docs: dict[str, dict[str, Any]]) -> None:
    assert docs["empty"]["problem"], "an empty file is a problem"
    assert docs["lab02-file"]["submission"]["other_lab"]["lab"] == "lab02_ops"
    assert docs["stub"]["score"] == 0 and docs["solution"]["score"] == docs["solution"]["max_score"]
    assert 0 < docs[BUG]["score"] < docs[BUG]["max_score"]


def test_pass_rates_over_working_code_count_only_the_written_submissions(
        docs: dict[str, dict[str, Any]]) -> None:
    view = class_view(list(docs.values()), Catalogue.load("en"))
    assert view["working"] == len(WORKING)
    everyone, working = list(docs.values()), [docs[name] for name in WORKING]
    differ = 0
    for row in view["checks"]:
        assert row["rate"] == _rate(everyone, row["id"]), row["id"]
        assert row["working_rate"] == _rate(working, row["id"]), row["id"]
        differ += row["working_rate"] != row["rate"]
    assert differ, "the zero scores move no rate: the class does not test the column"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_dashboard_shows_the_column_and_its_note_in_both_languages(
        docs: dict[str, dict[str, Any]], lang: str) -> None:
    catalogue = Catalogue.load(lang)
    page = html.unescape(render_dashboard(list(docs.values()), lang))
    column = catalogue.text("ui.dashboard.working.column", count=str(len(WORKING)))
    assert f"<th>{column}</th>" in page
    assert catalogue.text("ui.dashboard.working.note", count=str(len(WORKING))) in page
    view = class_view(list(docs.values()), catalogue)
    for row in view["checks"]:
        cells = re.search(rf'<tr id="check-{re.escape(row["id"])}">(.*?)</tr>', page, re.S)
        assert cells and f'{row["working_rate_text"]}%' in cells[1], row["id"]


def test_a_class_with_no_working_code_shows_a_dash(docs: dict[str, dict[str, Any]]) -> None:
    view = class_view([docs["stub"], docs["empty"]], Catalogue.load("en"))
    assert view["working"] == 0
    assert {row["working_rate"] for row in view["checks"]} == {None}
    assert "–</td>" in render_dashboard([docs["stub"], docs["empty"]], "en")

