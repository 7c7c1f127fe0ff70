"""pytest plugin: runs each check once per submission, through the sandbox, and records outcomes.

Side: trusted process (the pytest process of a shard; student code runs only in sandbox children).

Loaded with `-p grader.grading.plugin --grader-manifest FILE`. The manifest names the lab and
the prepared submissions; every test that asks for `run` is parametrized over them. The
plugin validates `check` markers at collection, turns failed prerequisites into not-run,
and gives pytest-json-report each test's `grader` entry as the test's metadata; pytest-json-report
is the one serializer of the run, read per finished submission (`SubmissionStream`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import random
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from grader.common.labs import COURSE_ROOT, Lab, get_lab
from grader.grading.checking.marker import (
    CheckDefinitionError,
    CheckSpec,
    spec_from_marker,
    validate_suite,
    with_random_deferrals,
)
from grader.grading.checking.reference import ReferenceRuns, load_reference_class
from grader.grading.checking.todos import NOT_WRITTEN, not_written, untouched_todos
from grader.grading.checking.verdict import CheckFailed, NotRun, StructureFailed
from grader.grading.child.bootstrap import collect_seldom
from grader.grading.child.scenario import Scenario
from grader.grading.manifest import ManifestSubmission, read_manifest
from grader.grading.sandbox import reaper
from grader.grading.sandbox.early import EarlySandbox
from grader.grading.sandbox.inprocess import InProcessRunner
from grader.grading.sandbox.jail import default_interpreter, default_jail
from grader.grading.sandbox.sandbox import Limits, Outcome, Sandbox
from grader.grading.sandbox.shard_zygote import ShardZygotes
from grader.grading.trusted_time import TrustedOverrun, charged
from grader.intake.notebook_module import CellStart, cell_frame


@dataclass
class GradingState:
    """The run described by the manifest, plus each (submission, check) status seen so far."""

    lab: Lab
    seed: str
    submissions: list[ManifestSubmission]
    in_process: bool = False
    statuses: dict[tuple[str, str], str] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)  # a course file's, by check id
    budget_s: float = Limits.budget_s  # wall-clock seconds per submission, all checks together
    # every submission's sandbox forks its zygote from one of these (closed at unconfigure)
    zygotes: ShardZygotes = field(default_factory=ShardZygotes)
    early: dict[str, EarlySandbox] = field(default_factory=dict)  # by submission id


# What a failed check shows of the student's output: per scenario the sandbox keeps 4096
# bytes; across a check's scenarios this many characters, then the sandbox's own marker.
OUTPUT_CAP = 4096
OUTPUT_CUT = "\n[... {omitted} more bytes not shown]"

STATE_KEY = pytest.StashKey[GradingState]()
SPEC_KEY = pytest.StashKey[CheckSpec]()
NOT_STATE_KEY = pytest.StashKey[dict[str, Any]]()
# The status kept for a check whose own verdict raised NotRun (reported as not-run): for
# `requires` it did not pass; for `defers_to` it takes no blame.
DECLINED = "declined"
# The status kept for a check that failed on a structural finding alone (StructureFailed: an
# attribute's name, a label): the checks that require it or defer to it run as if it passed.
STRUCTURE_ONLY = "structure-only"
STREAM_KEY = pytest.StashKey["SubmissionStream"]()
ENTRY_KEY = pytest.StashKey[dict[str, Any]]()  # the check's entry once its verdict is decided


def pytest_addoption(parser: pytest.Parser) -> None:
    """The manifest option."""
    group = parser.getgroup("grader")
    group.addoption(
        "--grader-manifest", default=None, help="JSON manifest written by `python -m grader`")
    group.addoption(
        "--grader-stream", default=None,
        help="append one JSON line per submission as its last check finishes")


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker and load the manifest."""
    config.addinivalue_line(
        "markers",
        "check(id, pitfall, weight, requires=(), defers_to=(), timeout=None, todo=None, "
        "random=False, random_defers=False): "
        "a graded check")
    path = config.getoption("--grader-manifest")
    if not path:
        return
    manifest = read_manifest(Path(path))
    config.stash[STATE_KEY] = GradingState(
        lab=get_lab(manifest.lab),
        seed=manifest.seed,
        submissions=list(manifest.submissions),
        in_process=manifest.in_process,
        weights=manifest.weights,
        budget_s=manifest.budget_s,
    )
    stream = config.getoption("--grader-stream")
    if stream:
        config.stash[STREAM_KEY] = SubmissionStream(stream, config)
        config.pluginmanager.register(config.stash[STREAM_KEY], "grader-stream")
    reaper.enable_subreaper()
    # the reference's runs build the very graphs the children build: collected as seldom
    collect_seldom()
    state = config.stash[STATE_KEY]
    if not state.in_process and state.submissions:  # these start while pytest collects
        # default_interpreter probes the jail here, in the main thread: the probes fork, which
        # the early sandbox's thread must not do while pytest imports the suites
        state.zygotes.prestart(default_interpreter())
        first = state.submissions[0]
        state.early[first.id] = EarlySandbox(lambda: _new_sandbox(state, first))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the shard's zygotes (and a sandbox started early that no check took)."""
    state = config.stash.get(STATE_KEY, None)
    if state is not None:
        for early in state.early.values():
            early.close()
        state.zygotes.close()


