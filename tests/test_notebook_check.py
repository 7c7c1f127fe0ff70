"""The check cell of a lab notebook (grader/notebook.py): finding the notebook, saved versus live,
the checks of one TODO, and the lab notebook of a built kit executed headless with nbclient."""

from __future__ import annotations

import html
import json
import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from grader.authoring.kit_contents import declared_check_ids
from grader.authoring.notebooks import lab_notebook, notebook_text
from grader.grading.batch import check_submission
from grader.grading.checking.todos import public_checks_by_todo, untouched_todos
from grader.labs import COURSE_ROOT, LABS
from grader.notebook import (
    Feedback,
    NotebookNotFound,
    check,
    find_notebook,
    notebook_lab,
    unsaved_definitions,
)
from grader.results.i18n import Catalogue

LAB = LABS["lab01_graph"]
BUG = COURSE_ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-mul" / "value.py"


# --- which notebook, which lab ----------------------------------------------------------------


def test_vscode_notebook_variable_comes_first(tmp_path: Path) -> None:
    found = find_notebook({"__vsc_ipynb_file__": "/x/mine.ipynb"},
                          {"JPY_SESSION_NAME": "other.ipynb"}, tmp_path, None)
    assert found == Path("/x/mine.ipynb")


def test_jupyter_session_name_absolute_or_relative(tmp_path: Path) -> None:
    (tmp_path / "renamed.ipynb").write_text("{}")
    absolute = str(tmp_path / "renamed.ipynb")
    assert find_notebook({}, {"JPY_SESSION_NAME": absolute}, tmp_path, None) == Path(absolute)
    assert find_notebook({}, {"JPY_SESSION_NAME": "labs/x/renamed.ipynb"}, tmp_path,
                         None) == tmp_path / "renamed.ipynb", "a path from the server's root"


def test_without_a_session_the_labs_notebook_here_is_found(tmp_path: Path) -> None:
    with pytest.raises(NotebookNotFound) as missing:
        find_notebook({}, {}, tmp_path, None)
    assert missing.value.key == "not_found"
    (tmp_path / "lab02_ops.ipynb").write_text("{}")
    assert find_notebook({}, {}, tmp_path, None) == tmp_path / "lab02_ops.ipynb"


def test_lab_comes_from_the_metadata_then_the_file_name(tmp_path: Path) -> None:
    tagged = {"metadata": {"minigrad_labs": {"lab": "lab03_backprop"}}}
    assert notebook_lab(tagged, tmp_path / "copy (1).ipynb", None).name == "lab03_backprop"
    assert notebook_lab({}, tmp_path / "lab02_ops.ipynb", None).name == "lab02_ops"
    with pytest.raises(NotebookNotFound, match="unknown_lab"):
        notebook_lab({}, tmp_path / "mine.ipynb", None)


def test_not_found_is_said_in_the_students_language(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NotebookNotFound) as missing:
        check(lang="es")
    assert str(missing.value) == Catalogue.load("es").text("ui.notebook.not_found",
                                                           folder=str(tmp_path))


# --- saved or live ----------------------------------------------------------------------------

SAVED = ["class Value:\n    pass", "def helper():\n    return 1"]


def test_a_definition_run_but_not_saved_is_named() -> None:
    history = [SAVED[0], SAVED[1], "def helper():\n    return 2"]
    assert unsaved_definitions(SAVED, history) == ["helper"]


def test_the_last_run_counts_and_scratch_cells_do_not() -> None:
    history = ["def helper():\n    return 2", SAVED[1], "x = 2 + 2", "def scratch(): pass",
               "%time 1", SAVED[0] + "\n   "]
    assert unsaved_definitions(SAVED, history) == [], "saved after the edit; scratch not graded"


def test_a_saved_cell_with_magics_compares_as_ipython_ran_it() -> None:
    saved = ["%load_ext autoreload\ndef f():\n    return 1"]
    ran = "get_ipython().run_line_magic('load_ext', 'autoreload')\ndef f():\n    return 1"

    def transform(cell: str) -> str:
        return cell.replace("%load_ext autoreload",
                            "get_ipython().run_line_magic('load_ext', 'autoreload')")

    assert unsaved_definitions(saved, [ran], transform) == []
    assert unsaved_definitions(saved, [ran]) == ["f"], "without IPython's transform they differ"


# --- the checks of one TODO -------------------------------------------------------------------


@pytest.mark.parametrize("lab", LABS.values(), ids=list(LABS))
def test_every_public_check_names_its_todos_and_every_todo_has_checks(lab: object) -> None:
    by_todo = public_checks_by_todo(lab)  # type: ignore[arg-type]
    stub = [(lab.student_dir / name).read_text(encoding="utf-8")  # type: ignore[attr-defined]
            for name in lab.files]  # type: ignore[attr-defined]
    assert set(by_todo) == set(untouched_todos(stub, lab.name)), (  # type: ignore[attr-defined]
        "every TODO of the stub has public checks, and no check names a TODO the stub lacks")
    declared = declared_check_ids(lab.public_tests.glob("test_*.py"))  # type: ignore[attr-defined]
    with_todo = {check for ids in by_todo.values() for check in ids}
    assert declared - with_todo == set(), "public checks without todo="


def test_feedback_of_one_todo_keeps_only_its_checks() -> None:
    doc = {"checks": [{"id": "a"}, {"id": "b"}, {"id": "c"}], "lab": "lab01_graph"}
    assert Feedback(doc, "en", todo=3, shown=("b",)).filtered()["checks"] == [{"id": "b"}]
    assert Feedback(doc, "en").filtered() is doc


# --- executed headless, from a kit unpacked outside the repository ----------------------------


