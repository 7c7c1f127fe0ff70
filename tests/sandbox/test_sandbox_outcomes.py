"""Tests for grader.grading.sandbox.Sandbox: every way a submission can end maps to one honest outcome."""

from __future__ import annotations

import dataclasses
import math
import os
import select
import selectors
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from grader.grading.child.graph import number
from grader.grading.child.scenario import scenario
from grader.grading.sandbox import Limits, Outcome, Sandbox, reaper
from grader.grading.sandbox import sandbox as sandbox_module

MIB = 1 << 20

# A submission whose every behaviour is reached through a method of its Value class. Each
# import appends a line to imports.log, so a test can count how many zygotes imported it.
STUDENT = '''\
class FloatSubclass(float):
    pass


class NumpyLike:
    def __float__(self):
        return 1.5


class Value:
    PLAIN = 2.5
    FLOAT_SUBCLASS = FloatSubclass(1.5)
    BOOL = True
    NUMPY_LIKE = NumpyLike()
    NAN = float("nan")

    def __init__(self, data):
        self.data = data

    def boom(self):
        raise ValueError("student says no")

    def shout(self, size):
        print("x" * size, flush=True)
        return size

    def mumble(self, size):
        print("y" * size)
        return size

    def spin(self):
        while True:
            pass


with open("imports.log", "a") as log:
    log.write("imported\\n")
'''


# --- scenarios: shipped as source to the child; they may use only kit names ----------------


@scenario
def add_data(Value, x, y):
    return {"sum": Value(x).data + Value(y).data}


@scenario
def call_boom(Value):
    Value(1.0).boom()
    return {}


@scenario
def call_exit(Value):
    import sys

    sys.exit(0)


@scenario
def hard_exit(Value):
    import os

    os._exit(3)


@scenario
def kill_self(Value):
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


@scenario
def spin(Value):
    Value(1.0).spin()


@scenario
def cpu_limit_signal(Value):
    import os
    import signal

    # what the kernel sends at the soft RLIMIT_CPU (the sandbox sets it; a submission may not):
    # on a busy machine it can come before the stretched wall-clock deadline
    os.kill(os.getpid(), signal.SIGXCPU)


@scenario
def shout(Value, size):
    return {"size": Value(1.0).shout(size)}


@scenario
def mumble(Value, size):
    return {"size": Value(1.0).mumble(size)}


@scenario
def read_number(Value, name):
    return {"value": number(getattr(Value, name), name)}


@scenario
def raw_attribute(Value, name):
    return {"value": getattr(Value, name)}


@scenario
def spawn_daemon(Value):
    import os
    import time

    read_end, write_end = os.pipe()
    first = os.fork()
    if first == 0:
        os.setsid()
        second = os.fork()
        if second == 0:
            time.sleep(30)
            os._exit(0)
        os.write(write_end, str(second).encode())
        os._exit(0)
    os.waitpid(first, 0)
    return {"daemon": int(os.read(read_end, 32))}


@scenario
def allocate(Value, size):
    block = bytearray(size)
    return {"size": len(block)}


@scenario
def write_file(Value, size):
    with open("big.bin", "wb") as handle:
        handle.write(b"\0" * size)
    return {"size": size}


# --- helpers ---------------------------------------------------------------------------------


def make_sandbox(tmp_path: Path, source: str = STUDENT, folder: str = "submission",
                 **limits: Any) -> Sandbox:
    """A sandbox over a value.py holding source, in tmp_path / folder."""
    workdir = tmp_path / folder
    workdir.mkdir()
    (workdir / "value.py").write_text(source, encoding="utf-8")
    return Sandbox(workdir, "value", "Value", ("value.py",), Limits(**limits))


def imports(sandbox: Sandbox) -> int:
    """How many times the submission's module has been imported (one per zygote)."""
    log = sandbox.workdir / "imports.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def line_of(source: str, fragment: str) -> int:
    """The 1-based line number of the first line of source containing fragment."""
    return next(n for n, line in enumerate(source.splitlines(), 1) if fragment in line)


def shown(outcome: Outcome) -> str:
    """An outcome in one line, for assertion messages."""
    return f"status={outcome.status!r} value={outcome.value!r} detail={outcome.detail!r}"