def _grading_state(config: pytest.Config) -> GradingState:
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        raise pytest.UsageError("graded checks run through `python -m grader`, not bare pytest")
    return state


@pytest.hookimpl(trylast=True)  # after the suite's own parametrize: the submission's id goes last
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize every check over the manifest's submissions."""
    if "submission" not in metafunc.fixturenames:
        return
    state = _grading_state(metafunc.config)
    metafunc.parametrize("submission", state.submissions, ids=[s.id for s in state.submissions],
                         indirect=True, scope="session")


@functools.lru_cache(maxsize=16)
def _visibility(suite: Path) -> str:
    """public for a suite under the course's labs/ (the students have it), else hidden."""
    try:
        suite.resolve().relative_to(COURSE_ROOT / "labs")
        return "public"
    except ValueError:
        return "hidden"


# A check: its test function and its check marker (by identity: a marker holds dicts).
CheckKey = tuple[object, int]


def _check_marker(item: pytest.Item) -> pytest.Mark | None:
    """The item's check marker: its parameter's (`pytest.param(..., marks=pytest.mark.check(
    ...))`, in `item.callspec.marks`), else its function's."""
    callspec = getattr(item, "callspec", None)
    marks = callspec.marks if callspec is not None else []
    return next((mark for mark in marks if mark.name == "check"),
                item.get_closest_marker("check"))


def _check_key(item: pytest.Item) -> CheckKey:
    """One key per check, whatever the submission: the test function and its check marker, the
    very object that every submission's item of the test, or of one `check_case` row of it
    (`item.callspec.marks`), carries."""
    return getattr(item, "function", item.nodeid), id(_check_marker(item))


def _submission_index(item: pytest.Item, order: dict[str, int]) -> int:
    callspec = getattr(item, "callspec", None)
    return order[callspec.params["submission"].id] if callspec else -1


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Validate check markers once per check, then group the items by submission."""
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        return
    specs: dict[CheckKey, CheckSpec] = {}
    try:
        for item in items:
            key = _check_key(item)
            if key not in specs:  # the check's first item names it in messages
                marker = _check_marker(item)
                if marker is None:
                    raise CheckDefinitionError(f"{item.nodeid}: has no @pytest.mark.check(...) "
                                               "marker")
                specs[key] = spec_from_marker(item.nodeid, marker.args, dict(marker.kwargs),
                                              _visibility(Path(item.path)))
            item.stash[SPEC_KEY] = specs[key]
        completed = with_random_deferrals(specs.values())
        validate_suite(completed)
        by_id = {spec.id: spec for spec in completed}
        for item in items:  # the random checks' defers_to, completed by the rule
            item.stash[SPEC_KEY] = by_id[item.stash[SPEC_KEY].id]
    except CheckDefinitionError as exc:
        raise pytest.UsageError(str(exc)) from None
    order = {entry.id: index for index, entry in enumerate(state.submissions)}
    items.sort(key=lambda item: _submission_index(item, order))
    stream = config.stash.get(STREAM_KEY, None)
    if stream is not None:
        stream.plan(items)


@dataclass
class SubmissionContext:
    """One submission under test, with the runner that executes its code."""

    id: str
    digest: str
    runner: Sandbox | InProcessRunner
    flags: list[dict[str, Any]] = field(default_factory=list)  # runtime flags of the check running
    output: list[str] = field(default_factory=list)  # what its scenarios printed, in order
    untouched: tuple[int, ...] = ()  # the TODOs still as the stub has them (see checking.todos)
    # Why the lab's module cannot be loaded at all (see `load_problem`); every check is then
    # not run, and the score document says it once.
    problem: dict[str, Any] | None = None
    notebook: str = ""  # the notebook the main file came from: lines are said as its cells
    cells: tuple[CellStart, ...] = ()

    def in_own_terms(self, outcome: Outcome) -> Outcome:
        """The outcome with its traceback frames said as the student wrote the code: in a
        notebook, the code cell and the line inside it (grader.intake.notebook_module)."""
        frames = outcome.detail.get("where")
        if not self.notebook or not isinstance(frames, list):
            return outcome
        where = [cell_frame(frame, self.cells, self.notebook) for frame in frames]
        return dataclasses.replace(outcome, detail={**outcome.detail, "where": where})


def _untouched(workdir: Path, lab: Lab) -> tuple[int, ...]:
    """The TODOs the submission's files (read as text, never run) still hold as in the stub."""
    texts = [(workdir / name).read_text(encoding="utf-8", errors="replace")
             for name in lab.files if (workdir / name).is_file()]
    return untouched_todos(texts, lab.name)


