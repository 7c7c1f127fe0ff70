"""The memory of a whole submission: one cgroup bounds all its processes where one is delegated;
elsewhere each process's RLIMIT_AS times RLIMIT_NPROC (in a jail) is the bound."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.grading.child.scenario import scenario
from grader.grading.sandbox import Limits, Sandbox, memory, sandbox
from grader.grading.sandbox.jail import default_jail

MIB = 1 << 20

# Starts `count` interpreters that each take `mib` MiB (each under the per-process limit) and
# wait; returns how each ended. Started through the one process-creating call that raises no
# audit event, as native code could.
HOARDERS = '''
import _posixsubprocess, os, time

class Value:
    def __init__(self, data):
        self.data = data

def hoard(count, mib):
    pids = []
    for _ in range(count):
        code = f"x = bytearray({mib} << 20); import time; time.sleep(3)".encode()
        args = [b"/usr/bin/python3", b"-I", b"-S", b"-c", code]
        read, write = os.pipe()
        pids.append(_posixsubprocess.fork_exec(
            args, args[:1], True, (write,), None, None, -1, -1, -1, -1, -1, -1, read, write,
            True, False, -1, None, None, None, -1, None, False))
    ends = []
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        ends.append(os.waitstatus_to_exitcode(status))
    return ends
'''


@scenario
def hoard_memory(Value, count, mib):
    import value

    return {"ends": value.hoard(count, mib)}


@scenario
def own_limits(Value):
    import resource

    return {"as": resource.getrlimit(resource.RLIMIT_AS)[0],
            "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0]}


def _submission(tmp_path: Path, source: str) -> Path:
    os.chmod(tmp_path, 0o755)
    folder = tmp_path / "submission"
    folder.mkdir(mode=0o755)
    (folder / "value.py").write_text(source, encoding="utf-8")
    os.chmod(folder / "value.py", 0o644)
    return folder


@pytest.mark.skipif(not memory.memory_cgroups_delegated(),
                    reason="needs a memory cgroup delegated to this process")
def test_a_cgroup_bounds_the_memory_of_all_the_submissions_processes_together(tmp_path: Path):
    folder = _submission(tmp_path, HOARDERS)
    limits = Limits(timeout_s=20, submission_memory_bytes=256 * MIB)
    with Sandbox(folder, "value", "Value", ("value.py",), limits, jail=default_jail()) as box:
        assert box.memory is not None and box.isolation.memory == "cgroup"
        outcome = box.run(hoard_memory, {"count": 3, "mib": 120})
        oom_kills = box.memory.oom_kills()
    assert outcome.ok, (outcome.status, outcome.detail)
    ends = outcome.value["ends"]
    # 3 x 120 MiB, each far below RLIMIT_AS (1 GiB), cannot all live in 256 MiB
    assert any(code == -9 for code in ends), f"every hoarder survived: {ends}"
    assert oom_kills >= 1, "the kernel reported no kill for memory in the submission's cgroup"


@pytest.mark.skipif(not memory.memory_cgroups_delegated(),
                    reason="needs a memory cgroup delegated to this process")
def test_the_same_processes_fit_when_the_submission_has_room(tmp_path: Path):
    folder = _submission(tmp_path, HOARDERS)
    limits = Limits(timeout_s=20, submission_memory_bytes=1024 * MIB)
    with Sandbox(folder, "value", "Value", ("value.py",), limits, jail=default_jail()) as box:
        outcome = box.run(hoard_memory, {"count": 3, "mib": 120})
    assert outcome.ok, (outcome.status, outcome.detail)
    assert outcome.value["ends"] == [0, 0, 0], outcome.value


@pytest.mark.skipif(default_jail() is None, reason="needs a jail (or a separate uid)")
def test_without_a_cgroup_the_bound_is_the_process_limit_times_the_per_process_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sandbox, "memory_cgroups_delegated", lambda: False)
    folder = _submission(tmp_path, "class Value:\n    pass\n")
    limits = Limits()
    with Sandbox(folder, "value", "Value", ("value.py",), limits, jail=default_jail()) as box:
        assert box.memory is None
        assert box.isolation.memory == "process-count", box.isolation
        outcome = box.run(own_limits, {})
    assert outcome.ok, (outcome.status, outcome.detail)
    share = limits.submission_memory_bytes // limits.processes_without_cgroup
    assert outcome.value == {"as": share, "nproc": limits.processes_without_cgroup}, outcome.value
    assert outcome.value["as"] * outcome.value["nproc"] <= limits.submission_memory_bytes


@pytest.mark.skipif(default_jail() is None, reason="needs a jail (or a separate uid)")
@pytest.mark.parametrize(("count", "mib", "fits"), [(2, 200, True), (2, 300, False),
                                                    (4, 200, False)])
def test_without_a_cgroup_a_submission_holds_at_most_its_memory_in_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int, mib: int, fits: bool):
    # 4 processes of 256 MiB at most: the zygote and the scenario's child take two, so two
    # hoarders of 200 MiB fit, one of 300 MiB does not, and a third and fourth cannot start.
    monkeypatch.setattr(sandbox, "memory_cgroups_delegated", lambda: False)
    folder = _submission(tmp_path, HOARDERS)
    with Sandbox(folder, "value", "Value", ("value.py",), Limits(timeout_s=20),
                 jail=default_jail()) as box:
        outcome = box.run(hoard_memory, {"count": count, "mib": mib})
    started_and_held = outcome.ok and outcome.value["ends"] == [0] * count
    assert started_and_held == fits, (outcome.status, outcome.detail, outcome.value)


def test_without_a_jail_only_the_per_process_limit_applies(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sandbox, "memory_cgroups_delegated", lambda: False)
    folder = _submission(tmp_path, "class Value:\n    pass\n")
    with Sandbox(folder, "value", "Value", ("value.py",), Limits(), jail=None) as box:
        assert box.isolation.memory == "per-process", box.isolation
        outcome = box.run(own_limits, {})
    assert outcome.ok, (outcome.status, outcome.detail)
    assert outcome.value["as"] == Limits().memory_bytes, outcome.value