def _execute(notebook: nbformat.NotebookNode, folder: Path, extra: list[str]) -> list[str]:
    """Run every cell (and the extra cells after them) in a fresh kernel; each cell's text."""
    from nbclient import NotebookClient

    executed = nbformat.from_dict(json.loads(json.dumps(notebook)))
    executed.cells += [nbformat.v4.new_code_cell(source) for source in extra]
    NotebookClient(executed, timeout=240, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    texts = []
    for cell in executed.cells:
        parts = [html.unescape(output.get("data", {}).get("text/html", ""))
                 + output.get("data", {}).get("text/plain", "") + output.get("text", "")
                 for output in cell.get("outputs", [])]
        texts.append("".join(parts))
    return texts


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory, built_kit) -> Path:
    """A copy of the run's kit (tests/conftest.py): the executed notebook writes beside it."""
    out = tmp_path_factory.mktemp("unpacked") / "kit"
    shutil.copytree(built_kit(LAB.name)[0], out)
    return out


@pytest.fixture()
def kit_kernel(kit: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The kernel imports the kit's grader (as the kit's `make jupyter` arranges with a .pth)."""
    monkeypatch.setenv("PYTHONPATH", str(kit))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    return kit / "labs" / LAB.name


def _write(folder: Path, source: str) -> nbformat.NotebookNode:
    notebook = lab_notebook(LAB.name, source, (folder / "README.md").read_text(encoding="utf-8"),
                            (folder / "README.es.md").read_text(encoding="utf-8"))
    (folder / f"{LAB.name}.ipynb").write_text(notebook_text(notebook), encoding="utf-8")
    return notebook


def test_stub_notebook_says_not_written_yet_in_its_check_cell(kit_kernel: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_LANG", "en")
    notebook = nbformat.read(kit_kernel / f"{LAB.name}.ipynb", as_version=4)
    texts = _execute(notebook, kit_kernel, ['check("TODO 3")', "import grader\nprint(grader.__file__)"])
    assert texts[-1].strip().startswith(str(kit_kernel.parents[1])), "the kit's grader ran"
    check_cell, one_todo = texts[-3], texts[-2]
    assert f"Not written yet: TODO 1 of {LAB.name}.ipynb" in check_cell
    assert "Checked: " in check_cell and "as saved" in check_cell
    en = Catalogue.load("en")
    todo3 = public_checks_by_todo(LAB)[3]
    assert en.text("ui.notebook.todo_only", todo="3", count=str(len(todo3))) in one_todo
    for check_id in public_checks_by_todo(LAB)[1]:
        shown = f'id="check-{check_id}"'
        assert shown in check_cell and shown not in one_todo, "TODO 1's checks only in the first"
    for check_id in todo3:
        assert f'id="check-{check_id}"' in one_todo


def test_solution_pasted_in_passes_every_public_check_in_spanish(kit_kernel: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_LANG", "es")
    solution = (LAB.solution_dir / LAB.main_file).read_text(encoding="utf-8")
    notebook = _write(kit_kernel, solution)
    texts = _execute(notebook, kit_kernel, [
        "import json\nprint(json.dumps({c['id']: c['status'] for c in check().doc['checks']}))"])
    statuses = json.loads(texts[-1].strip().splitlines()[-1])
    assert set(statuses) == {c for ids in public_checks_by_todo(LAB).values() for c in ids}
    assert set(statuses.values()) == {"passed"}, statuses
    assert Catalogue.load("es").text("ui.all_passed") in texts[-2], "shown in the check cell"
    assert "Comprobado: " in texts[-2]


def test_a_bug_gives_the_same_finding_as_make_check(kit_kernel: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_LANG", "en")
    notebook = _write(kit_kernel, BUG.read_text(encoding="utf-8"))
    texts = _execute(notebook, kit_kernel, [
        "import json\nprint(json.dumps({c['id']: c['status'] for c in check().doc['checks']}))"])
    in_notebook = json.loads(texts[-1].strip().splitlines()[-1])
    terminal = check_submission(LAB, BUG, "en")
    assert in_notebook == {c["id"]: c["status"] for c in terminal["checks"]}
    failed = [c for c in terminal["checks"] if c["status"] == "failed"]
    assert failed, "the fixture's bug is found"
    for entry in failed:
        assert f'id="check-{entry["id"]}"' in texts[-2], "the failure shows in the check cell"


def test_on_colab_the_editors_notebook_is_checked_and_isolation_said_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Colab has no notebook file: the notebook comes from the editor (`get_ipynb`)."""
    import types

    import grader.notebook as module

    live = json.loads((LAB.student_dir / f"{LAB.name}.ipynb").read_text(encoding="utf-8"))
    message = types.ModuleType("google.colab._message")
    message.blocking_request = lambda kind, request, timeout_sec: (  # type: ignore[attr-defined]
        {"ipynb": live} if kind == "get_ipynb" else None)
    colab = types.ModuleType("google.colab")
    colab._message = message  # type: ignore[attr-defined]
    for name, fake in (("google", types.ModuleType("google")), ("google.colab", colab),
                       ("google.colab._message", message)):
        monkeypatch.setitem(sys.modules, name, fake)
    monkeypatch.chdir(tmp_path)  # no notebook file here
    monkeypatch.setattr(module, "_SAID_ONCE", set())
    warning = {"warning": True, "text": "isolation: uid only"}
    monkeypatch.setattr(module, "isolation_notes", lambda docs, catalogue: [warning])
    first, second = check(lang="en"), check(lang="en")
    colab_said = Catalogue.load("en").text("ui.notebook.colab_editor")
    assert any(colab_said in notice for notice in first.notices)
    assert first.doc["lab"] == LAB.name and any(c["id"] == "example-leaf-backward"
                                                for c in first.doc["checks"])
    assert "isolation: uid only" in first.notices and "isolation: uid only" not in second.notices