# How a failed import probe is reported, by the sandbox outcome's status.
PROBLEM_KINDS = {"import-error": "import-error", "timeout": "import-timeout",
                 "crash": "import-crash", "bad-result": "import-crash",
                 "over-budget": "over-budget"}


def load_problem(context: SubmissionContext, main_file: str,
                 empty: bool = False) -> dict[str, Any] | None:
    """The submission-level problem when the lab's module cannot be imported: kind, file,
    line (of the last frame in the student's file: in a notebook, the line inside the cell,
    and `cell`, `first_line` say which cell), message, the detail the catalogue renders (with
    `empty` when the file holds no code: no line to show), and the student's output; None if
    it loads."""
    outcome = context.runner.load_problem()
    if outcome is None:
        return None
    outcome = context.in_own_terms(outcome)
    file = context.notebook or main_file
    params = {"file": file, **outcome.detail, **({"empty": True} if empty else {})}
    frames = [f for f in params.get("where") or [] if isinstance(f, dict)]
    last = frames[-1] if frames else {}
    how = params.get("how")
    message = str(params.get("message") or (how if isinstance(how, str) else ""))
    if "type" in params:
        message = f"{params['type']}: {message}"
    problem = {"kind": PROBLEM_KINDS.get(outcome.status, "import-crash"), "file": file,
               "line": last.get("cell_line", last.get("line")) or None, "message": message[:500],
               "params": params, "output": outcome.output or None}
    if "cell" in last:
        problem.update(cell=last["cell"], first_line=last["first_line"])
    return problem


def _new_sandbox(state: GradingState, entry: ManifestSubmission) -> Sandbox:
    """The sandbox of one submission of the manifest, its zygote not started yet."""
    lab = state.lab
    jail = default_jail()  # the child sees the system's libraries and its submission only
    interpreter = jail.interpreter if jail else sys.executable
    return Sandbox(Path(entry.workdir), lab.module, lab.class_name, lab.files,
                   Limits(timeout_s=lab.timeout_s, budget_s=state.budget_s), jail=jail,
                   shard_zygote=state.zygotes.for_interpreter(interpreter))


@pytest.fixture(scope="session")
def submission(request: pytest.FixtureRequest) -> Iterator[SubmissionContext]:
    """The submission these checks are parametrized with, its sandbox open for the duration."""
    entry: ManifestSubmission = request.param
    state = _grading_state(request.config)
    lab = state.lab
    workdir = Path(entry.workdir)
    runner: Sandbox | InProcessRunner
    if state.in_process:
        runner = InProcessRunner(workdir, lab.module, lab.class_name, lab.files)
    elif entry.id in state.early:
        runner = state.early.pop(entry.id).take()
    else:
        runner = _new_sandbox(state, entry)
    try:
        context = SubmissionContext(entry.id, entry.digest, runner,
                                    untouched=_untouched(workdir, lab),
                                    notebook=entry.notebook, cells=entry.cells)
        main = workdir / lab.main_file
        context.problem = load_problem(context, lab.main_file, empty=main.is_file() and not
                                       main.read_bytes().strip())
        yield context
    finally:
        runner.close()


