"""Tests for grader.authoring.notebooks: each lab's notebook is its stub in cells and grades like the .py."""

from __future__ import annotations

import ast
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.authoring.build import build_labs
from grader.authoring.notebooks import NotebookError, lab_notebook, notebook_name, notebook_text
from grader.authoring.stubgen import generate_stub
from grader.common.labs import COURSE_ROOT, LABS, Lab, get_lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for
from grader.intake.collect import notebook_code
from grader.intake.notebook_module import METADATA_KEY, is_check_cell

FIXTURES = COURSE_ROOT / "tests" / "fixtures"
LAB01 = get_lab("lab01_graph")

SMALL_STUB = '''\
"""A module."""

import math

# a comment directly above f stays with f
def f():
    # TODO(lab): Return one.
    # TODO(lab) es: Devuelve uno.
    raise NotImplementedError('lab, TODO 1: Return one.')


X = 1


# a comment with a blank line below it stays with the code above

@staticmethod
def g():
    """No TODO here."""
    return math.pi


class K:
    def m(self):
        def inner():
            # TODO(lab): Use *args and [links].
            #    Second line.
            # TODO(lab) es: Usa *args y [enlaces].
            #    Segunda línea.
            raise NotImplementedError('lab, TODO 1: Use *args and [links]. Second line.')
        return inner
'''


def read(path: Path) -> str:
    """Return a UTF-8 text file's content, or '' if there is none."""
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def notebook_for(lab: Lab, source: str) -> nbformat.NotebookNode:
    """Return the notebook of a lab made from the given module source (stub or submission)."""
    folder = lab.student_dir
    return lab_notebook(lab.name, source, read(folder / "README.md"), read(folder / "README.es.md"))


def small_notebook() -> nbformat.NotebookNode:
    """Return the notebook of SMALL_STUB for the lab 'lab'."""
    return lab_notebook("lab", SMALL_STUB, "# Small lab\n", "# Lab pequeño\n")


def cells_of(notebook: nbformat.NotebookNode, kind: str) -> list[str]:
    """Return the sources of the notebook's cells of one kind, in order."""
    return [cell.source for cell in notebook.cells if cell.cell_type == kind]


def graded_module(notebook: nbformat.NotebookNode) -> str:
    """Return the module the grader makes of a notebook."""
    return notebook_code(notebook_text(notebook).encode("utf-8"))


def run_module(code: str, name: str) -> dict[str, Any]:
    """Execute module code in a fresh namespace whose __name__ is `name`."""
    namespace: dict[str, Any] = {"__name__": name}
    exec(compile(code, f"{name}.py", "exec", dont_inherit=True), namespace)
    return namespace


# --- the notebook of a stub -----------------------------------------------------------------


def test_notebook_is_valid_nbformat_v4_without_outputs() -> None:
    notebook = small_notebook()
    nbformat.validate(notebook)
    assert (notebook.nbformat, notebook.nbformat_minor) >= (4, 5)
    assert [cell.id for cell in notebook.cells] == [f"cell-{n}" for n in range(len(notebook.cells))]
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert (cell.outputs, cell.execution_count) == ([], None), f"{cell.id} has output"


def test_first_cell_introduces_the_lab_in_english_then_spanish() -> None:
    intro = small_notebook().cells[0]
    assert intro.cell_type == "markdown"
    english, spanish = intro.source.split("\n---\n")
    assert english.startswith("# Small lab\n") and spanish.strip().startswith("# Lab pequeño\n")
    assert "`README.md`" in english and "`README.es.md`" in spanish
    for text in (english, spanish):
        assert "`make check LAB=lab NOTEBOOK=1`" in text, "the command that checks the notebook"
        assert "`.venv/bin/jupyter lab`" in text and "`%pip install" in text, "Jupyter and Colab"
        assert "make check LAB=lab`" in text, "and the one that checks the .py files instead"
        assert "`%`" in text and "`!`" in text, "the intro says magics and shell lines are dropped"


def test_title_falls_back_to_the_lab_name_without_readme() -> None:
    intro = lab_notebook("lab", SMALL_STUB, "", "no heading here").cells[0].source
    assert intro.startswith("# lab\n") and "\n# lab\n" in intro


