"""Notebook students get notebook answers: errors name the cell and the line inside it, the advice
is a notebook user's, and a lab folder with an edited `.py` and an edited notebook is checked,
never blocked (grading keeps calling it ambiguous). In both languages."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.common.labs import get_lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for
from grader.intake.collect import Submission, read_submission
from grader.intake.notebook_module import cell_frame, is_check_cell, locate, notebook_module
from grader.results.render import render_feedback

LAB = get_lab("lab01_graph")
NOTEBOOK = LAB.student_dir / f"{LAB.name}.ipynb"
SOLUTION = LAB.solution_dir / LAB.main_file


def lab_notebook() -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOK, as_version=4)


def code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def edited(change: Any) -> nbformat.NotebookNode:
    """The lab notebook with `change(code_cells)` applied."""
    notebook = copy.deepcopy(lab_notebook())
    change(code_cells(notebook))
    return notebook


def break_class_cell(cells: list[nbformat.NotebookNode]) -> None:
    """A syntax error on line 4 of the third code cell (`class Value:`)."""
    lines = cells[2].source.splitlines()
    lines.insert(3, "    def broken(:")
    cells[2].source = "\n".join(lines)


def raising_leaf(cells: list[nbformat.NotebookNode]) -> None:
    """The solution's code, with a leaf `_backward` that raises (second code cell)."""
    cells[1].source = "def _leaf_backward():\n    x = 1\n    raise RuntimeError('leaf')\n"
    solution = SOLUTION.read_text(encoding="utf-8")
    cells[2].source = solution[solution.index("class Value"):]


# --- the line map ---------------------------------------------------------------------------

def test_every_module_line_goes_back_to_its_cell_and_the_line_inside_it() -> None:
    notebook = lab_notebook()
    module = notebook_module(nbformat.writes(notebook).encode("utf-8"))
    lines = module.code.splitlines()
    for number, cell in enumerate(code_cells(notebook), start=1):
        start = module.cells[number - 1]
        assert start.cell == number
        assert cell.source.splitlines()[0].startswith(start.first_line.removesuffix("..."))
        if is_check_cell(cell.source):  # left out of the module: it has no lines there
            continue
        for offset, text in enumerate(cell.source.splitlines()):
            assert lines[start.line - 1 + offset] == text
            assert locate(module.cells, start.line + offset) == start


def test_a_magic_line_in_a_cell_keeps_the_lines_after_it_in_place() -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("%time y = 2\ndef f(:\n    pass"),
    ])
    module = notebook_module(nbformat.writes(notebook).encode("utf-8"))
    frame = cell_frame({"file": "value.py", "line": 4, "function": "f"}, module.cells, "nb.ipynb")
    assert module.code.splitlines()[3] == "def f(:"
    assert frame == {"file": "nb.ipynb", "line": 4, "function": "f", "cell": 2,
                     "first_line": "%time y = 2", "cell_line": 2}


# --- what a student sees --------------------------------------------------------------------