def failure_from_outcome(outcome: Outcome, params: dict[str, Any], lab: Lab,
                         untouched: tuple[int, ...] = (), file: str = "") -> CheckFailed:
    """The CheckFailed that a non-ok scenario outcome stands for.

    A NotImplementedError is code not written yet (a TODO of the stub), never a pitfall. Every
    scenario run through here builds a graph without cycles (the cycle scenarios catch what
    `backward()` raises themselves), so an error that reports a cycle is a false report: the
    cycle detection's fault, whatever the check was looking at.
    """
    detail = dict(outcome.detail)
    main_file = file or lab.main_file  # the notebook, for a notebook submission
    if outcome.status == "exception":
        unwritten = not_written(detail, lab.name, main_file, outcome.output, untouched)
        if unwritten is not None:
            return unwritten
        if (detail.get("type") in ("ValueError", "RuntimeError")
                and "cycle" in str(detail.get("message", "")).lower()):
            return CheckFailed("false-cycle", output=outcome.output, pitfall="cycle-detection",
                               **detail)
    if outcome.status == "import-error":
        detail["file"] = main_file
    elif outcome.status == "wrong-type":
        detail["inputs"] = params
    return CheckFailed(outcome.status, output=outcome.output, **detail)


@pytest.fixture
def sandboxed(request: pytest.FixtureRequest, submission: SubmissionContext) -> Callable[..., Any]:
    """`sandboxed(scenario, **params)`: the scenario's plain-data result from the student's code."""
    spec = request.node.stash[SPEC_KEY]
    lab = _grading_state(request.config).lab

    submission.flags.clear()
    submission.output.clear()
    if submission.problem is not None:  # said once, for the whole submission
        raise NotRun("submission-problem", problem=submission.problem["kind"])
    runner = submission.runner
    if isinstance(runner, Sandbox) and runner.over_budget:  # stopped: later checks are not run
        raise NotRun("over-budget", seconds=runner.limits.budget_s)

    def run_scenario(scen: Scenario, *, patience: float = 1.0, **params: Any) -> Any:
        # patience: a multiple of the check's time limit, for a run repeated after a timeout
        # that the verdict does not blame on the code (a busy machine)
        timeout_s = (spec.timeout_s or lab.timeout_s) * patience
        outcome = submission.runner.run(scen, params, timeout_s=timeout_s)
        submission.flags.extend(outcome.flags)
        if outcome.output:
            submission.output.append(outcome.output)
        if not outcome.ok:
            raise failure_from_outcome(submission.in_own_terms(outcome), params, lab,
                                       submission.untouched, submission.notebook)
        return outcome.value

    return run_scenario


@pytest.fixture
def blame_deferred(request: pytest.FixtureRequest, submission: SubmissionContext) -> bool:
    """True when a check this one defers to has already failed for this submission: a failure
    here would be reported not run, so the check may skip explaining it (shrinking, diagnosis)."""
    return bool(_deferred_to(request.node, request.node.stash[SPEC_KEY], submission.id))


@pytest.fixture
def statuses(request: pytest.FixtureRequest, submission: SubmissionContext) -> dict[str, str]:
    """The status of every check already finished for this submission, by check id: a check
    that judges several operations at once leaves out the ones whose own checks did not pass."""
    return {check: status for (submission_id, check), status
            in _grading_state(request.config).statuses.items() if submission_id == submission.id}


@pytest.fixture(scope="session")
def reference_class(request: pytest.FixtureRequest) -> Any:
    """The reference solution's class, imported in this trusted process."""
    return load_reference_class(_grading_state(request.config).lab)


@pytest.fixture(scope="session")
def reference_runs(reference_class: Any) -> ReferenceRuns:
    """The reference's results, each input's computed once for the whole shard."""
    return ReferenceRuns(reference_class)


@pytest.fixture
def reference(reference_runs: ReferenceRuns) -> Callable[..., Any]:
    """`reference(scenario, **params)`: the same scenario run on the reference solution."""

    def run_on_reference(scen: Scenario, **params: Any) -> Any:
        return reference_runs.run(scen, params)

    return run_on_reference