def test_one_code_cell_per_top_level_definition_after_the_header() -> None:
    code = cells_of(small_notebook(), "code")
    assert code[0] == '"""A module."""\n\nimport math'
    assert code[1].startswith("# a comment directly above f stays with f\ndef f():")
    assert code[1].endswith(
        "\nX = 1\n\n\n# a comment with a blank line below it stays with the code above"
    ), "statements and loose comments after a definition stay in its cell"
    assert code[2].startswith("@staticmethod\ndef g():"), "a decorator stays with its definition"
    assert code[3].startswith("class K:")
    assert 'if __name__ == "__main__":' in code[4]
    assert code[5] == "from grader.notebook import check\ncheck()", "the check cell comes last"
    assert len(code) == 6


def test_check_cell_is_left_out_of_the_graded_module_and_nothing_else_is() -> None:
    assert is_check_cell("from grader.notebook import check\ncheck()")
    assert is_check_cell('from grader.notebook import check\ndisplay(check("TODO 3", lang="es"))')
    assert "grader.notebook" not in graded_module(small_notebook()), "the check cell is left out"
    for kept in ("from grader.notebook import check\ncheck()\nX = 1",
                 "from grader.notebook import check\ncheck(X)",
                 "from grader.notebook import check as c\nc()", "check()",
                 "from grader.notebook import check\ndef f(): pass"):
        assert not is_check_cell(kept), f"{kept!r} defines or runs more than the check"


def test_notebook_says_its_lab_in_its_metadata() -> None:
    assert small_notebook().metadata[METADATA_KEY] == {"lab": "lab"}


def test_todo_markdown_comes_right_before_each_definition_with_todos() -> None:
    cells = small_notebook().cells
    kinds = [(cell.cell_type, cell.source.split("\n", 1)[0]) for cell in cells]
    assert kinds[-2:] == [("markdown", "### Check / Comprobar"),
                          ("code", "from grader.notebook import check")]
    assert kinds[1:-3] == [
        ("code", '"""A module."""'),
        ("markdown", "### TODO(lab)"),
        ("code", "# a comment directly above f stays with f"),
        ("code", "@staticmethod"),
        ("markdown", "### TODO(lab)"),
        ("code", "class K:"),
    ]
    assert kinds[-3][0] == "code" and kinds[-3][1].startswith("# Smoke test:")
    assert cells[2].source == "### TODO(lab)\n\n- `f`\n  - en: Return one.\n  - es: Devuelve uno."


def test_todo_markdown_names_the_inner_function_and_joins_continuations() -> None:
    todo_cells = cells_of(small_notebook(), "markdown")[1:]
    assert todo_cells[1] == (
        "### TODO(lab)\n\n"
        "- `K.m.inner`\n"
        "  - en: Use \\*args and \\[links\\]. Second line.\n"
        "  - es: Usa \\*args y \\[enlaces\\]. Segunda línea."
    ), "markdown punctuation of the TODO text is escaped, continuation lines are joined"


def test_todo_without_spanish_line_is_refused() -> None:
    stub = "def f():\n    # TODO(lab): Only English.\n    raise NotImplementedError('x')\n"
    with pytest.raises(NotebookError, match=r"^lab: stub line 2: .*without its Spanish line"):
        lab_notebook("lab", stub, "", "")


@pytest.mark.parametrize(
    "stub",
    [
        pytest.param('def f():\n    """Try:\n    %timeit f()\n    """\n', id="magic-in-docstring"),
        pytest.param('X = """\n!important\n"""\n', id="bang-in-string"),
        pytest.param("X = (10\n     % 3)\n", id="modulo-on-continuation-line"),
    ],
)
def test_percent_and_bang_lines_inside_valid_python_survive_grading(stub: str) -> None:
    # The grader drops magic lines only from cells that are not valid Python as they stand.
    module = ast.parse(graded_module(lab_notebook("lab", stub, "", "")))
    assert ast.dump(ast.Module(body=module.body[:-1], type_ignores=[])) == ast.dump(
        ast.parse(stub)), "the strings and continuation lines are kept as written"


