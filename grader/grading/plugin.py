"""pytest plugin: runs each check once per submission, through the sandbox, and records outcomes.

Side: trusted process (the pytest process of a shard; student code runs only in sandbox children).

Loaded with `-p grader.grading.plugin --grader-manifest FILE`. The manifest names the lab and
the prepared submissions; every test that asks for `run` is parametrized over them. The
plugin validates `check` markers at collection, turns failed prerequisites into not-run,
and attaches one `grader` user property per test for pytest-json-report.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from grader.grading.checking.marker import (
    CheckDefinitionError,
    CheckSpec,
    spec_from_marker,
    validate_suite,
)
from grader.grading.checking.reference import load_reference_class, run_reference
from grader.grading.checking.todos import NOT_WRITTEN, not_written, untouched_todos
from grader.grading.checking.verdict import CheckFailed, NotRun
from grader.grading.child.scenario import Scenario
from grader.grading.sandbox import reaper
from grader.grading.sandbox.inprocess import InProcessRunner
from grader.grading.sandbox.jail import default_jail
from grader.grading.sandbox.sandbox import Limits, Outcome, Sandbox
from grader.intake.notebook_module import CellStart, cell_frame, cells_from_data
from grader.labs import COURSE_ROOT, Lab, get_lab


@dataclass
class GradingState:
    """The run described by the manifest, plus each (submission, check) status seen so far."""

    lab: Lab
    seed: str
    submissions: list[dict[str, Any]]
    in_process: bool = False
    statuses: dict[tuple[str, str], str] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)  # a course file's, by check id
    budget_s: float = Limits.budget_s  # wall-clock seconds per submission, all checks together


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
STREAM_KEY = pytest.StashKey["SubmissionStream"]()


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
        "check(id, pitfall, weight, requires=(), defers_to=(), timeout=None, todo=None): "
        "a graded check")
    path = config.getoption("--grader-manifest")
    if not path:
        return
    manifest = json.loads(Path(path).read_text(encoding="utf-8"))
    config.stash[STATE_KEY] = GradingState(
        lab=get_lab(manifest["lab"]),
        seed=str(manifest["seed"]),
        submissions=manifest["submissions"],
        in_process=bool(manifest.get("in_process", False)),
        weights={str(k): float(v) for k, v in manifest.get("weights", {}).items()},
        budget_s=float(manifest.get("budget_s", Limits.budget_s)),
    )
    stream = config.getoption("--grader-stream")
    if stream:
        config.stash[STREAM_KEY] = SubmissionStream(stream)
        config.pluginmanager.register(config.stash[STREAM_KEY], "grader-stream")
    reaper.enable_subreaper()


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
    metafunc.parametrize("submission", state.submissions, ids=[s["id"] for s in state.submissions],
                         indirect=True, scope="session")


def _visibility(item: pytest.Item) -> str:
    try:
        Path(item.path).resolve().relative_to(COURSE_ROOT / "labs")
        return "public"
    except ValueError:
        return "hidden"


def _check_key(item: pytest.Item) -> str:
    """The item's node id without its submission: one key per check, whatever the submission.

    A parametrized check (`pytest.param(..., marks=pytest.mark.check(...))`) keeps the id of
    its parameters, so each parameter is a check of its own.
    """
    base, _, ids = item.nodeid.partition("[")
    submission_id = _submission_id(item)
    ids = ids.removesuffix("]").removesuffix(submission_id).removesuffix("-")
    return f"{base}[{ids}]" if ids else base


def _submission_index(item: pytest.Item, order: dict[str, int]) -> int:
    callspec = getattr(item, "callspec", None)
    return order[callspec.params["submission"]["id"]] if callspec else -1


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Validate check markers once per check, then group the items by submission."""
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        return
    specs: dict[str, CheckSpec] = {}
    try:
        for item in items:
            key = _check_key(item)
            if key not in specs:
                marker = item.get_closest_marker("check")
                if marker is None:
                    raise CheckDefinitionError(f"{key}: has no @pytest.mark.check(...) marker")
                specs[key] = spec_from_marker(key, marker.args, dict(marker.kwargs),
                                              _visibility(item))
            item.stash[SPEC_KEY] = specs[key]
        validate_suite(specs.values())
    except CheckDefinitionError as exc:
        raise pytest.UsageError(str(exc)) from None
    order = {entry["id"]: index for index, entry in enumerate(state.submissions)}
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


