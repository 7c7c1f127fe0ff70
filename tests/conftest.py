"""The suite's layout: a private TMPDIR per run, xdist groups, the two tiers, and the fixtures
several test files share (each lab's graded fixture class, one wheelhouse, one kit per release).

- Every run gets its own TMPDIR (`/tmp/minigrad-tests-*`, removed at the end): pytest's
  folders, the grader's scratch folders and everything a test makes with `tempfile` live
  there, so two runs on one machine never see each other's files.
- `make test` runs `pytest -n 2 --dist loadgroup --no-loadscope-reorder`: the tests of one
  heavy batch (a red-team mode, a lab's fixture class, a release kit, a module whose fixture
  grades or installs something) share an xdist group, so the batch runs once, on one worker;
  groups are started heaviest first (ESTIMATED_S) and the small tests fill in around them.
- `make test-fast` runs `-m "not slow"`: what is not in SLOW_MODULES or a slow group (the unit
  tests and the lab01 fixture class).

Side: trusted (the project's own tests).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from graded_classes import ROOT, LabRun, grade_lab

RUN_TMP_VARIABLE = "MINIGRAD_TEST_RUN_TMP"  # set by the process that made this run's TMPDIR
FAST_LAB = "lab01_graph"  # the fixture class `make test-fast` grades
BUILD_LOG = "build-output.txt"  # in the wheelhouse: what building this project's wheel printed

# Modules whose tests start graders, sandboxes or installs from their own fixtures; each is one
# xdist group (its module fixtures are set up once) and all are in the slow tier. Modules with
# a heavy batch per parameter are grouped per parameter (group_of).
SLOW_MODULES = frozenset({
    "tests/test_cli.py", "tests/test_interrupt.py", "tests/test_kit.py",
    "tests/test_notebooks.py", "tests/test_notebook_answers.py", "tests/test_packaging.py", "tests/test_seed_stability.py",
    "tests/test_notebook_check.py", "tests/test_missing_module.py",
    "tests/test_student_loop.py", "tests/test_student_output.py",
    "tests/test_submission_forms.py", "tests/test_release_kits.py", "tests/test_redteam.py",
    "tests/test_redteam_intake.py",
    "tests/platforms/test_class_exports.py", "tests/platforms/test_deploy.py",
    "tests/platforms/test_gradescope.py", "tests/platforms/test_prairielearn.py",
    "tests/platforms/test_image_build.py",
    "tests/sandbox/test_isolation_modes.py", "tests/sandbox/test_degraded_platforms.py",
    "tests/sandbox/test_sandbox_memory.py", "tests/sandbox/test_busy_machine.py",
    "tests/test_redteam_boundary.py", "tests/sandbox/test_given_files.py",
    "tests/test_trusted_time.py",
    "tests/semester/test_semester.py", "tests/semester/test_semester_docs.py",
    "tests/semester/test_semester_commands.py", "tests/semester/test_grade_ledger.py",
    "tests/test_kit_jupyter.py",
})
# Modules besides test_lab_fixtures.py that read each lab's graded fixture class (`graded`),
# parametrized by "<lab>/<fixture>": grouped with that lab's tests, so the class is graded once.
LAB_CLASS_READERS = frozenset({"tests/results/test_fixture_renderings.py"})
# Single tests of unit-test modules that grade a class or walk a huge graph (slow tier only).
SLOW_TESTS = frozenset({
    "tests/test_other_lab.py::test_graded_for_the_next_lab_it_is_said_and_no_pitfall_is_counted",
    "tests/test_stubgen.py::test_lab01_solution_backward_survives_a_chain_of_100000_nodes",
    "tests/results/test_build.py::test_every_submission_gets_a_document_in_order",
    "tests/results/test_build.py::test_resume_keeps_unchanged_reports_and_regrades_changed_ones",
    "tests/test_course_config.py::test_the_weights_are_scored_and_recorded_in_the_document",
    "tests/results/test_course_templates.py::test_grade_writes_its_reports_through_the_courses_templates",
    "tests/test_report_folder.py::test_a_graded_download_writes_only_reserved_names_and_keeps_them",
})
# Tests of an otherwise light module that share one costly module fixture: the tests of the
# module whose names hold the word are one group (the fixture is set up once, not once per
# worker), in the slow tier.
SHARED_FIXTURE_GROUPS = {("tests/test_batch.py", "tarpit"): "batch-tarpit-class"}
# Modules whose tests are independent (no costly module fixture): slow, but not grouped, so
# both workers take them.
UNGROUPED = frozenset({"tests/test_interrupt.py", "tests/test_seed_stability.py",
                       "tests/test_student_loop.py"})
# Rough seconds of CPU per group on an idle machine (from `make test` under --durations), only
# to start the longest first; a group not listed counts as 10 s, a lone test as 1 s.
ESTIMATED_S = {
    "redteam-root": 80, "redteam-unprivileged": 80, "redteam-container": 80,
    "lab-lab03_backprop": 60, "lab-lab02_ops": 55, "lab-lab04_xor": 40, "lab-lab01_graph": 35,
    "tests/platforms/test_gradescope.py": 45, "tests/test_packaging.py": 30,
    "tests/platforms/test_class_exports.py": 50, "tests/test_cli.py": 40,
    "kit-lab01_graph": 15, "kit-lab02_ops": 20, "kit-lab03_backprop": 25, "kit-lab04_xor": 25,
    "tests/platforms/test_deploy.py": 25, "tests/test_kit.py": 30,
    "tests/test_student_output.py": 15, "tests/platforms/test_prairielearn.py": 25,
    "tests/test_notebook_check.py": 120, "tests/sandbox/test_busy_machine.py": 45,
    "batch-tarpit-class": 35, "tests/test_notebooks.py": 40, "tests/test_redteam_intake.py": 150,
    "tests/platforms/test_image_build.py": 90,  # debootstrap when cold
    "tests/test_redteam_boundary.py": 150, "tests/test_trusted_time.py": 45,
    "tests/sandbox/test_given_files.py": 20,
    "tests/test_kit_jupyter.py": 200,  # three pip installs from the index
    "tests/semester/test_semester.py": 150,
}
# What a lone test of these modules costs (seconds), so they start before the unit tests.
UNGROUPED_ESTIMATED_S = {"tests/test_interrupt.py": 30, "tests/test_seed_stability.py": 20,
                         "tests/test_student_loop.py": 12}


def pytest_configure(config: pytest.Config) -> None:
    """Give the run its own TMPDIR (the xdist workers inherit the controller's), and Ctrl-C
    its usual meaning."""
    config.addinivalue_line("markers", "slow: not in `make test-fast` (set by tests/conftest.py)")
    # A shell ignores SIGINT in a command it starts in the background (`pytest ... &` in a
    # script), and every process started from here would inherit that: the graders that
    # tests/test_interrupt.py stops with Ctrl-C would never see it.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if os.environ.get(RUN_TMP_VARIABLE):
        return
    run_tmp = tempfile.mkdtemp(prefix="minigrad-tests-", dir="/tmp")
    os.chmod(run_tmp, 0o1777)  # like /tmp: the unprivileged modes' graders write here too
    os.environ[RUN_TMP_VARIABLE] = run_tmp
    os.environ["TMPDIR"] = run_tmp
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    config.stash[_OWN_TMP] = run_tmp


_OWN_TMP = pytest.StashKey[str]()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's TMPDIR (only the process that made it)."""
    run_tmp = config.stash.get(_OWN_TMP, None)
    if run_tmp:
        shutil.rmtree(run_tmp, ignore_errors=True)


def _module(item: pytest.Item) -> str:
    return Path(item.path).resolve().relative_to(ROOT).as_posix()


# The red-team modes, longest first (a test id starts with its mode: `[container-fork-bomb]`).
REDTEAM_MODES = ("root-no-sys-admin", "unprivileged-no-userns", "root", "unprivileged",
                 "container")


def group_of_nodeid(nodeid: str) -> str | None:
    """The xdist group of a test, from its id: the heavy batch it reads, or None (any
    worker). From the id alone, so the xdist controller (which collects nothing) can tell."""
    module, _, rest = nodeid.partition("::")
    params = rest[rest.index("[") + 1:rest.rindex("]")] if rest.endswith("]") else ""
    if module == "tests/test_redteam.py":
        mode = next((m for m in REDTEAM_MODES if params == m or params.startswith(m + "-")), None)
        return f"redteam-{mode}" if mode else None
    if module == "tests/test_lab_fixtures.py":
        return f"lab-{params.split('/')[0]}" if params.startswith("lab") else None
    if module in LAB_CLASS_READERS:
        return f"lab-{params.split('/')[0]}" if params.startswith("lab") else None
    if module.startswith("tests/browser/"):
        return f"lab-{FAST_LAB}"  # the pages of the lab01 class test_lab_fixtures graded
    if module == "tests/test_release_kits.py":
        return f"kit-{params}"
    for (shared_module, word), group in SHARED_FIXTURE_GROUPS.items():
        if module == shared_module and word in rest.partition("[")[0]:
            return group
    if module in SLOW_MODULES and module not in UNGROUPED:
        return module
    return None


def group_of(item: pytest.Item) -> str | None:
    """The xdist group of a collected test (group_of_nodeid)."""
    return group_of_nodeid(item.nodeid)


def _is_slow(item: pytest.Item, group: str | None) -> bool:
    module = _module(item)
    if module == "tests/test_lab_fixtures.py":
        return group not in (None, f"lab-{FAST_LAB}")
    if module in LAB_CLASS_READERS:
        return group not in (None, f"lab-{FAST_LAB}")
    return (module in SLOW_MODULES or module.startswith("tests/browser/")
            or group in SHARED_FIXTURE_GROUPS.values()
            or f"{module}::{getattr(item, 'originalname', item.name)}" in SLOW_TESTS)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test's xdist group and tier (before xdist reads the groups)."""
    for item in items:
        group = group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if _is_slow(item, group):
            item.add_marker(pytest.mark.slow)


def _weight(item: pytest.Item) -> float:
    group = group_of(item)
    if group is not None:
        return ESTIMATED_S.get(group, 10.0)
    return UNGROUPED_ESTIMATED_S.get(_module(item), 1.0)


class _Order:
    """Start the heaviest groups first: xdist (--no-loadscope-reorder) hands out groups in
    collection order, so a long batch never starts last while the other worker idles."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Stable sort by estimated cost: a group's tests keep their order."""
        items.sort(key=lambda item: -_weight(item))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Register the ordering hook (after the fixtures' own reordering)."""
    session.config.pluginmanager.register(_Order(), "minigrad-order")


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pragma: no cover - without xdist, `pytest` runs serially
    LoadScopeScheduling = None

if LoadScopeScheduling is not None:
    class GroupScheduling(LoadScopeScheduling):
        """--dist loadgroup by group_of_nodeid: xdist's own loadgroup reads the xdist_group
        marks through a node id suffix that pytest 9 no longer lets it set, so the groups
        are told apart here, from the ids the workers collected."""

        def _split_scope(self, nodeid: str) -> str:
            return group_of_nodeid(nodeid) or nodeid

    def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
        """The group scheduler for --dist loadgroup (xdist's own otherwise)."""
        if config.getvalue("dist") == "loadgroup":
            return GroupScheduling(config, log)
        return None


# -- shared fixtures --------------------------------------------------------------------------

@pytest.fixture(scope="session")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], LabRun]:
    """`graded(lab)`: the lab's fixture class (graded_classes.py), graded once per session on
    first use; shared by test_lab_fixtures.py and the browser tests."""
    runs: dict[str, LabRun] = {}

    def run_for(folder: str) -> LabRun:
        if folder not in runs:
            runs[folder] = grade_lab(folder, tmp_path_factory.mktemp(folder))
        return runs[folder]

    return run_for


