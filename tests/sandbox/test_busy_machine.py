"""A busy machine fails no one: a scenario's time limit counts the time its child ran or chose
to wait, not the time it waited for a CPU (grader/grading/sandbox/run_queue.py). Each test runs
its scenario beside a CPU hog of its own: four busy processes on the one core it runs on."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.common.labs import COURSE_ROOT, LABS
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.child.scenario import scenario
from grader.grading.sandbox import Limits, Sandbox, run_queue
from grader.grading.sandbox.jail import default_jail
from grader.grading.shard import GradingPlan, suites_for

pytestmark = pytest.mark.skipif(not run_queue.supported(), reason="no /proc/<pid>/schedstat here")

ENGINE = "class Value:\n    def __init__(self, data):\n        self.data = data\n"
HOGS_PER_CORE = 4
LIMIT_S = 1.0
# Machine-wide, not per run (each run has its own TMPDIR): two test runs at once would otherwise
# pin their hogs to the same core (the last one) and starve each other's scenarios past the stretch.
HOG_LOCK = Path("/tmp/minigrad-labs-cpu-hog.lock")


@contextlib.contextmanager
def cpu_hog() -> Iterator[int]:
    """One core made four times oversubscribed for the block's duration: this process (and
    what it starts: sandboxes, shards) and four busy processes are held to that core, a load
    of 8 on a 2-core machine if it were spread. The other cores stay free, so tests running
    beside this one (xdist's other worker) are not slowed. Each hog has a session of its own,
    as other users' jobs do: with the kernel's autogroups, hogs sharing one session would
    share one CPU share, and a sandbox child (a session of its own) would not wait for them."""
    with contextlib.ExitStack() as stack:
        try:  # read-only: a lock another user made is still one to wait on
            lock = os.open(HOG_LOCK, os.O_RDONLY | os.O_CREAT, 0o644)
        except OSError:  # /tmp refuses it (fs.protected_regular): run unserialised
            lock = None
        if lock is not None:
            stack.callback(os.close, lock)
            fcntl.flock(lock, fcntl.LOCK_EX)  # another run's hogs gone first
        yield stack.enter_context(_hogged_core())


@contextlib.contextmanager
def _hogged_core() -> Iterator[int]:
    allowed = os.sched_getaffinity(0)
    core = max(allowed)
    os.sched_setaffinity(0, {core})
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(HOGS_PER_CORE)]
    try:
        time.sleep(0.3)  # every hog running before the scenario starts
        yield core
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()
        os.sched_setaffinity(0, allowed)


@scenario
def spin_for(Value, cpu_s):
    import time

    end = time.process_time() + cpu_s
    while time.process_time() < end:
        pass
    return {"spun": cpu_s}


@scenario
def sleep_for(Value, seconds):
    import time

    time.sleep(seconds)
    return {"slept": seconds}


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    os.chmod(tmp_path, 0o755)
    (tmp_path / "value.py").write_text(ENGINE, encoding="utf-8")
    os.chmod(tmp_path / "value.py", 0o644)
    with cpu_hog():  # first: the sandbox's processes inherit the one core
        box = Sandbox(tmp_path, "value", "Value", ("value.py",), Limits(), jail=default_jail())
        try:
            box.run(spin_for, {"cpu_s": 0.01})  # the zygote started and proven first
            yield box
        finally:
            box.close()


def test_a_child_kept_waiting_by_the_machine_gets_its_time(sandbox: Sandbox) -> None:
    # 0.3 s of CPU under a 1 s limit: on a core 5x oversubscribed that takes about 1.5 s of
    # wall time, which a wall-clock limit would call a timeout. Short beside the limit, so the
    # stretch (at most MAX_STRETCH times the limit) still covers it when the rest of the machine
    # (the other xdist worker, another run) crowds the core further: a CI run at 0.6 s of CPU
    # timed out there.
    started = time.monotonic()
    outcome = sandbox.run(spin_for, {"cpu_s": 0.3}, timeout_s=LIMIT_S)
    took = time.monotonic() - started
    assert outcome.status == "ok", outcome
    assert took > LIMIT_S, (f"the hog did not slow the child ({took:.2f} s): this test shows "
                            "nothing on a machine it cannot load")


def test_a_child_that_sleeps_past_its_limit_still_times_out_on_time(sandbox: Sandbox) -> None:
    # sleeping is the child's own choice, not the machine's: no extra time for it
    started = time.monotonic()
    outcome = sandbox.run(sleep_for, {"seconds": 30}, timeout_s=LIMIT_S)
    took = time.monotonic() - started
    assert outcome.status == "timeout", outcome
    assert took < 4 * LIMIT_S, f"a sleeper got {took:.2f} s"


def test_a_child_that_spins_forever_is_stopped_at_its_stretch_limit(sandbox: Sandbox) -> None:
    from grader.grading.sandbox.sandbox import MAX_STRETCH

    started = time.monotonic()
    outcome = sandbox.run(spin_for, {"cpu_s": 3600}, timeout_s=LIMIT_S)
    took = time.monotonic() - started
    assert outcome.status == "timeout", outcome  # its RLIMIT_CPU may end it first: a timeout too
    assert took < MAX_STRETCH * LIMIT_S + 2, f"an endless loop took {took:.2f} s"


def test_the_run_queue_wait_of_a_starved_process_is_seen() -> None:
    with cpu_hog():
        parent = subprocess.Popen([sys.executable, "-c",
                                   "import subprocess, sys; subprocess.run([sys.executable, '-c', "
                                   "'import time\\nend = time.time() + 1.5\\nwhile time.time() < end: pass'])"])
        time.sleep(1.2)
        waited = run_queue.queue_wait_s(parent.pid)
        parent.wait()
    assert waited > 0.2, f"a process beside {HOGS_PER_CORE} hogs waited only {waited:.3f} s"


# The correct engines that lost lab03's 100,000-node `deep-chain-backward` on a CI machine at load
# 7 (a wall-clock limit then): beside the hog, with the hidden suite, they keep full marks.
SLOW_BUT_CORRECT = ("correct-eq-returns-value", "correct-micrograd-set-int-grad")


def test_correct_lab03_engines_keep_full_marks_on_a_busy_machine(tmp_path: Path) -> None:
    lab = LABS["lab03_backprop"]
    plan = GradingPlan(lab, suites_for(lab, hidden=True), "busy-machine", "en")
    engines = [COURSE_ROOT / "tests" / "fixtures" / lab.name / name for name in SLOW_BUT_CORRECT]
    with cpu_hog():
        docs = grade_class(plan, engines, BatchOptions(out_dir=tmp_path, workers=1),
                           lambda *_: None)
    scores = {doc["submission"]["id"]: (doc.get("score"), doc.get("max_score")) for doc in docs}
    assert len(scores) == 2 and all(score == most for score, most in scores.values()), scores
