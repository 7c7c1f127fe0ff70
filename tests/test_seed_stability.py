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

from grader.grading.checking.reference import load_reference_class, run_reference
from grader.grading.checking.verdict import CheckFailed
from grader.grading.sandbox.loader import load_exports
from grader.labs import LABS, Lab

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEEDS = 20
RUN_SECONDS = 10  # one check on one fixture; a walk without a visited set may be slow, not this


class TooSlow(Exception):
    """The alarm rang: the fixture's engine took too long on the check's graphs."""


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


def verdict(check: Callable[..., None], engine: Any, reference_engine: Any, seed: str) -> str:
    """'passed', or 'failed:<pitfall or kind>' for one run of the check."""
    takes_blame = "blame_deferred" in inspect.signature(check).parameters
    def on_engine(target: Any) -> Callable[..., Any]:
        return lambda scen, **params: run_reference(target, scen, params)

    def ring(signum: int, frame: Any) -> None:
        raise TooSlow

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(RUN_SECONDS)
    try:
        check(sandboxed=on_engine(engine), reference=on_engine(reference_engine),
              rng=random.Random(seed), **({"blame_deferred": False} if takes_blame else {}))
    except CheckFailed as exc:
        return f"failed:{exc.pitfall or exc.detail['kind']}"
    except (TooSlow, Exception) as exc:  # the engine's own error: the sandbox would fail it
        return f"failed:{type(exc).__name__}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
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
        engine = engine_of(lab, fixture, tmp_path)
        verdicts = {verdict(check, engine, reference_engine, f"seed-{k}:{fixture.name}")
                    for k in range(SEEDS)}
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