def test_joined_code_cells_are_the_stub_plus_the_guarded_smoke_cell() -> None:
    module = ast.parse(graded_module(small_notebook()))
    stub = ast.parse(SMALL_STUB)
    assert ast.dump(ast.Module(body=module.body[:-1], type_ignores=[])) == ast.dump(stub)
    smoke = module.body[-1]
    assert isinstance(smoke, ast.If) and ast.unparse(smoke.test) == "__name__ == '__main__'"


def test_smoke_cell_runs_only_as_main(capsys: pytest.CaptureFixture[str]) -> None:
    code = graded_module(small_notebook())
    imported = run_module(code, "mod")
    assert "missing" not in imported and capsys.readouterr().out == "", "guarded code ran"
    run_module(code, "__main__")
    assert capsys.readouterr().out == "ok\n"


def test_generation_is_deterministic() -> None:
    assert notebook_text(small_notebook()) == notebook_text(small_notebook())


# --- the committed lab notebooks ------------------------------------------------------------


def labs_with_solution() -> list[Lab]:
    """Return the registered labs whose main file has a reference solution."""
    return [lab for lab in LABS.values() if (lab.solution_dir / lab.main_file).is_file()]


@pytest.mark.parametrize("lab", labs_with_solution(), ids=lambda lab: lab.name)
def test_every_lab_with_a_solution_has_its_notebook_committed(lab: Lab) -> None:
    path = lab.student_dir / notebook_name(lab.name)
    assert path.is_file(), f"run `make labs`: {path} is missing"
    stub = (lab.student_dir / lab.main_file).read_text(encoding="utf-8")
    assert path.read_text(encoding="utf-8") == notebook_text(notebook_for(lab, stub))
    nbformat.validate(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))


def test_lab01_notebook_generation_is_byte_identical_twice() -> None:
    stub = (LAB01.student_dir / LAB01.main_file).read_text(encoding="utf-8")
    assert notebook_text(notebook_for(LAB01, stub)) == notebook_text(notebook_for(LAB01, stub))


def test_lab01_notebook_code_behaves_like_the_stub() -> None:
    path = LAB01.student_dir / notebook_name(LAB01.name)
    code = notebook_code(path.read_bytes())
    value = run_module(code, "value")["Value"]
    assert value(2.0).data == pytest.approx(2.0)
    with pytest.raises(NotImplementedError, match="^lab01_graph, TODO [0-9]+: "):
        value(2) + value(3)


def test_lab01_notebook_has_a_todo_cell_for_each_definition_with_todos() -> None:
    stub = (LAB01.student_dir / LAB01.main_file).read_text(encoding="utf-8")
    markdown = "\n".join(cells_of(notebook_for(LAB01, stub), "markdown")[1:])
    assert markdown.count("  - en: ") == stub.count("# TODO(lab01_graph): ")
    assert markdown.count("  - es: ") == stub.count("# TODO(lab01_graph) es: ")
    assert "- `Value.__mul__._backward`" in markdown


# --- build_labs -----------------------------------------------------------------------------


def lab01_tree(root: Path) -> Path:
    """Copy lab01's solution and READMEs into an empty repository root; return the lab folder."""
    shutil.copytree(LAB01.solution_dir, root / "solutions" / LAB01.name)
    labs = root / "labs" / LAB01.name
    labs.mkdir(parents=True)
    for name in ("README.md", "README.es.md"):
        shutil.copy(LAB01.student_dir / name, labs / name)
    return labs


def test_build_labs_writes_the_notebook_next_to_the_stub(tmp_path: Path) -> None:
    labs = lab01_tree(tmp_path)
    expected = ["labs/lab01_graph/value.py", "labs/lab01_graph/lab01_graph.ipynb"]
    assert build_labs(tmp_path, check=True) == expected
    assert not (labs / "value.py").exists(), "check mode must not write"
    assert build_labs(tmp_path) == expected
    stub = generate_stub(read(LAB01.solution_dir / "value.py"), LAB01.name,
                         "solutions/lab01_graph/value.py")
    assert read(labs / "lab01_graph.ipynb") == notebook_text(notebook_for(LAB01, stub))
    assert build_labs(tmp_path, check=True) == []


def test_build_labs_reports_a_stale_notebook(tmp_path: Path) -> None:
    labs = lab01_tree(tmp_path)
    build_labs(tmp_path)
    (labs / "README.md").write_text("# A new title\n", encoding="utf-8")
    assert build_labs(tmp_path, check=True) == ["labs/lab01_graph/lab01_graph.ipynb"]


