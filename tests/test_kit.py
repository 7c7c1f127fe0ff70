"""The student kit as students get it: every release's zip unpacked outside the repository,
checked with the kit's own `make check` and the virtual environment its own Makefile makes
from its requirements.txt (its pip reading the run's wheelhouse, not an index; no PYTHONPATH, no repository on sys.path, HOME elsewhere, a
minimal environment). The virtual environment is made once, by the first kit, and serves
every kit whose requirements.txt is the same (they are today: a test says so).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from grader.authoring.student_kit import FORBIDDEN_IN_KIT
from grader.common.labs import LABS
from grader.results.i18n import Catalogue

pytestmark = pytest.mark.xdist_group("student_kit")

ROOT = Path(__file__).resolve().parent.parent
RELEASES = list(LABS)
LAST = RELEASES[-1]  # its kit holds every lab
DEV_DEPENDENCIES = ("ruff", "mypy", "jsonschema", "import-linter", "playwright", "hypothesis",
                    "rich")
# The `make help` lines the parametrized tests below already run in every kit, the last included.
RUN_BY_OTHER_TESTS = {("make", "check"), ("make", "check", "GRADER_LANG=es"), ("make", "check", "ALL=1"),
                      ("make", "check", "NOTEBOOK=1")}
GRADER_FAILED = re.compile(r"grader error|grader failed|error del corrector|fallo del corrector|Traceback", re.I)


def _student_env(home: Path, **extra: str) -> dict[str, str]:
    """What a student's shell has: a PATH without this repository's venv, their own HOME, and
    this machine's pip settings (how it reaches a package index); nothing else of ours."""
    path = [entry for entry in os.environ.get("PATH", "").split(os.pathsep)
            if entry and not Path(entry).resolve().is_relative_to(ROOT)]
    env = {"PATH": os.pathsep.join(path), "HOME": str(home), "LANG": "C.UTF-8",
           "NO_COLOR": "1"}
    env.update({name: value for name, value in os.environ.items() if name.startswith("PIP_")})
    env.update(extra)
    return env


class Kits:
    """The unpacked kits, the shared virtual environment, and `make` run inside a kit."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.home = base / "home"
        self.home.mkdir()
        self.folders: dict[str, Path] = {}
        self.venv = base / "unset"
        self.first_venv: subprocess.CompletedProcess[str] | None = None  # the first `make venv`

    def make(self, folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        """`make ARGS` in a kit folder, with the shared virtual environment."""
        return subprocess.run(["make", "--no-print-directory", f"VENV={self.venv}", *args],
                              cwd=folder, env=_student_env(self.home, **env),
                              capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def kits(tmp_path_factory: pytest.TempPathFactory, built_kit, wheelhouse: Path) -> Kits:
    """Every release's zip (the run's kits: tests/conftest.py), unpacked where a student would
    (outside the repository), and the virtual environment the first kit's own `make venv`
    creates, its pip reading the run's wheelhouse instead of an index (offline)."""
    base = tmp_path_factory.mktemp("students")
    assert not base.resolve().is_relative_to(ROOT), f"{base} is inside the repository"
    kits = Kits(base)
    for release in RELEASES:
        with zipfile.ZipFile(built_kit(release)[1]) as bundle:
            bundle.extractall(base / release)
        kits.folders[release] = base / release / f"minigrad-labs-kit-{release}"
    first = kits.folders[RELEASES[0]]
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)}
    made = subprocess.run(["make", "--no-print-directory", "venv"], cwd=first,
                          env=_student_env(kits.home, **offline), capture_output=True,
                          text=True, timeout=900)
    assert made.returncode == 0, made.stdout + made.stderr
    kits.venv = first / ".venv"
    kits.first_venv = made
    return kits


def test_every_kit_installs_the_same_runtime_requirements_and_nothing_else(kits: Kits) -> None:
    texts = {release: (folder / "requirements.txt").read_text(encoding="utf-8")
             for release, folder in kits.folders.items()}
    assert len(set(texts.values())) == 1, f"the kits need different environments: {texts}"
    requirements = texts[RELEASES[0]].lower()
    for name in DEV_DEPENDENCIES:
        assert name not in requirements, f"the kit installs {name}:\n{requirements}"