@pytest.fixture
def rng(request: pytest.FixtureRequest, submission: SubmissionContext) -> random.Random:
    """Random inputs seeded by the course seed, the submission and the check."""
    spec = request.node.stash[SPEC_KEY]
    seed = _grading_state(request.config).seed
    # The content digest is part of the seed: a resubmission with other code gets other inputs,
    # so a table of answers harvested from earlier feedback is worthless.
    return random.Random(f"{seed}:{submission.id}:{submission.digest}:{spec.id}")


def _check_output(item: pytest.Item) -> str:
    """What the student's code printed during the check's scenarios, capped at OUTPUT_CAP."""
    context = item.funcargs.get("submission") if hasattr(item, "funcargs") else None
    printed = "".join(context.output) if isinstance(context, SubmissionContext) else ""
    if len(printed) <= OUTPUT_CAP:
        return printed
    omitted = len(printed.encode("utf-8")) - len(printed[:OUTPUT_CAP].encode("utf-8"))
    return printed[:OUTPUT_CAP] + OUTPUT_CUT.format(omitted=omitted)


def _submission_id(item: pytest.Item) -> str:
    return item.callspec.params["submission"].id  # type: ignore[attr-defined, no-any-return]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Charge the check's trusted work to its submission's budget, and cut it off past it."""
    context = item.funcargs.get("submission") if hasattr(item, "funcargs") else None
    runner = context.runner if isinstance(context, SubmissionContext) else None
    if not isinstance(runner, Sandbox):
        return (yield)
    with charged(runner):
        return (yield)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (as not-run) a check whose prerequisites did not pass for this submission."""
    spec = item.stash.get(SPEC_KEY, None)
    if spec is None or not spec.requires:
        return
    state = _grading_state(item.config)
    submission_id = _submission_id(item)
    missing = [r for r in spec.requires
               if state.statuses.get((submission_id, r)) not in ("passed", STRUCTURE_ONLY)]
    if missing:
        item.stash[NOT_STATE_KEY] = {"kind": "prerequisite", "params": {"checks": missing}}
        pytest.skip(f"not run: {', '.join(missing)} did not pass")


def _deferred_to(item: pytest.Item, spec: CheckSpec, submission_id: str) -> list[str]:
    """The checks a failure of `spec` defers to that did not pass. Two kinds take no blame: a
    check that was not run at all in this session (as in a reduced suite), and one that
    declined to judge this submission (its verdict raised NotRun: what it looks for is not
    what went wrong here)."""
    statuses = _grading_state(item.config).statuses
    return [check for check in spec.defers_to
            if statuses.get((submission_id, check), "passed")
            not in ("passed", DECLINED, STRUCTURE_ONLY)]


@dataclass(frozen=True)
class Verdict:
    """What a finished check concluded for one submission, decided once (see `_verdict`)."""

    status: str  # passed | failed | not-run | error
    detail: dict[str, Any] | None = None
    output: str = ""  # what the student's code printed (failures only)
    pitfall: str | None = None  # the pitfall the failure names, when not the check's own
    declined: bool = False  # the check's own verdict raised NotRun (see DECLINED)
    structure_only: bool = False  # it failed on a structural finding alone (STRUCTURE_ONLY)


def _verdict(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport,
             spec: CheckSpec, submission_id: str) -> Verdict:
    """The check's verdict for a finished setup or call phase, in the order the rules apply:
    a prerequisite that did not pass (setup skipped it); no exception; a failure, unless a
    check it defers to failed first (then it is not run, except for code not written yet,
    which is always said); the check declining to judge; anything else, the grader's error."""
    not_run = item.stash.get(NOT_STATE_KEY, None)
    if report.skipped and not_run is not None:
        return Verdict("not-run", not_run)
    if call.excinfo is None:
        return Verdict("passed")
    error = call.excinfo.value
    if isinstance(error, CheckFailed):
        unwritten = (error.detail or {}).get("kind") == NOT_WRITTEN
        deferred = [] if unwritten else _deferred_to(item, spec, submission_id)
        if deferred:
            return Verdict("not-run", {"kind": "prerequisite", "params": {"checks": deferred}})
        return Verdict("failed", error.detail, _check_output(item) or error.output,
                       error.pitfall, structure_only=isinstance(error, StructureFailed))
    if isinstance(error, NotRun):
        return Verdict("not-run", error.detail, declined=True)
    if isinstance(error, TrustedOverrun):  # its own reply's cost: the submission's time is up
        return Verdict("not-run", {"kind": "over-budget",
                                   "params": {"seconds": _grading_state(item.config).budget_s}})
    where = {"kind": "reference-check-raised", "params": {
        "type": call.excinfo.type.__name__, "check": spec.id, "stage": report.when}}
    return Verdict("error", {"kind": "grader-error", "params": {"reference": where}})


