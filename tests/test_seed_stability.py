"""The same bug, the same verdict, whatever the seed: every fixture under 20 seeds.

The random-graph checks are the only checks whose graphs come from the seed (the course seed,
the submission and its content, through the `rng` fixture). This test calls each lab's
random-graph check itself, as its suite defines it, with 20 differently seeded `rng`s, on every
fixture of the lab, and fails if a fixture's score moves with the seed (and, where
the random-graph check is the one that names the bug, the pitfall it names); a correct engine must pass under every seed. To keep it affordable the
fixtures (the project's own code) run in this process, each run bounded by an alarm, instead
of a sandbox per submission; the checks they defer to are not run, so a known bug must fail
the random-graph check itself under every seed, or pass it under every seed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import random
import shutil
import signal
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from graded_classes import FEEDBACK_ROW, snapshot_rows

from grader.common.labs import LABS, Lab
from grader.grading.checking.marker import CheckSpec, spec_from_marker, with_random_deferrals
from grader.grading.checking.reference import load_reference_class, run_reference
from grader.grading.checking.verdict import CheckFailed, NotRun
from grader.grading.sandbox.loader import load_exports

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEEDS = 20
# CPU seconds of this process for one check on one fixture (the slowest fixture that ends takes
# under 0.03 s; CPU time, so that a loaded machine does not ring the alarm early)
RUN_SECONDS = 1.0
# Once a check has rung on a fixture (an engine that never ends does so under every seed), its
# other seeds get this long: 20 seeds stay affordable, and a verdict that moves still shows.
RANG_BEFORE_SECONDS = 0.25


class TooSlow(BaseException):
    """The alarm rang: the fixture's engine took too long on the check's graphs (a
    BaseException, so that an engine's `except Exception` does not swallow it)."""


def _ring(signum: int, frame: Any) -> None:
    raise TooSlow


@contextlib.contextmanager
def alarm(seconds: float) -> Iterator[None]:
    """TooSlow in this (the main) thread once it has spent `seconds` of CPU inside the block."""
    previous = signal.signal(signal.SIGVTALRM, _ring)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def random_check(lab: Lab) -> Callable[..., None]:
    """The lab's random-graph check: the hidden suite's test function named test_random_*."""
    [path] = sorted(lab.hidden_tests.glob("test_*hidden.py"))
    spec = importlib.util.spec_from_file_location(f"seed_stability_{lab.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    [name] = [name for name in vars(module) if name.startswith("test_random_")]
    return getattr(module, name)  # type: ignore[no-any-return]


def engine_of(lab: Lab, fixture: Path, scratch: Path) -> Any:
    """The fixture's class (or module), loaded with the lab's support files beside it."""
    folder = scratch / fixture.name
    shutil.copytree(fixture, folder)
    for name in lab.support_files:
        shutil.copy(lab.student_dir / name, folder / name)
    return load_exports(folder, lab.module, lab.class_name, lab.support_files)


def verdict(check: Callable[..., None], engine: Any, reference_engine: Any, seed: str,
            seconds: float = RUN_SECONDS) -> str:
    """'passed', or 'failed:<pitfall or kind>' for one run of the check."""
    takes_blame = "blame_deferred" in inspect.signature(check).parameters
    takes_statuses = "statuses" in inspect.signature(check).parameters
    def on_engine(target: Any) -> Callable[..., Any]:
        return lambda scen, **params: run_reference(target, scen, params)

    try:
        with alarm(seconds):
            check(sandboxed=on_engine(engine), reference=on_engine(reference_engine),
                  rng=random.Random(seed), **({"blame_deferred": False} if takes_blame else {}),
                  **({"statuses": {}} if takes_statuses else {}))
    except CheckFailed as exc:
        return f"failed:{exc.pitfall or exc.detail['kind']}"
    except (TooSlow, Exception) as exc:  # the engine's own error: the sandbox would fail it
        return f"failed:{type(exc).__name__}"
    return "passed"


def fixtures_of(lab: Lab) -> Iterator[Path]:
    yield from sorted(path.parent for path in (FIXTURES / lab.name).glob("*/expected.toml"))


@pytest.mark.parametrize("name", sorted(LABS))
def test_random_graph_verdicts_do_not_depend_on_the_seed(name: str, tmp_path: Path) -> None:
    lab = LABS[name]
    check = random_check(lab)
    reference_engine = load_reference_class(lab)
    moved, correct_failed = {}, {}
    for fixture in fixtures_of(lab):
        verdicts, seconds = set(), RUN_SECONDS
        for k in range(SEEDS):
            # loaded afresh for each seed, as each scenario runs in a fresh child when graded:
            # state an engine keeps in its class (an id()-keyed cache) does not carry over
            engine = engine_of(lab, fixture, tmp_path / f"seed-{k}")
            verdicts.add(verdict(check, engine, reference_engine, f"seed-{k}:{fixture.name}",
                                 seconds))
            if "failed:TooSlow" in verdicts:
                seconds = RANG_BEFORE_SECONDS
        expected = tomllib.loads((fixture / "expected.toml").read_text(encoding="utf-8"))
        named_here = any(check_id.startswith("random-") for check_id in expected["failed"])
        # The score never moves. The pitfall named must not move either where this check is
        # the one that names the bug; elsewhere it defers to a fixed check, which names it.
        outcomes = verdicts if named_here else {v.split(":")[0] for v in verdicts}
        if len(outcomes) > 1:
            moved[fixture.name] = sorted(verdicts)
        if fixture.name.startswith("correct-") and verdicts != {"passed"}:
            correct_failed[fixture.name] = sorted(verdicts)
    assert moved == {}, f"{name}: verdicts that depend on the seed: {moved}"
    assert correct_failed == {}, f"{name}: correct engines failing: {correct_failed}"



# -- crash fixtures: the whole hidden suite, in this process, under 20 seeds --------------------
# An engine that raises on part of an operation's domain is the case a random draw could decide:
# each of these fixtures goes through every hidden check of its lab (prerequisites and deferrals
# applied as the plugin applies them), and must get one score and one set of pitfalls.
# Besides the two named here, every fixture of labs 01 and 02 whose snapshot
# (tests/data/verdicts) records a check failed on an exception is one. Lab 03's crashes are
# recursions on a chain of fixed length and lab 04's a timeout: no draw decides them.
NAMED_CRASH_FIXTURES = {"lab01_graph": ("no-op-attribute", "eq-without-hash"), "lab02_ops": ()}


def crash_fixtures() -> dict[str, tuple[str, ...]]:
    """Lab -> its crash fixtures: the named ones and those the snapshot shows raising."""
    found = {}
    for lab, named in NAMED_CRASH_FIXTURES.items():
        raising = {fixture for fixture, check, status, _pitfall, kind in snapshot_rows(lab)
                   if not fixture.startswith("(") and check != FEEDBACK_ROW
                   and status == "failed" and kind == "exception"}
        found[lab] = tuple(sorted(raising | set(named)))
    return found


CRASH_FIXTURES = crash_fixtures()


def hidden_checks(lab: Lab) -> list[tuple[CheckSpec, Callable[..., None], dict[str, Any]]]:
    """(check spec, test function, its parameters) for every hidden check, in suite order, each
    random check's `defers_to` completed by the plugin's rule."""
    [path] = sorted(lab.hidden_tests.glob("test_*hidden.py"))
    spec = importlib.util.spec_from_file_location(f"seed_suite_{lab.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = []
    for name, function in vars(module).items():
        if not name.startswith("test_"):
            continue
        for mark in getattr(function, "pytestmark", []):
            if mark.name == "check":
                found.append((mark.kwargs, function, {}))
            elif mark.name == "parametrize":
                names = [n.strip() for n in (mark.args[0] if isinstance(mark.args[0], (list, tuple))
                                             else mark.args[0].split(","))]
                for case in mark.args[1]:
                    [check] = [m for m in case.marks if m.name == "check"]
                    found.append((check.kwargs, function, dict(zip(names, case.values, strict=True))))
    specs = with_random_deferrals(spec_from_marker(function.__name__, (), dict(kwargs), "hidden")
                                  for kwargs, function, _ in found)
    return [(spec, function, params) for spec, (_, function, params) in zip(specs, found, strict=True)]


def as_sandboxed(engine: Any) -> Callable[..., Any]:
    """The engine's scenarios as the sandbox reports them: an exception fails the check."""
    def run(scen: Any, *, patience: float = 1.0, **params: Any) -> Any:
        try:
            return run_reference(engine, scen, params)
        except TooSlow:
            raise
        except Exception as exc:
            raise CheckFailed("exception", type=type(exc).__name__, message=str(exc)[:200]) from None
    return run


def suite_verdict(lab: Lab, engine: Any, reference_engine: Any, seed: str,
                  rang: set[str]) -> tuple[float, tuple[str, ...]]:
    """(score, pitfalls) of the hidden suite on one engine, as the plugin would decide them.
    `rang`: the checks whose alarm has rung on this engine before (it is added to)."""
    statuses: dict[str, str] = {}
    score, pitfalls = 0.0, set()
    for spec, function, params in hidden_checks(lab):
        check_id = spec.id
        if any(statuses.get(r) != "passed" for r in spec.requires):
            statuses[check_id] = "not-run"
            continue
        wanted = inspect.signature(function).parameters
        offered = {"sandboxed": as_sandboxed(engine),
                   "reference": lambda scen, **p: run_reference(reference_engine, scen, p),
                   "rng": random.Random(f"{seed}:{check_id}"), "blame_deferred": False,
                   "statuses": dict(statuses), **params}
        status, named = "passed", None
        try:
            with alarm(RANG_BEFORE_SECONDS if check_id in rang else RUN_SECONDS):
                function(**{key: value for key, value in offered.items() if key in wanted})
        except CheckFailed as exc:
            status, named = "failed", exc.pitfall
        except NotRun:
            status = "declined"
        except TooSlow:
            status = "failed"
            rang.add(check_id)
        except Exception:
            status = "failed"
        if status == "failed" and any(statuses.get(d, "passed") not in ("passed", "declined")
                                      for d in spec.defers_to):
            status = "not-run"
        statuses[check_id] = status
        if status == "passed":
            score += spec.weight
        elif status == "failed":
            pitfalls.add(named or spec.pitfall)
    return score, tuple(sorted(pitfalls))


@pytest.mark.parametrize("name", sorted(CRASH_FIXTURES))
def test_crash_fixtures_get_one_score_and_one_set_of_pitfalls(name: str, tmp_path: Path) -> None:
    lab = LABS[name]
    reference_engine = load_reference_class(lab)
    moved = {}
    for fixture in CRASH_FIXTURES[name]:
        engine = engine_of(lab, FIXTURES / name / fixture, tmp_path)
        rang: set[str] = set()
        verdicts = {suite_verdict(lab, engine, reference_engine, f"seed-{k}:{fixture}", rang)
                    for k in range(SEEDS)}
        if len(verdicts) > 1:
            moved[fixture] = sorted(verdicts)
        [(score, pitfalls)] = verdicts if len(verdicts) == 1 else [(0.0, ())]
        expected = tomllib.loads((FIXTURES / name / fixture / "expected.toml").read_text(
            encoding="utf-8"))
        if len(verdicts) == 1:
            assert pitfalls == (expected["pitfall"],), (fixture, pitfalls)
    assert moved == {}, f"{name}: crash fixtures whose verdict depends on the seed: {moved}"