def test_build_labs_makes_no_notebook_for_an_unregistered_lab(tmp_path: Path) -> None:
    solution = tmp_path / "solutions" / "lab09_demo" / "mod.py"
    solution.parent.mkdir(parents=True)
    solution.write_text("X = 1\n", encoding="utf-8")
    assert build_labs(tmp_path) == ["labs/lab09_demo/mod.py"]


# --- a notebook submission grades the same as the .py one -----------------------------------


def fixture_folder(lab: Lab) -> Path:
    """Return tests/fixtures/<lab> (the folder is named after the whole lab)."""
    return FIXTURES / lab.name


def labs_with_fixtures() -> list[Lab]:
    """Return the registered labs with at least one fixture submission."""
    return [lab for lab in LABS.values() if fixture_folder(lab).is_dir()
            and any(path.is_dir() for path in fixture_folder(lab).iterdir())]


def submissions_of(lab: Lab) -> list[Path]:
    """Return the .py submissions graded both ways: the solution, the stub, a correct engine of
    another style and a buggy one (the notebook's extraction does not depend on the bug, so one
    of each kind is enough; tests/test_lab_fixtures.py grades every fixture as a folder)."""
    fixtures = sorted(path for path in fixture_folder(lab).iterdir() if path.is_dir())
    correct = next(path for path in fixtures if path.name.startswith("correct-"))
    buggy = next(path for path in fixtures if not path.name.startswith("correct-"))
    return [lab.solution_dir, lab.student_dir, correct, buggy]


Grades = dict[Path, tuple[dict[str, Any], dict[str, Any]]]


@pytest.fixture(scope="module")
def grades_of(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Lab], Grades]:
    """Grade a lab's submissions as folders and as notebooks, in one batch; cached per lab."""
    graded: dict[str, Grades] = {}

    def grade(lab: Lab) -> Grades:
        if lab.name not in graded:
            root = tmp_path_factory.mktemp(lab.name)
            pairs = []
            for folder in submissions_of(lab):
                # solutions/lab01_graph and labs/lab01_graph share a name: use the whole path
                notebook = root / ("-".join(folder.relative_to(COURSE_ROOT).parts) + ".ipynb")
                source = read(folder / lab.main_file)
                notebook.write_text(notebook_text(notebook_for(lab, source)), encoding="utf-8")
                pairs.append((folder, notebook))
            spec = GradingPlan(lab, suites_for(lab, hidden=True), seed="nb", lang="en")
            paths = [path for pair in pairs for path in pair]
            docs = grade_class(spec, paths, BatchOptions(out_dir=root / "out"), lambda *_: None)
            graded[lab.name] = {
                folder: (docs[2 * n], docs[2 * n + 1]) for n, (folder, _) in enumerate(pairs)
            }
        return graded[lab.name]

    return grade


def outcome(doc: dict[str, Any]) -> dict[str, Any]:
    """Return what a grade is made of, without the submission's identity."""
    return {
        "status": doc["status"],
        "score": doc["score"],
        "max_score": doc["max_score"],
        "pitfalls": doc["pitfalls"],
        "checks": [(check["id"], check["status"], check["score"]) for check in doc["checks"]],
    }


GRADED_CASES = [
    pytest.param(lab, folder, id=f"{lab.name}/{folder.relative_to(COURSE_ROOT).as_posix()}")
    for lab in labs_with_fixtures()
    for folder in submissions_of(lab)
]


@pytest.mark.parametrize(("lab", "folder"), GRADED_CASES)
def test_notebook_submission_grades_the_same_as_the_py_one(
    lab: Lab, folder: Path, grades_of: Callable[[Lab], Grades]
) -> None:
    if not (lab.solution_dir / lab.main_file).is_file():
        pytest.skip(f"{lab.name} has no reference solution yet")
    as_folder, as_notebook = grades_of(lab)[folder]
    assert as_folder["submission"]["id"] != as_notebook["submission"]["id"]
    assert as_folder["status"] == "graded", f"{folder} was not graded: {as_folder['reason']}"
    assert outcome(as_notebook) == outcome(as_folder)