@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The public checks run as `make check` runs them (student=True), on: a notebook with a
    syntax error, a notebook whose leaf `_backward` raises, the untouched notebook, a lab folder
    whose value.py (the solution) and notebook (broken) both hold edits, and that notebook
    checked by path; and the same folder graded (student=False). One batch each."""
    root = tmp_path_factory.mktemp("notebooks")
    forms = {"syntax": edited(break_class_cell), "raises": edited(raising_leaf)}
    paths = {}
    for name, notebook in forms.items():
        (root / name).mkdir()
        paths[name] = root / name / NOTEBOOK.name
        nbformat.write(notebook, paths[name])
    paths["stub"] = NOTEBOOK
    both = root / "both"
    shutil.copytree(LAB.student_dir, both, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    shutil.copy(SOLUTION, both / LAB.main_file)
    nbformat.write(forms["syntax"], both / NOTEBOOK.name)
    paths["both"], paths["both-notebook"] = both, both / NOTEBOOK.name
    submissions = [Submission(name, path) for name, path in paths.items()]
    student = GradingPlan(LAB, suites_for(LAB, hidden=False), "nb", "en", student=True)
    docs = grade_class(student, submissions, BatchOptions(out_dir=None), lambda *_: None)
    grading = GradingPlan(LAB, suites_for(LAB, hidden=False), "nb", "en")
    [graded] = grade_class(grading, [Submission("both-graded", both)], BatchOptions(out_dir=None),
                           lambda *_: None)
    return {**{doc["submission"]["id"]: doc for doc in docs}, "both-graded": graded}


def feedback(doc: dict[str, Any], lang: str) -> str:
    return " ".join(render_feedback(doc, "terminal", lang=lang).split())


NEVER_IN_A_NOTEBOOK_ANSWER = ("python value.py", "value.py, line", "value.py, línea",
                              "File value.py", "Archivo value.py")


@pytest.mark.parametrize(("lang", "where", "advice"), [
    ("en", "Notebook lab01_graph.ipynb, code cell 3 (the one that starts `class Value:`), line 4 "
           "of the cell", "run the cell shown (Shift+Enter)"),
    ("es", "Cuaderno lab01_graph.ipynb, celda de código 3 (la que empieza por `class Value:`), "
           "línea 4 de la celda", "ejecuta la celda indicada (Mayús+Intro)"),
])
def test_a_syntax_error_names_the_cell_and_the_line_inside_it(
        checked: dict[str, dict[str, Any]], lang: str, where: str, advice: str) -> None:
    doc = checked["syntax"]
    assert (doc["problem"]["cell"], doc["problem"]["line"]) == (3, 4), doc["problem"]
    text = feedback(doc, lang)
    assert where in text and advice in text, text
    assert "make check LAB=lab01_graph NOTEBOOK=1" in text, text
    assert not [bad for bad in NEVER_IN_A_NOTEBOOK_ANSWER if bad in text], text


@pytest.mark.parametrize(("lang", "where"), [
    ("en", "at code cell 2 (`def _leaf_backward():`), line 3, in `_leaf_backward`"),
    ("es", "en celda de código 2 (`def _leaf_backward():`), línea 3, en `_leaf_backward`"),
])
def test_an_exception_names_the_cell_line_and_function(
        checked: dict[str, dict[str, Any]], lang: str, where: str) -> None:
    text = feedback(checked["raises"], lang)
    assert "RuntimeError: leaf" in text and where in text, text
    assert not [bad for bad in NEVER_IN_A_NOTEBOOK_ANSWER if bad in text], text


@pytest.mark.parametrize(("lang", "todo", "cell"), [
    ("en", "TODO 1 of lab01_graph.ipynb", "code cell 3 (`class Value:`)"),
    ("es", "TODO 1 de lab01_graph.ipynb", "celda de código 3 (`class Value:`)"),
])
def test_code_not_written_yet_points_at_the_notebook(
        checked: dict[str, dict[str, Any]], lang: str, todo: str, cell: str) -> None:
    text = feedback(checked["stub"], lang)
    assert todo in text and cell in text, text
    assert not [bad for bad in NEVER_IN_A_NOTEBOOK_ANSWER if bad in text], text


@pytest.mark.parametrize(("lang", "note"), [
    ("en", "lab01_graph.ipynb was not checked: this check ran on `value.py`. To check the "
           "notebook instead, save it and run `make check LAB=lab01_graph NOTEBOOK=1`."),
    ("es", "El cuaderno lab01_graph.ipynb no se comprobó: esta comprobación se hizo sobre "
           "`value.py`. Para comprobar el cuaderno, guárdalo y ejecuta "
           "`make check LAB=lab01_graph NOTEBOOK=1`."),
])
def test_make_check_on_a_folder_with_both_edited_checks_the_py_file(
        checked: dict[str, dict[str, Any]], lang: str, note: str) -> None:
    doc = checked["both"]
    assert (doc["status"], doc["score"]) == ("graded", doc["max_score"]), doc["reason"]
    assert doc["submission"]["unchecked"] == ["lab01_graph.ipynb"]
    assert note in feedback(doc, lang)


@pytest.mark.parametrize(("lang", "note"), [
    ("en", "`value.py` was not checked: this check ran on the notebook lab01_graph.ipynb. To "
           "check `value.py` instead, run `make check LAB=lab01_graph` (without `NOTEBOOK=1`)."),
    ("es", "`value.py` no se comprobó: esta comprobación se hizo sobre el cuaderno "
           "lab01_graph.ipynb. Para comprobar `value.py`, ejecuta `make check LAB=lab01_graph` "
           "(sin `NOTEBOOK=1`)."),
])
def test_make_check_notebook_checks_the_notebook_and_names_the_py_file(
        checked: dict[str, dict[str, Any]], lang: str, note: str) -> None:
    doc = checked["both-notebook"]
    assert doc["problem"]["cell"] == 3 and doc["submission"]["unchecked"] == ["value.py"]
    assert note in feedback(doc, lang)


def test_grading_a_folder_with_both_edited_is_ungradable_naming_both(
        checked: dict[str, dict[str, Any]]) -> None:
    doc = checked["both-graded"]
    assert doc["status"] == "ungradable" and doc["reason"]["kind"] == "ambiguous-file", doc
    assert doc["reason"]["params"]["candidates"] == ["lab01_graph.ipynb", "value.py"]
    for lang in ("en", "es"):
        text = feedback(doc, lang)
        assert "lab01_graph.ipynb" in text and "value.py" in text, text


def test_an_untouched_notebook_beside_an_edited_py_file_is_not_named(tmp_path: Path) -> None:
    folder = tmp_path / "lab"
    shutil.copytree(LAB.student_dir, folder, ignore=shutil.ignore_patterns("tests"))
    shutil.copy(SOLUTION, folder / LAB.main_file)
    found = read_submission(folder, LAB, student=True)
    assert (found.notebook, found.unchecked) == ("", ())
    assert read_submission(folder / NOTEBOOK.name, LAB, student=True).unchecked == ("value.py",)