def alive(pid: int) -> bool:
    """True if pid is a live, non-zombie process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


# --- results and exceptions ------------------------------------------------------------------


def test_plain_result_comes_back_as_ok(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(add_data, {"x": 1.5, "y": 2.25})
    assert outcome.ok, shown(outcome)
    assert outcome.value == {"sum": 3.75}, shown(outcome)


def test_student_exception_names_type_message_and_student_line(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(call_boom, {})
    line = line_of(STUDENT, 'raise ValueError("student says no")')
    assert outcome.status == "exception", shown(outcome)
    assert outcome.detail["type"] == "ValueError", shown(outcome)
    assert outcome.detail["message"] == "student says no", shown(outcome)
    assert {"file": "value.py", "line": line, "function": "boom"} in outcome.detail["where"], \
        shown(outcome)
    assert all(frame["file"] == "value.py" for frame in outcome.detail["where"]), \
        "scenario frames must not be shown"


def test_sys_exit_in_a_scenario_is_an_exception(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(call_exit, {})
    assert outcome.status == "exception", shown(outcome)
    assert outcome.detail["type"] == "SystemExit", shown(outcome)


def test_os_exit_is_a_crash_with_the_exit_code(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(hard_exit, {})
        after = sandbox.run(add_data, {"x": 1.0, "y": 2.0})
    assert outcome.status == "crash", shown(outcome)
    assert outcome.detail == {"how": {"kind": "how-exit-code", "params": {"code": "3"}}}, \
        shown(outcome)
    assert after.ok, f"the next scenario must run normally: {shown(after)}"


def test_sigkill_is_a_crash_naming_the_signal(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(kill_self, {})
    assert outcome.status == "crash", shown(outcome)
    assert outcome.detail["how"] == {"kind": "how-killed", "params": {"signal": "SIGKILL"}}, \
        shown(outcome)


def test_a_child_ended_by_its_cpu_limit_timed_out_and_the_next_scenario_runs(
        tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(cpu_limit_signal, {}, timeout_s=4.0)
        after = sandbox.run(add_data, {"x": 1.0, "y": 2.0})
    assert outcome.status == "timeout", shown(outcome)
    assert outcome.detail == {"seconds": 4.0}, shown(outcome)
    assert after.ok, f"the next scenario must run normally: {shown(after)}"


# --- import errors ---------------------------------------------------------------------------


def test_syntax_error_is_an_import_error_for_every_run(tmp_path: Path) -> None:
    source = "class Value:\n    def broken(self)\n        pass\n"
    with make_sandbox(tmp_path, source) as sandbox:
        outcomes = [sandbox.run(add_data, {"x": 1.0, "y": 2.0}) for _ in range(3)]
    for outcome in outcomes:
        assert outcome.status == "import-error", shown(outcome)
        assert outcome.detail["type"] == "SyntaxError", shown(outcome)
        # where says the line; the message is Python's alone, without "(value.py, line 2)"
        assert outcome.detail["where"] == [{"file": "value.py", "line": 2}], shown(outcome)
        assert "value.py" not in outcome.detail["message"], shown(outcome)


def test_exception_at_import_is_reported_for_every_run_without_reimporting(
    tmp_path: Path,
) -> None:
    source = (
        'with open("imports.log", "a") as log:\n'
        '    log.write("imported\\n")\n'
        'raise RuntimeError("not ready yet")\n'
    )
    with make_sandbox(tmp_path, source) as sandbox:
        outcomes = [sandbox.run(add_data, {"x": 1.0, "y": 2.0}) for _ in range(3)]
        count = imports(sandbox)
    for outcome in outcomes:
        assert outcome.status == "import-error", shown(outcome)
        assert outcome.detail["type"] == "RuntimeError", shown(outcome)
        assert outcome.detail["message"] == "not ready yet", shown(outcome)
        assert {"file": "value.py", "line": 3, "function": "<module>"} in outcome.detail["where"], \
            shown(outcome)
    assert count == 1, f"the module was imported {count} times; expected once"


# --- timeouts --------------------------------------------------------------------------------


def test_infinite_loop_times_out_and_next_scenario_runs_in_a_fresh_zygote(
    tmp_path: Path,
) -> None:
    with make_sandbox(tmp_path, timeout_s=0.5) as sandbox:
        outcome = sandbox.run(spin, {})
        after = sandbox.run(add_data, {"x": 1.0, "y": 2.0}, timeout_s=10.0)
        count = imports(sandbox)
    assert outcome.status == "timeout", shown(outcome)
    assert outcome.detail == {"seconds": 0.5}, shown(outcome)
    assert after.ok and after.value == {"sum": 3.0}, shown(after)
    # Each scenario child imports the module afresh, and each zygote first probes the import:
    # probe, spin (killed), then a new zygote's probe, then add_data.
    assert count == 4, f"expected a second zygote to probe the import; imports={count}"


# A submission whose stdout blocks for ever when flushed: the child has replied by then.
TARPIT = STUDENT + '''

import sys
import threading


class _Tarpit:
    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        return self.stream.write(text)

    def flush(self):
        threading.Event().wait()


sys.stdout = _Tarpit(sys.stdout)
sys.stderr = _Tarpit(sys.stderr)
'''


def test_a_stdout_that_blocks_when_flushed_costs_no_zygote(tmp_path: Path) -> None:
    with make_sandbox(tmp_path, TARPIT) as sandbox:
        outcomes = [sandbox.run(mumble, {"size": 3}) for _ in range(4)]
        count = imports(sandbox)
    for outcome in outcomes:
        assert outcome.ok and outcome.value == {"size": 3}, shown(outcome)
        assert outcome.output == "yyy\n", shown(outcome)  # printed without a flush
    # one zygote: its probe, then one child per scenario (a restart would probe again)
    assert count == 1 + len(outcomes), f"imports={count}: the zygote was restarted"


def test_a_submission_over_its_budget_is_stopped_and_refused_at_once(tmp_path: Path) -> None:
    with make_sandbox(tmp_path, timeout_s=0.5, budget_s=1.5) as sandbox:
        spins = [sandbox.run(spin, {}) for _ in range(5)]  # the budget allows three at most
        before = imports(sandbox)
        later = sandbox.run(add_data, {"x": 1.0, "y": 2.0})
        after = imports(sandbox)
    statuses = [outcome.status for outcome in spins]
    stopped = statuses.index("over-budget") if "over-budget" in statuses else len(statuses)
    assert statuses == ["timeout"] * stopped + ["over-budget"] * (5 - stopped) and stopped <= 3, \
        statuses
    for outcome in (*spins[stopped:], later):
        assert outcome.status == "over-budget" and outcome.detail == {"seconds": 1.5}, \
            shown(outcome)
    assert after == before, "a scenario ran after the budget was spent"


def test_a_budget_spent_at_import_stops_the_submission(tmp_path: Path) -> None:
    source = "while True:\n    pass\n"
    with make_sandbox(tmp_path, source, import_timeout_s=5.0, budget_s=0.5) as sandbox:
        problem = sandbox.load_problem()
        later = sandbox.run(add_data, {"x": 1.0, "y": 2.0})
    assert problem is not None and problem.status == "over-budget", problem
    assert later.status == "over-budget", shown(later)


def test_infinite_loop_at_import_is_a_timeout_for_every_run(tmp_path: Path) -> None:
    source = "while True:\n    pass\n"
    with make_sandbox(tmp_path, source, import_timeout_s=0.5) as sandbox:
        outcomes = [sandbox.run(add_data, {"x": 1.0, "y": 2.0}) for _ in range(2)]
    for outcome in outcomes:
        assert outcome.status == "timeout", shown(outcome)
        assert outcome.detail == {"seconds": 0.5}, shown(outcome)


# --- output ----------------------------------------------------------------------------------


def test_student_output_is_captured_and_capped_with_a_note(tmp_path: Path) -> None:
    with make_sandbox(tmp_path, output_bytes=100) as sandbox:
        outcome = sandbox.run(shout, {"size": 1000})
    assert outcome.ok, shown(outcome)
    assert outcome.output.startswith("x" * 100 + "\n[..."), repr(outcome.output[:140])
    # 1000 x's and a newline were printed; 100 bytes are shown.
    assert outcome.output.endswith("[... 901 more bytes not shown]"), repr(outcome.output[-60:])


def test_short_output_is_kept_whole_and_reset_between_scenarios(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        first = sandbox.run(shout, {"size": 5})
        second = sandbox.run(add_data, {"x": 1.0, "y": 2.0})
    assert first.output == "xxxxx\n", repr(first.output)
    assert second.output == "", f"output leaked into the next scenario: {second.output!r}"


class ResultFirstSelector(selectors.DefaultSelector):
    """A selector that, when the result pipe is ready, reports it alone (as a busy one may)."""

    def select(self, timeout: float | None = None) -> list[Any]:
        events = super().select(timeout)
        return [event for event in events if event[0].data == "result"] or events


def test_buffered_output_belongs_to_its_own_scenario_even_when_the_parent_is_slow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A busy grader reads the result pipe late, after the child has flushed its buffered
    # output, exited, and the zygote has written "exited": both frames arrive in one read.
    original_read = Sandbox._read

    def read_late(self: Sandbox, zygote: Any, which: str) -> Any:
        if which != "result":
            return original_read(self, zygote, which)
        data = b""
        ready = select.poll()  # not select.select: a worker's descriptors may pass FD_SETSIZE
        ready.register(zygote.result_fd, select.POLLIN)
        while b'"exited"' not in data and b'"ready"' not in data:
            ready.poll(5000)
            try:
                chunk = os.read(zygote.result_fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                break
            data += chunk
        zygote.frames.feed(data)
        return bool(data)

    monkeypatch.setattr(selectors, "DefaultSelector", ResultFirstSelector)
    monkeypatch.setattr(Sandbox, "_read", read_late)
    with make_sandbox(tmp_path) as sandbox:
        first = sandbox.run(mumble, {"size": 5})
        second = sandbox.run(add_data, {"x": 1.0, "y": 2.0})
    assert (first.output, second.output) == ("yyyyy\n", ""), (
        f"got first={first.output!r} second={second.output!r}; "
        "expected the output with the scenario that printed it")


def test_huge_print_neither_blocks_nor_crashes(tmp_path: Path) -> None:
    size = 10 * MIB
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(shout, {"size": size}, timeout_s=10.0)
        after = sandbox.run(add_data, {"x": 1.0, "y": 2.0})
    assert outcome.ok and outcome.value == {"size": size}, shown(outcome)
    cap = sandbox.limits.output_bytes
    assert outcome.output.startswith("x" * cap + "\n[..."), f"not capped at {cap} bytes"
    note = f"[... {size + 1 - cap} more bytes not shown]"  # the x's and a newline
    assert outcome.output.endswith(note), f"got {outcome.output[-60:]!r}, expected {note!r}"
    assert after.ok and after.output == "", shown(after)


# --- results that are not plain finite numbers -----------------------------------------------


def test_nan_result_is_a_bad_result(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(read_number, {"name": "NAN"})
    assert outcome.status == "bad-result", shown(outcome)
    assert "not finite" in outcome.detail["reason"], shown(outcome)


def test_nan_result_is_accepted_when_nonfinite_is_allowed(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(read_number, {"name": "NAN"}, allow_nonfinite=True)
    assert outcome.ok, shown(outcome)
    assert math.isnan(outcome.value["value"]), shown(outcome)


@pytest.mark.parametrize(("name", "type_name"), [
    ("FLOAT_SUBCLASS", "FloatSubclass"),
    ("BOOL", "bool"),
    ("NUMPY_LIKE", "NumpyLike"),
])
def test_number_refuses_anything_but_exact_int_or_float(
    tmp_path: Path, name: str, type_name: str
) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(read_number, {"name": name})
    assert outcome.status == "wrong-type", shown(outcome)
    expected = {"quantity": name, "actual_type": type_name, "expected_type": "float"}
    assert outcome.detail == expected, shown(outcome)


def test_number_accepts_a_plain_float(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(read_number, {"name": "PLAIN"})
    assert outcome.ok and outcome.value == {"value": 2.5}, shown(outcome)


def test_unserializable_result_is_a_bad_result(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(raw_attribute, {"name": "NUMPY_LIKE"})
    assert outcome.status == "bad-result", shown(outcome)
    assert "NumpyLike" in outcome.detail["reason"], shown(outcome)


# --- nothing outlives the sandbox ------------------------------------------------------------


def test_close_leaves_no_child_process(tmp_path: Path) -> None:
    before = set(reaper.child_pids())
    sandbox = make_sandbox(tmp_path)
    outcome = sandbox.run(add_data, {"x": 1.0, "y": 2.0})
    running = set(reaper.child_pids()) - before
    sandbox.close()
    left = set(reaper.child_pids()) - before
    assert outcome.ok, shown(outcome)
    assert running, "expected a zygote while the sandbox is open"
    assert left == set(), f"children left after close(): {sorted(left)}"


def test_double_forked_daemon_is_refused_and_nothing_outlives_the_sandbox(tmp_path: Path) -> None:
    assert reaper.enable_subreaper(), "this test needs Linux's child subreaper"
    before = set(reaper.child_pids())
    with make_sandbox(tmp_path) as sandbox:
        outcome = sandbox.run(spawn_daemon, {})
    assert outcome.status == "exception", shown(outcome)
    assert "os.fork" in outcome.detail["message"], shown(outcome)
    left = set(reaper.child_pids()) - before
    assert left == set(), f"processes left after close(): {sorted(left)}"


def test_closing_one_sandbox_leaves_another_sandbox_working(tmp_path: Path) -> None:
    # The orphan sweep kills children of this process: it must spare other sandboxes' zygotes.
    first = make_sandbox(tmp_path, folder="first")
    second = make_sandbox(tmp_path, folder="second")
    try:
        assert first.run(add_data, {"x": 1.0, "y": 2.0}).ok
        assert second.run(add_data, {"x": 1.0, "y": 2.0}).ok
        second.close()
        outcome = first.run(add_data, {"x": 1.0, "y": 2.0})
        assert outcome.ok, f"closing another sandbox broke this one: {shown(outcome)}"
    finally:
        first.close()
        second.close()


# --- resource limits -------------------------------------------------------------------------


def test_memory_bomb_is_an_exception_or_crash(tmp_path: Path) -> None:
    with make_sandbox(tmp_path, memory_bytes=256 * MIB) as sandbox:
        outcome = sandbox.run(allocate, {"size": 4 << 30})
    assert outcome.status in ("exception", "crash"), shown(outcome)
    if outcome.status == "exception":
        assert outcome.detail["type"] == "MemoryError", shown(outcome)


def test_writing_past_the_file_size_limit_fails(tmp_path: Path) -> None:
    with make_sandbox(tmp_path, file_bytes=MIB) as sandbox:
        outcome = sandbox.run(write_file, {"size": 5 * MIB})
        written = (sandbox.workdir / "big.bin").stat().st_size
    assert outcome.status in ("exception", "crash"), shown(outcome)
    assert written <= MIB, f"{written} bytes were written past the {MIB}-byte limit"


def test_scenario_runs_in_the_submission_folder(tmp_path: Path) -> None:
    with make_sandbox(tmp_path) as sandbox:
        sandbox.run(write_file, {"size": 10})
        assert (sandbox.workdir / "big.bin").is_file(), os.listdir(sandbox.workdir)


# --- a timeout belongs to the check that timed out ------------------------------------------


# An import that takes 50 ms whatever the machine: a zygote forked warm imports STUDENT in a
# few milliseconds, within the probe's first 0.001 s once its deadline moves on by the time it
# waited for a CPU (run_queue), so the import itself must take longer than that.
SLOW_IMPORT = STUDENT + "\nimport time\n\ntime.sleep(0.05)\n"


def _run_after_a_timeout_under_load(tmp_path: Path, folder: str) -> tuple[Outcome, Outcome]:
    """spin (a timeout), then add_data, beside one CPU hog per core, on a sandbox whose restart
    probe first gets far less time than an import takes: as a loaded machine gives it."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(os.cpu_count() or 2)]
    try:
        with make_sandbox(tmp_path, SLOW_IMPORT, folder=folder, timeout_s=0.5) as sandbox:
            first = sandbox.run(add_data, {"x": 1.0, "y": 2.0}, timeout_s=30.0)
            assert first.ok, shown(first)
            sandbox.limits = dataclasses.replace(sandbox.limits, import_timeout_s=0.001)
            looped = sandbox.run(spin, {})
            after = sandbox.run(add_data, {"x": 1.0, "y": 2.0}, timeout_s=30.0)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return looped, after


def test_after_a_timeout_the_next_scenario_gets_a_verified_child_even_under_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module, "RESTART_PATIENCE", 30_000.0)  # 0.001 s, 30 s, ...
    looped, after = _run_after_a_timeout_under_load(tmp_path, "patient")
    assert looped.status == "timeout", shown(looped)
    assert after.ok and after.value == {"sum": 3.0}, shown(after)


def test_without_a_second_try_the_next_scenario_would_take_the_blame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the same run with one try: what the retry above prevents
    monkeypatch.setattr(sandbox_module, "RESTART_ATTEMPTS", 1)
    looped, after = _run_after_a_timeout_under_load(tmp_path, "impatient")
    assert looped.status == "timeout", shown(looped)
    assert not after.ok, shown(after)