def load_problem(context: SubmissionContext, main_file: str) -> dict[str, Any] | None:
    """The submission-level problem when the lab's module cannot be imported: kind, file,
    line (of the last frame in the student's file: in a notebook, the line inside the cell,
    and `cell`, `first_line` say which cell), message, the detail the catalogue renders, and
    the student's output; None if it loads."""
    outcome = context.runner.load_problem()
    if outcome is None:
        return None
    outcome = context.in_own_terms(outcome)
    file = context.notebook or main_file
    params = {"file": file, **outcome.detail}
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


@pytest.fixture(scope="session")
def submission(request: pytest.FixtureRequest) -> Iterator[SubmissionContext]:
    """The submission these checks are parametrized with, its sandbox open for the duration."""
    entry = request.param
    state = _grading_state(request.config)
    lab = state.lab
    workdir = Path(entry["workdir"])
    runner: Sandbox | InProcessRunner
    if state.in_process:
        runner = InProcessRunner(workdir, lab.module, lab.class_name, lab.files)
    else:
        jail = default_jail()  # the child sees the system's libraries and its submission only
        runner = Sandbox(workdir, lab.module, lab.class_name, lab.files,
                         Limits(timeout_s=lab.timeout_s, budget_s=state.budget_s), jail=jail)
    try:
        context = SubmissionContext(entry["id"], entry.get("digest", ""), runner,
                                    untouched=_untouched(workdir, lab),
                                    notebook=str(entry.get("notebook") or ""),
                                    cells=cells_from_data(entry.get("cells")))
        context.problem = load_problem(context, lab.main_file)
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


@pytest.fixture(scope="session")
def reference_class(request: pytest.FixtureRequest) -> Any:
    """The reference solution's class, imported in this trusted process."""
    return load_reference_class(_grading_state(request.config).lab)


@pytest.fixture
def reference(reference_class: Any) -> Callable[..., Any]:
    """`reference(scenario, **params)`: the same scenario run on the reference solution."""

    def run_on_reference(scen: Scenario, **params: Any) -> Any:
        return run_reference(reference_class, scen, params)

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
    return item.callspec.params["submission"]["id"]  # type: ignore[attr-defined, no-any-return]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (as not-run) a check whose prerequisites did not pass for this submission."""
    spec = item.stash.get(SPEC_KEY, None)
    if spec is None or not spec.requires:
        return
    state = _grading_state(item.config)
    submission_id = _submission_id(item)
    missing = [r for r in spec.requires if state.statuses.get((submission_id, r)) != "passed"]
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
            if statuses.get((submission_id, check), "passed") not in ("passed", DECLINED)]


