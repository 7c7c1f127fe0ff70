"""The check cell of a lab notebook (grader/notebook.py): finding the notebook, saved versus live,
the checks of one TODO, and the lab notebook of a built kit executed headless with nbclient."""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from test_kit_contents import hidden_text_found

from grader.authoring.kit_contents import declared_check_ids
from grader.authoring.notebooks import lab_notebook, notebook_text
from grader.common.labs import COURSE_ROOT, LABS, Lab
from grader.grading.batch import check_submission
from grader.grading.checking.todos import public_checks_by_todo, untouched_todos
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
    doc = json.loads((Path(__file__).parent / "data" / "score_mixed.json").read_text("utf-8"))
    _first, second, *_ = doc["checks"]
    kept = Feedback(doc, "en", todo=3, shown=(second["id"],)).filtered()
    assert kept["checks"] == [second] and kept["lab"] == doc["lab"], kept["checks"]
    assert Feedback(doc, "en").filtered() is doc


# --- executed headless: every lab of a built kit, in a venv that holds only the kit ------------
#
# One kit (the last release holds every lab) and one virtual environment serve every notebook
# below. The course's wheel is built from the kit's zip (`pip wheel <kit>.zip`, as the course
# would host it) and installed into a fresh venv without pip, where a kernelspec runs it. The
# third-party packages come from this test environment by a plain path line (a path in a .pth
# file is put on sys.path, the .pth files inside it are not run): so no index is needed, and
# the repository's editable grader, which needs its .pth file run, is not importable (a test
# proves it). Two ways a student runs the notebook:
# - local Jupyter: the notebook in the unpacked kit, the kernel seeing the kit's folder first
#   (what the kit's `make venv` .pth does), the sandbox as strong as this machine allows;
# - Colab: no kit folder; the notebook in a folder of its own, the grader from the installed
#   wheel, and GRADER_ISOLATION=none (the grader's own switch: the weakest step of its ladder)
#   standing in for a runtime that offers no isolation.

RELEASE = list(LABS)[-1]
BUGS = {  # one defect per lab that the public checks find (the test asserts they do)
    "lab01_graph": "grad-overwrite-in-mul", "lab02_ops": "neg-forward-missing-minus",
    "lab03_backprop": "missing-seed", "lab04_xor": "update-adds-gradient",
}
# A check cell in the other language that also prints the statuses (one check, both read).
STATUSES = ("import json\nfeedback = check(lang=%r)\n"
            "print(json.dumps({c['id']: c['status'] for c in feedback.doc['checks']}))\nfeedback")
WHERE = "import grader, sys\nprint(grader.__file__)"


@dataclass(frozen=True)
class KitRuntime:
    """The unpacked kit, the course's wheel of it, and the kernel of the fresh venv."""

    kit: Path
    wheel: Path
    venv: Path
    jupyter: Path
    home: Path