def test_the_kit_runs_its_own_copy_of_the_grader_not_the_repository(kits: Kits) -> None:
    folder = kits.folders[LAST]
    probe = ("import json, sys, grader\n"
             "try:\n    import grader.authoring\n    authoring = True\n"
             "except ModuleNotFoundError:\n    authoring = False\n"
             "print(json.dumps({'file': grader.__file__, 'path': sys.path, "
             "'authoring': authoring}))")
    done = subprocess.run([str(kits.venv / "bin" / "python"), "-c", probe], cwd=folder,
                          env=_student_env(kits.home), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert Path(seen["file"]).resolve().is_relative_to(folder.resolve()), seen["file"]
    assert not any(entry and Path(entry).resolve().is_relative_to(ROOT)
                   for entry in seen["path"]), seen["path"]
    assert seen["authoring"] is False, "the kit's Python finds grader.authoring somewhere"


def _assert_graded(done: subprocess.CompletedProcess[str], lang: str = "en") -> None:
    catalogue = Catalogue.load(lang)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not GRADER_FAILED.search(done.stdout + done.stderr), done.stdout[-3000:]
    status = f"{catalogue.text('ui.status_label')}: {catalogue.text('ui.status.graded')}"
    assert status in done.stdout, done.stdout[:2000]


def _not_written(lang: str) -> str:
    return Catalogue.load(lang).text("details.not-written.text", todo="1", file="x",
                                     where="").split(":")[0]


# The untouched stub's first `make check` fits in one screen (issue 35), `make`'s own line included.
FIRST_SCREEN_LINES = 40


def _assert_first_screen(done: subprocess.CompletedProcess[str], lang: str) -> None:
    """One screen: at most FIRST_SCREEN_LINES lines, one "not written yet" failure in full,
    the others counted per TODO, and how to see them all."""
    screen = (done.stdout + done.stderr).splitlines()
    assert len(screen) <= FIRST_SCREEN_LINES, f"{len(screen)} lines:\n" + "\n".join(screen)
    assert done.stdout.count(_not_written(lang)) == 1, done.stdout
    assert Catalogue.load(lang).text("ui.first_screen.heading") in done.stdout, done.stdout
    assert "ALL=1" in done.stdout, done.stdout


@pytest.mark.parametrize("release", RELEASES)
def test_make_check_on_the_untouched_stub_says_not_written_yet(kits: Kits, release: str) -> None:
    done = kits.make(kits.folders[release], "check")
    _assert_graded(done)
    assert f"Feedback for {release}" in done.stdout, done.stdout[:500]
    assert "Score: 0 / " in done.stdout and _not_written("en") in done.stdout, done.stdout[:2000]
    _assert_first_screen(done, "en")
    every = kits.make(kits.folders[release], "check", "ALL=1")
    _assert_graded(every)
    assert len(every.stdout.splitlines()) > FIRST_SCREEN_LINES, every.stdout
    assert Catalogue.load("en").text("ui.first_screen.heading") not in every.stdout


@pytest.mark.parametrize("release", RELEASES)
def test_make_check_in_spanish(kits: Kits, release: str) -> None:
    done = kits.make(kits.folders[release], "check", GRADER_LANG="es")
    _assert_graded(done, "es")
    assert _not_written("es") in done.stdout, done.stdout[:2000]
    _assert_first_screen(done, "es")


@pytest.mark.parametrize("release", RELEASES)
def test_make_check_of_the_notebook_as_its_first_cell_says(kits: Kits, release: str) -> None:
    """`NOTEBOOK=1`: the command the notebook's first cell gives, run as written in the kit."""
    folder = kits.folders[release]
    notebook = json.loads((folder / "labs" / release / f"{release}.ipynb")
                          .read_text(encoding="utf-8"))
    intro = "".join(notebook["cells"][0]["source"])
    commands = sorted(set(re.findall(r"`(make check [^`]*NOTEBOOK=1[^`]*)`", intro)))
    assert commands, f"the notebook of {release} gives no command to check it: {intro}"
    for command in commands:
        _make, *args = shlex.split(command)
        done = kits.make(folder, *args)
        _assert_graded(done)
        assert f"Submission: {release}" in done.stdout and "Score: 0 / " in done.stdout, \
            done.stdout[:2000]


@pytest.mark.parametrize("release", RELEASES)
def test_the_reference_solution_passes_every_public_check_in_the_kit(
        kits: Kits, release: str, tmp_path: Path) -> None:
    solved = tmp_path / "kit"
    shutil.copytree(kits.folders[release], solved, ignore=shutil.ignore_patterns(".venv"))
    lab = LABS[release]
    for name in lab.files:
        shutil.copy(lab.solution_dir / name, solved / "labs" / release / name)
    done = kits.make(solved, "check")
    _assert_graded(done)
    score = re.search(r"Score: (\S+) / (\S+)", done.stdout)
    assert score and score[1] == score[2], done.stdout[:3000]
    assert "[failed]" not in done.stdout and "[not run]" not in done.stdout, done.stdout[:3000]


def test_make_help_lists_only_what_works_in_the_kit(kits: Kits) -> None:
    folder = kits.folders[LAST]
    listed = kits.make(folder, "help")
    assert listed.returncode == 0, listed.stderr
    commands = {tuple(line.split("  ")[0].split()) for line in listed.stdout.splitlines()}
    for instructor_only in ("test", "demo", "grade", "bench", "labs", "kit"):
        assert not any(instructor_only in command for command in commands), listed.stdout
    for command in sorted(commands - RUN_BY_OTHER_TESTS):
        if command[1:2] == ("clean",):
            continue  # would remove the shared venv; `make -n clean` below instead
        args = [arg.replace("<lab>", RELEASES[0]) for arg in command[1:]]
        done = kits.make(folder, *args)
        assert done.returncode == 0, f"`{' '.join(command)}` fails in the kit:\n{done.stderr}"
        assert not GRADER_FAILED.search(done.stdout + done.stderr), done.stdout[-2000:]
    assert kits.make(folder, "-n", "clean").returncode == 0


def test_the_kit_holds_no_solutions_hidden_suites_or_fixtures(kits: Kits) -> None:
    for release, folder in kits.folders.items():
        for name in FORBIDDEN_IN_KIT:
            assert not (folder / name).exists(), f"{name} is in the {release} kit"
        for lab in RELEASES[: RELEASES.index(release) + 1]:
            assert (folder / "labs" / lab / LABS[lab].main_file).is_file(), (release, lab)
            assert (folder / "labs" / lab / "tests").is_dir(), "public checks ship with the lab"


def test_check_of_a_lab_not_in_the_kit_is_a_one_line_usage_error(kits: Kits) -> None:
    done = subprocess.run([str(kits.venv / "bin" / "python"), "-m", "grader", "check", LAST],
                          cwd=kits.folders[RELEASES[0]], env=_student_env(kits.home),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done
    assert len(done.stderr.strip().splitlines()) == 1 and LAST in done.stderr, done.stderr


def _notebook_holding(folder: Path, release: str, code: str | None) -> None:
    """A student's edit of the kit's notebook: `code` in the first code cell and every other
    code cell emptied but the check cell (None: one line added to the second code cell, a
    notebook only begun)."""
    path = folder / "labs" / release / f"{release}.ipynb"
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"
             and "from grader.notebook import check" not in "".join(cell["source"])]
    if code is None:
        cells[1]["source"] = "".join(cells[1]["source"]) + "\nbegun_here = 1\n"
    else:
        for cell in cells:
            cell["source"] = ""
        cells[0]["source"] = code
    path.write_text(json.dumps(notebook), encoding="utf-8")


def _flat(text: str) -> str:
    return " ".join(text.split())


# (the notebook edited, the lab file edited): a student who wrote their work in one, the
# other, both (the notebook only begun), or neither.
EDITS = {"neither": (False, False), "notebook-only": (True, False),
         "file-only": (False, True), "both": (True, True)}


@pytest.mark.parametrize("edited", list(EDITS))
@pytest.mark.parametrize("release", RELEASES)
def test_the_unzipped_kit_checks_the_file_the_student_edited(
        kits: Kits, release: str, edited: str, tmp_path: Path) -> None:
    """From every release's unzipped kit. In a kit the lab folder is the student's own: what
    it gave is known from the digests the kit carries (grader/intake/given_code.json), so an
    edited file is never "untouched"."""
    lab = LABS[release]
    student = tmp_path / "kit"
    shutil.copytree(kits.folders[release], student, ignore=shutil.ignore_patterns(".venv"))
    assert (student / "grader" / "intake" / "given_code.json").is_file()
    solution = (lab.solution_dir / lab.main_file).read_text(encoding="utf-8")
    in_notebook, in_file = EDITS[edited]
    if in_notebook:
        _notebook_holding(student, release, None if in_file else solution)
    if in_file:
        (student / "labs" / release / lab.main_file).write_text(solution, encoding="utf-8")
    done = kits.make(student, "check")
    _assert_graded(done)
    catalogue = Catalogue.load("en")
    score = re.search(r"Score: (\S+) / (\S+)", done.stdout)
    assert score, done.stdout[:2000]
    notebook_note = _flat(catalogue.text("ui.unchecked_notebook", files=f"{release}.ipynb",
                                         checked=lab.main_file, lab=release))
    if edited == "neither":
        assert score[1] == "0" and _not_written("en") in done.stdout, done.stdout[:2000]
    else:
        assert score[1] == score[2], f"{edited}: the edited file was not checked\n{done.stdout[:2000]}"
        assert _not_written("en") not in done.stdout, done.stdout[:2000]
    assert (notebook_note in _flat(done.stdout)) == (edited == "both"), done.stdout[:2000]
    if edited == "both":  # the note in Spanish too
        spanish = kits.make(student, "check", "GRADER_LANG=es")
        _assert_graded(spanish, "es")
        said = _flat(Catalogue.load("es").text("ui.unchecked_notebook", files=f"{release}.ipynb",
                                               checked=lab.main_file, lab=release))
        assert said in _flat(spanish.stdout), spanish.stdout[:2000]
        notebook = kits.make(student, "check", "NOTEBOOK=1")
        _assert_graded(notebook)
        file_note = _flat(catalogue.text("ui.unchecked_file", files=lab.main_file,
                                         checked=f"{release}.ipynb", lab=release))
        assert file_note in _flat(notebook.stdout), notebook.stdout[:2000]
        assert not re.search(r"Score: (\S+) / \1\b", notebook.stdout), notebook.stdout[:2000]


def test_the_kit_records_the_digests_of_what_it_gives(built_kit) -> None:
    """The record equals the digests of the kit's own stub and notebook, and leaves out an edit."""
    from grader.intake.candidates import code_digest, given_digests
    from grader.intake.collect import notebook_bytes

    for release in RELEASES:
        folder = built_kit(release)[0]
        record = json.loads((folder / "grader" / "intake" / "given_code.json")
                            .read_text(encoding="utf-8"))
        assert sorted(record) == RELEASES[: RELEASES.index(release) + 1]
        for name, digests in record.items():
            lab_folder = folder / "labs" / name
            assert set(digests) == given_digests(LABS[name], notebook_bytes, lab_folder)
            assert len(digests) == 2, digests  # the stub and the notebook
            edited = (lab_folder / LABS[name].main_file).read_bytes() + b"\nx = 1\n"
            assert code_digest(edited) not in digests


def test_the_first_environment_build_says_so_before_it_starts(kits: Kits) -> None:
    """The ~30 s of the first `make venv` start with one line, in both languages when
    GRADER_LANG is not set, in its language when it is; nothing else is printed."""
    said = {lang: Catalogue.load(lang).text("kit.setting_up") for lang in ("en", "es")}
    assert kits.first_venv is not None
    printed = kits.first_venv.stdout.splitlines()
    assert printed and all(text in printed[0] for text in said.values()), printed
    assert len(printed) == 1, printed
    folder = kits.folders[RELEASES[0]]
    for lang, text in said.items():
        planned = subprocess.run(["make", "-n", f"VENV={folder / 'no-venv-yet'}", "venv",
                                  f"GRADER_LANG={lang}"], cwd=folder, capture_output=True,
                                 text=True, timeout=60, env=_student_env(kits.home))
        first = planned.stdout.splitlines()[0]
        assert text in first and all(other not in first for other in said.values()
                                     if other != text), first
