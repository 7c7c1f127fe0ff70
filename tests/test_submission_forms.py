"""Notebook forms of a submission: a folder or zip holding a notebook under any name (chosen by
grader.intake.candidates), and the `.py` exports of Colab and Jupyter. Each fixture holds the lab01
solution in that form."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from grader.common.labs import LABS
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for
from grader.intake.collect import Ungradable, clean_export, read_files

FORMS = Path(__file__).resolve().parent / "data" / "submission_forms" / "lab01_graph"
LAB = LABS["lab01_graph"]
GRADABLE = ("notebook-in-folder", "notebook-in-zip.zip", "colab-export.py", "jupyter-export.py")


@pytest.mark.parametrize("form", GRADABLE)
def test_each_form_yields_a_value_py_that_parses_without_ipython(form: str) -> None:
    files = read_files(FORMS / form, LAB)
    assert list(files) == ["value.py"], list(files)
    source = clean_export(files["value.py"]).decode("utf-8")
    ast.parse(source)
    assert "get_ipython" not in source, source[:400]
    assert "class Value" in source


def test_every_form_of_the_solution_gets_full_marks() -> None:
    plan = GradingPlan(LAB, suites_for(LAB, hidden=True), "forms-test", "en")
    docs = grade_class(plan, [FORMS / form for form in GRADABLE],
                       BatchOptions(out_dir=None, workers=2), progress=lambda *_: None)
    scores = {form: (doc["status"], doc["score"], doc["max_score"], doc["reason"])
              for form, doc in zip(GRADABLE, docs, strict=True)}
    for form, (status, score, max_score, reason) in scores.items():
        assert status == "graded" and score == max_score > 0, (form, scores[form], reason)


def test_several_edited_notebooks_are_ambiguous_and_named() -> None:
    with pytest.raises(Ungradable) as raised:
        read_files(FORMS / "several-notebooks", LAB)
    assert raised.value.detail["kind"] == "ambiguous-file", raised.value.detail
    assert sorted(raised.value.detail["params"]["candidates"]) == ["try1.ipynb", "try2.ipynb"]


def test_clean_export_leaves_a_plain_module_alone() -> None:
    source = b"x = 1\n# get_ipython is only mentioned here\n"
    assert clean_export(source) is source


def test_clean_export_keeps_blocks_and_line_numbers() -> None:
    source = (b"# In[1]:\n\nif True:\n    get_ipython().system('ls')\n"
              b"!pip install x\n%time y = 2\nz = 3\n")
    cleaned = clean_export(source).decode("utf-8").splitlines()
    assert cleaned == ["# In[1]:", "", "if True:", "    pass", "pass", "pass", "z = 3"], cleaned