def _run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this run that every xdist worker sees (pytest's own folder of the run)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _made_once(folder: Path, make: Callable[[Path], None]) -> Path:
    """`folder`, made by `make(folder)` by the first process of the run that asks (the others
    wait for it on a lock beside the folder) and then only read."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.with_name(f"{folder.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".complete").is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            make(folder)
            (folder / ".complete").touch()
    return folder


@pytest.fixture(scope="session")
def built_kit(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, Path]]:
    """`built_kit(release)`: (kit folder, kit zip) of the release, built once per run and shared
    by every test file and xdist worker that reads a kit (test_kit, test_kit_contents,
    test_release_kits, test_notebook_check). Read it only: a test that writes copies it."""
    from grader.authoring.student_kit import build_kit

    def kit_of(release: str) -> tuple[Path, Path]:
        name = f"minigrad-labs-kit-{release}"

        def make(folder: Path) -> None:
            build_kit(folder / name, release)

        made = _made_once(_run_folder(tmp_path_factory) / "kits" / release, make)
        return made / name, made / f"{name}.zip"

    return kit_of


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of wheels: this project's (built from the tree) and its runtime dependencies at
    the versions installed here, made once per run and shared by the xdist workers. Install
    from it without an index: `pip install --no-index --find-links <wheelhouse> minigrad-labs`
    (or PIP_NO_INDEX=1 PIP_FIND_LINKS=<wheelhouse> for a script that runs pip itself)."""
    from grader.platforms.bundle import pinned_requirements

    def make(folder: Path) -> None:
        requirements = folder / "requirements.txt"
        requirements.write_text(pinned_requirements(), encoding="utf-8")
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
        subprocess.run([*pip, "download", "--quiet", "--only-binary=:all:", "-d", str(folder),
                        "-r", str(requirements)], check=True, capture_output=True)
        # Built as `pip install` builds it (isolated, quiet); what the build printed is kept
        # for the test that no build warning reaches a first `make venv` (test_packaging).
        built = subprocess.run([*pip, "wheel", "--quiet", "--no-deps", "-w", str(folder),
                                str(ROOT)], check=True, capture_output=True, text=True)
        (folder / BUILD_LOG).write_text(built.stdout + built.stderr, encoding="utf-8")

    return _made_once(_run_folder(tmp_path_factory) / "wheelhouse", make)


@pytest.fixture(scope="session")
def wheel_build_output(wheelhouse: Path) -> str:
    """What building this project's wheel into the wheelhouse printed (test_packaging reads it:
    a test file cannot import conftest by name, which the red team's conftest also has)."""
    return (wheelhouse / BUILD_LOG).read_text(encoding="utf-8")