def _run(*command: str | Path) -> None:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory, built_kit) -> KitRuntime:
    base = tmp_path_factory.mktemp("student")
    assert not base.resolve().is_relative_to(COURSE_ROOT), f"{base} is inside the repository"
    archive = built_kit(RELEASE)[1]  # the run's kit zip (tests/conftest.py), read only
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(base / "unpacked")
    kit = base / "unpacked" / archive.stem
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    _run(*pip, "wheel", "--no-deps", "-w", base / "wheels", archive)
    wheel = next((base / "wheels").glob("minigrad_labs_kit-*.whl"))
    venv = base / "venv"
    _run(getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", venv)
    site = next((venv / "lib").glob("python3*/site-packages"))
    _run(*pip, "install", "--no-deps", "--no-index", "--target", site, wheel)
    (site / "kit-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    jupyter = base / "jupyter"
    (jupyter / "kernels" / "kit").mkdir(parents=True)
    (jupyter / "kernels" / "kit" / "kernel.json").write_text(json.dumps({
        "argv": [str(venv / "bin" / "python"), "-m", "ipykernel_launcher", "-f",
                 "{connection_file}"], "display_name": "kit", "language": "python"}))
    (base / "home").mkdir()
    return KitRuntime(kit, wheel, venv, jupyter, base / "home")


def _execute(runtime: KitRuntime, notebook: nbformat.NotebookNode, folder: Path,
             extra: list[str], **env: str) -> list[str]:
    """Run every cell (and the extra cells after them) in a fresh kernel of the kit's venv,
    in `folder`, with a student's environment plus `env`; each cell's text."""
    from nbclient import NotebookClient

    executed = nbformat.from_dict(json.loads(json.dumps(notebook)))
    executed.cells += [nbformat.v4.new_code_cell(source) for source in extra]
    kernel_env = {"PATH": "/usr/bin:/bin", "HOME": str(runtime.home), "LANG": "C.UTF-8",
                  "JUPYTER_PATH": str(runtime.jupyter), **env}
    saved = dict(os.environ)
    os.environ.clear()  # the kernel inherits the client's environment: a student's, here
    os.environ.update(kernel_env)
    try:
        NotebookClient(executed, timeout=240, kernel_name="kit",
                       resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    texts = []
    for cell in executed.cells:
        parts = [html.unescape(html.unescape(output.get("data", {}).get("text/html", "")))
                 + output.get("data", {}).get("text/plain", "") + output.get("text", "")
                 + "".join(output.get("traceback", []))
                 for output in cell.get("outputs", [])]
        texts.append("".join(parts))
    return texts


def _with_code(lab: Lab, folder: Path, source: str) -> nbformat.NotebookNode:
    """The lab's notebook with `source` as its code (a student who pasted it in), saved."""
    notebook = lab_notebook(lab.name, source, (folder / "README.md").read_text(encoding="utf-8"),
                            (folder / "README.es.md").read_text(encoding="utf-8"))
    (folder / f"{lab.name}.ipynb").write_text(notebook_text(notebook), encoding="utf-8")
    return notebook


def _statuses(text: str) -> dict[str, str]:
    return json.loads(text.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _public_ids(lab: Lab) -> set[str]:
    return {check_id for ids in public_checks_by_todo(lab).values() for check_id in ids}


def _shown(text: str, check_ids: object) -> set[str]:
    return {check_id for check_id in check_ids if f'id="check-{check_id}"' in text}  # type: ignore[attr-defined]


def test_the_kit_wheel_holds_no_solution_and_the_repository_grader_is_not_importable(
        runtime: KitRuntime) -> None:
    with zipfile.ZipFile(runtime.wheel) as wheel:
        names = wheel.namelist()
    assert any(name.startswith("grader/course/labs/lab01_graph/tests/") for name in names)
    for forbidden in ("solutions/", "grader/grading/suites/", "grader/authoring/", "fixtures/"):
        assert not any(forbidden in name for name in names), f"{forbidden} in the kit's wheel"
    probe = ("import grader, json\ntry:\n    import grader.authoring\n    found = True\n"
             "except ModuleNotFoundError:\n    found = False\n"
             "print(json.dumps([grader.__file__, found]))")
    done = subprocess.run([str(runtime.venv / "bin" / "python"), "-c", probe],
                          capture_output=True, text=True, timeout=60, cwd=runtime.home,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(runtime.home)})
    where, authoring = json.loads(done.stdout)
    assert Path(where).is_relative_to(runtime.venv) and authoring is False, done.stdout


@pytest.mark.parametrize("lab", LABS.values(), ids=list(LABS))
def test_stub_notebook_says_not_written_yet_in_both_languages_and_one_todo_alone(
        runtime: KitRuntime, lab: Lab) -> None:
    """Local Jupyter: the notebook as shipped in the kit, the kit's folder on the path."""
    folder = runtime.kit / "labs" / lab.name
    notebook = nbformat.read(folder / f"{lab.name}.ipynb", as_version=4)
    todos = public_checks_by_todo(lab)
    first = min(todos)  # its checks have no prerequisite in another TODO: "not written yet"
    texts = _execute(runtime, notebook, folder, [f'check("TODO {first}", lang="es")', WHERE],
                     GRADER_LANG="en", PYTHONPATH=str(runtime.kit))
    assert texts[-1].strip().startswith(str(runtime.kit)), f"the kit folder's grader ran: {texts[-1]}"
    english, one_todo = texts[-3], texts[-2]  # the check cell; one TODO, in Spanish
    said = Catalogue.load("en").text("details.not-written.text", todo="1",
                                     file=f"{lab.name}.ipynb", where="")
    assert said.split(" still")[0] in english, english[:3000]
    spanish = Catalogue.load("es").text("details.not-written.text", todo="@",
                                        file=f"{lab.name}.ipynb", where="")
    assert spanish.split("@")[0] in one_todo, one_todo[:3000]
    assert Catalogue.load("es").text("ui.notebook.todo_only", todo=str(first),
                                     count=str(len(todos[first]))) in one_todo
    assert _shown(one_todo, _public_ids(lab)) == set(todos[first]), "only that TODO's checks"
    assert _shown(english, _public_ids(lab)) == _public_ids(lab)
    assert hidden_text_found("\n".join(texts)) == [], "the check cell shows no hidden check"


@pytest.mark.parametrize("lab", LABS.values(), ids=list(LABS))
def test_a_bug_gives_the_same_finding_as_make_check_in_both_languages(
        runtime: KitRuntime, lab: Lab, tmp_path: Path) -> None:
    folder = tmp_path / "kit-copy"  # the kit's lab folder, the student's file edited
    shutil.copytree(runtime.kit / "labs" / lab.name, folder)
    bug = COURSE_ROOT / "tests" / "fixtures" / lab.name / BUGS[lab.name] / lab.main_file
    notebook = _with_code(lab, folder, bug.read_text(encoding="utf-8"))
    texts = _execute(runtime, notebook, folder, [STATUSES % "es"],
                     GRADER_LANG="en", PYTHONPATH=str(runtime.kit))
    terminal = check_submission(lab, bug, "en")
    failed = {c["id"] for c in terminal["checks"] if c["status"] == "failed"}
    assert failed, f"{BUGS[lab.name]}: the public checks find the bug"
    assert _statuses(texts[-1].split("<")[0]) == {c["id"]: c["status"] for c in terminal["checks"]}
    for text in (texts[-2], texts[-1]):  # the check cell (English), then Spanish
        assert _shown(text, failed) == failed, "each failure shows in the check cell"
    assert Catalogue.load("es").text("ui.all_passed") not in texts[-1]
    assert hidden_text_found("\n".join(texts)) == [], "the check cell shows no hidden check"


@pytest.mark.parametrize("lab", LABS.values(), ids=list(LABS))
def test_on_a_runtime_without_the_kit_folder_or_isolation_the_solution_passes(
        runtime: KitRuntime, lab: Lab, tmp_path: Path) -> None:
    """Colab's path: the wheel installed, the notebook in a folder that is not the kit, no
    isolation: every public check passes, and the isolation is said once, in each language."""
    folder = tmp_path / "content"
    folder.mkdir()
    shutil.copy(runtime.kit / "labs" / lab.name / "README.md", folder)
    shutil.copy(runtime.kit / "labs" / lab.name / "README.es.md", folder)
    solution = (lab.solution_dir / lab.main_file).read_text(encoding="utf-8")
    notebook = _with_code(lab, folder, solution)
    for name in ("README.md", "README.es.md"):
        (folder / name).unlink()  # only the notebook, as on Colab
    for name in lab.support_files:  # lab04's value.py, which its cells import, uploaded beside
        shutil.copy(runtime.kit / "labs" / lab.name / name, folder)
    lang = "es" if list(LABS).index(lab.name) % 2 else "en"  # the check cell's language
    other = "en" if lang == "es" else "es"
    texts = _execute(runtime, notebook, folder,
                     [STATUSES % other, WHERE], GRADER_LANG=lang, GRADER_ISOLATION="none")
    assert texts[-1].strip().startswith(str(runtime.venv)), f"the installed kit ran: {texts[-1]}"
    first, in_other = texts[-3], texts[-2]
    statuses = _statuses(in_other.split("<")[0])
    assert set(statuses) == _public_ids(lab) and set(statuses.values()) == {"passed"}, statuses
    assert Catalogue.load(lang).text("ui.all_passed") in first
    assert Catalogue.load(other).text("ui.all_passed") in in_other
    said = Catalogue.load(lang).text("ui.notebook.isolation", level="", how="").split("(")[0]
    assert said in first, f"the isolation is said: {first[:3000]}"
    assert Catalogue.load(other).text("ui.notebook.isolation", level="", how="").split("(")[0] \
        not in in_other, "said once per kernel, whichever language asks next"


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
    below_the_jail = {"level": "limits", "how": "none", "memory": "per-process"}
    monkeypatch.setattr(module, "check_submission", lambda *args: {
        **check_submission(*args), "isolation": below_the_jail})  # as Colab's runtime gives
    first, second = check(lang="en"), check(lang="en")
    colab_said = Catalogue.load("en").text("ui.notebook.colab_editor")
    assert any(colab_said in notice for notice in first.notices)
    assert first.doc["lab"] == LAB.name and any(c["id"] == "example-leaf-backward"
                                                for c in first.doc["checks"])
    said = [notice for notice in first.notices if notice.startswith("This runtime gives no full")]
    assert len(said) == 1 and said[0] not in second.notices, first.notices