def _classify(item: pytest.Item, call: pytest.CallInfo[None],
              report: pytest.TestReport) -> tuple[str, dict[str, Any] | None, str, str | None]:
    """(status, detail, captured output, pitfall named by the failure) for a finished setup or
    call phase; the pitfall is None when it is the check's own."""
    not_run = item.stash.get(NOT_STATE_KEY, None)
    if report.skipped and not_run is not None:
        return "not-run", not_run, "", None
    excinfo = call.excinfo
    if excinfo is None:
        return "passed", None, "", None
    if isinstance(excinfo.value, CheckFailed):
        return ("failed", excinfo.value.detail, _check_output(item) or excinfo.value.output,
                excinfo.value.pitfall)
    if isinstance(excinfo.value, NotRun):
        return "not-run", excinfo.value.detail, "", None
    where = {"kind": "reference-check-raised", "params": {
        "type": excinfo.type.__name__, "check": item.stash[SPEC_KEY].id, "stage": report.when}}
    return "error", {"kind": "grader-error", "params": {"reference": where}}, "", None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[None]:
    """Record the check's status and attach it to the test for the JSON report."""
    report: pytest.TestReport = yield  # type: ignore[misc, assignment]
    spec = item.stash.get(SPEC_KEY, None)
    if spec is None or (report.when == "setup" and report.passed) or report.when == "teardown":
        return report  # type: ignore[return-value]
    status, detail, output, named = _classify(item, call, report)
    submission_id = _submission_id(item)
    if status == "failed" and (detail or {}).get("kind") != NOT_WRITTEN:  # a TODO is said
        deferred = _deferred_to(item, spec, submission_id)
        if deferred:
            status, named = "not-run", None
            detail = {"kind": "prerequisite", "params": {"checks": deferred}}
    context = item.funcargs.get("submission") if hasattr(item, "funcargs") else None
    flags = list(context.flags) if isinstance(context, SubmissionContext) else []
    isolation = context.runner.isolation.as_dict() if isinstance(context, SubmissionContext) else None
    declined = status == "not-run" and call.excinfo is not None and isinstance(call.excinfo.value, NotRun)
    _grading_state(item.config).statuses[(submission_id, spec.id)] = DECLINED if declined else status
    item.user_properties.append(("grader", {
        "submission": submission_id, "check": spec.id, "pitfall": named or spec.pitfall,
        "weight": _grading_state(item.config).weights.get(spec.id, spec.weight),
        "visibility": spec.visibility, "status": status,
        "detail": detail, "output": output or None, "flags": flags, "isolation": isolation,
        "problem": context.problem if isinstance(context, SubmissionContext) else None,
    }))
    return report  # type: ignore[return-value]



class SubmissionStream:
    """Writes one JSON line per submission as soon as its last check has finished.

    A line has the shape of pytest-json-report's `tests` (node id, phase durations, user
    properties), so the batch builds that submission's document from it at once, as it would
    from the whole report, instead of waiting for the rest of the shard.
    """

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self.submission_of: dict[str, str] = {}  # node id -> submission id
        self.last_of: dict[str, str] = {}  # submission id -> node id of its last check
        self.count_of: dict[str, int] = {}  # submission id -> number of its checks
        self.tests: dict[str, list[dict[str, Any]]] = {}  # submission id -> finished tests

    def plan(self, items: list[pytest.Item]) -> None:
        """Note which item closes each submission (items are already in run order)."""
        for item in items:
            self.submission_of[item.nodeid] = _submission_id(item)
            self.last_of[_submission_id(item)] = item.nodeid
            self.count_of[_submission_id(item)] = self.count_of.get(_submission_id(item), 0) + 1

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep each phase's duration and, at teardown, the test's grader property."""
        submission_id = self.submission_of.get(report.nodeid)
        if submission_id is None:
            return
        tests = self.tests.setdefault(submission_id, [])
        if not tests or tests[-1]["nodeid"] != report.nodeid:
            tests.append({"nodeid": report.nodeid})
        tests[-1][report.when] = {"duration": report.duration}
        if report.when == "teardown":
            tests[-1]["user_properties"] = [{key: value} for key, value in report.user_properties]

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """After a submission's last check, write its line: whole, in one write, or not at all."""
        submission_id = self.submission_of.get(nodeid)
        if submission_id is None or self.last_of.get(submission_id) != nodeid:
            return
        tests = self.tests.pop(submission_id, [])
        line = json.dumps({"submission": submission_id, "checks": self.count_of[submission_id],
                           "tests": tests}) + "\n"
        os.write(self.fd, line.encode("utf-8"))