def _entry(item: pytest.Item, spec: CheckSpec, submission_id: str,
           verdict: Verdict) -> dict[str, Any]:
    """The check's data for the report: its verdict, weight and what the sandbox recorded."""
    context = item.funcargs.get("submission") if hasattr(item, "funcargs") else None
    ran = context if isinstance(context, SubmissionContext) else None
    return {
        "submission": submission_id, "check": spec.id, "pitfall": verdict.pitfall or spec.pitfall,
        "weight": _grading_state(item.config).weights.get(spec.id, spec.weight),
        "visibility": spec.visibility, "status": verdict.status, "detail": verdict.detail,
        "output": verdict.output or None, "flags": list(ran.flags) if ran else [],
        "isolation": ran.runner.isolation.as_dict() if ran else None,
        "problem": ran.problem if ran else None,
    }


# trylast: the innermost wrapper, so the entry exists before pytest-json-report's wrapper
# asks for the test's metadata (pytest_json_runtest_metadata) once the report is made.
@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[None]:
    """Decide the check's verdict, record its status for the checks that follow, and keep
    its entry for the JSON report."""
    report: pytest.TestReport = yield  # type: ignore[misc, assignment]
    spec = item.stash.get(SPEC_KEY, None)
    if spec is None or (report.when == "setup" and report.passed) or report.when == "teardown":
        return report  # type: ignore[return-value]
    submission_id = _submission_id(item)
    verdict = _verdict(item, call, report, spec, submission_id)
    _grading_state(item.config).statuses[(submission_id, spec.id)] = (
        DECLINED if verdict.declined
        else STRUCTURE_ONLY if verdict.structure_only else verdict.status)
    item.stash[ENTRY_KEY] = _entry(item, spec, submission_id, verdict)
    return report  # type: ignore[return-value]


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """pytest-json-report's metadata of the test: the check's entry, once it is decided."""
    entry = item.stash.get(ENTRY_KEY, None)
    return {"grader": entry} if entry is not None else None


def json_report_tests(config: pytest.Config) -> Mapping[str, dict[str, Any]]:
    """pytest-json-report's entry of every test reported so far, by node id: what its report's
    `tests` will hold. Read from its plugin object while the run goes on (1.5's attribute;
    pyproject pins the version this is read from, tests/test_private_reads.py fails on
    another), so that each submission is out as soon as its checks are."""
    tests: Mapping[str, dict[str, Any]] = config._json_report._json_tests  # type: ignore[attr-defined]
    return tests


class SubmissionStream:
    """Writes one JSON line per submission as soon as its last check has finished: its tests
    as pytest-json-report serialized them, so the batch builds that submission's document at
    once instead of waiting for the rest of the shard."""

    def __init__(self, path: str, config: pytest.Config) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self.config = config
        self.nodes_of: dict[str, list[str]] = {}  # submission id -> node ids of its checks
        self.closing: dict[str, str] = {}  # node id of a submission's last check -> submission

    def plan(self, items: list[pytest.Item]) -> None:
        """Note which items each submission has, and which one closes it (items are already
        in run order)."""
        for item in items:
            self.nodes_of.setdefault(_submission_id(item), []).append(item.nodeid)
        self.closing = {nodes[-1]: submission for submission, nodes in self.nodes_of.items()}

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """After a submission's last check, write its line: whole, in one write, or not at all."""
        submission_id = self.closing.get(nodeid)
        if submission_id is None:
            return
        reported = json_report_tests(self.config)
        nodes = self.nodes_of[submission_id]
        line = json.dumps({"submission": submission_id, "checks": len(nodes),
                           "tests": [reported[n] for n in nodes if n in reported]}) + "\n"
        os.write(self.fd, line.encode("utf-8"))
