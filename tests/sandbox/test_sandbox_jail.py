"""The jail, scenario by scenario: nothing the child starts outlives its scenario, and nothing
it writes lands outside its own private /tmp. Needs root on Linux (skipped otherwise)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from grader.common.labs import COURSE_ROOT
from grader.grading.child.scenario import scenario
from grader.grading.sandbox import Limits, Sandbox, reaper
from grader.grading.sandbox.jail import default_jail, jail_supported, processes_of_uid

pytestmark = pytest.mark.skipif(not jail_supported(),
                                reason="the jail needs root, or user namespaces, on Linux")

# Spawns `sleep 30` through _posixsubprocess, the one process-creating call that raises no
# audit event (subprocess raises its own before calling it), so the audit guard cannot see it.
SPAWNER = '''
import _posixsubprocess, os

class Value:
    def __init__(self, data):
        self.data = data

def spawn_sleeper():
    read, write = os.pipe()
    args = [b"/usr/bin/sleep", b"30"]
    return _posixsubprocess.fork_exec(
        args, args[:1], True, (write,), None, None, -1, -1, -1, -1, -1, -1, read, write,
        True, True, -1, None, None, None, -1, None, False)
'''


@scenario
def leave_a_process(Value):
    import value

    return {"pid": value.spawn_sleeper()}


@scenario
def write_everywhere(Value, repo, host_tmp, name):
    results = {}
    for path in ("/tmp/" + name, repo + "/" + name, host_tmp + "/" + name, "/" + name):
        try:
            with open(path, "w") as handle:
                handle.write("x")
            results[path] = "written"
        except OSError as exc:
            results[path] = type(exc).__name__
    return results


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except OSError:
        return "gone"


def _submission(tmp_path: Path, source: str) -> Path:
    os.chmod(tmp_path, 0o755)
    folder = tmp_path / "submission"
    folder.mkdir(mode=0o755)
    (folder / "value.py").write_text(source, encoding="utf-8")
    os.chmod(folder / "value.py", 0o644)
    return folder


@pytest.mark.skipif(not getattr(default_jail(), "own_uid", False),
                    reason="looks for the jail's processes by its own uid")
def test_a_process_started_in_a_scenario_is_gone_when_the_scenario_returns(tmp_path: Path):
    # As in a grading run (the plugin does this): orphans come back to this process, which
    # reaps them, so a killed process does not linger as a zombie counted against the uid.
    assert reaper.enable_subreaper(), "this test needs Linux's child subreaper"
    jail = default_jail()
    assert jail is not None
    folder = _submission(tmp_path, SPAWNER)
    with Sandbox(folder, "value", "Value", ("value.py",), Limits(), jail=jail) as sandbox:
        outcome = sandbox.run(leave_a_process, {})
        assert outcome.ok, (outcome.status, outcome.detail)
        zygote = sandbox.zygote_pids()
        left = [(pid, _state(pid)) for pid in processes_of_uid(jail.uid) if pid not in zygote]
    assert outcome.value["pid"] > 0, "the spawn should have succeeded inside the jail"
    assert left == [], f"processes of the jail's uid alive after the scenario: {left}"


def test_files_written_in_a_scenario_stay_in_its_private_tmp(tmp_path: Path):
    jail = default_jail()
    assert jail is not None
    folder = _submission(tmp_path, "class Value:\n    pass\n")
    host_tmp = Path("/tmp")
    name = f"written-by-scenario-{os.getpid()}-{tmp_path.name}"  # no other run writes it
    with Sandbox(folder, "value", "Value", ("value.py",), Limits(), jail=jail) as sandbox:
        outcome = sandbox.run(write_everywhere, {"repo": str(COURSE_ROOT),
                                                 "host_tmp": str(tmp_path), "name": name})
    assert outcome.ok, (outcome.status, outcome.detail)
    assert outcome.value[f"/tmp/{name}"] == "written", outcome.value
    for path in (host_tmp / name, COURSE_ROOT / name, tmp_path / name, Path("/") / name):
        assert not path.exists(), f"{path} was written from inside the jail"
    assert sorted(p.name for p in folder.iterdir()) == ["value.py"], "the submission is read-only"
    shutil.rmtree(folder)


# --- jail uids: one per live jail on the machine ---------------------------------------------

# A second grader on the machine whose pid gives the same starting uid as ours: it takes three
# jail uids, prints them, and holds them until its stdin closes.
OTHER_GRADER = """
import itertools, os, sys
from grader.grading.sandbox import jail
jail.UID_LOCK_DIRS = ({folder!r},)
jail.os.getpid = lambda: 125  # 125 * 64 % 4000 == 0: the start of a pid of 250 too
jail._JAIL_NUMBERS = itertools.count()
leases = [jail.jail_uid() for _ in range(3)]
print(" ".join(str(uid) for uid, _ in leases), flush=True)
sys.stdin.read()
"""


@pytest.fixture
def colliding_pid(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """This process's jail numbering restarted with a pid whose uids another grader's collide
    with, and the lock folder in tmp_path (shared with the other grader below)."""
    import itertools

    from grader.grading.sandbox import jail

    folder = tmp_path / "locks"
    monkeypatch.setattr(jail, "UID_LOCK_DIRS", (str(folder),))
    monkeypatch.setattr(jail.os, "getpid", lambda: 250)
    monkeypatch.setattr(jail, "_JAIL_NUMBERS", itertools.count())
    return folder


def test_two_graders_whose_pids_collide_get_different_jail_uids(colliding_pid: Path) -> None:
    import subprocess
    import sys

    from grader.grading.sandbox.jail import jail_uid

    script = OTHER_GRADER.format(folder=str(colliding_pid))
    other = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None
        theirs = {int(uid) for uid in other.stdout.readline().split()}
        ours = [jail_uid() for _ in range(3)]
    finally:
        other.communicate("", timeout=30)
    assert len(theirs) == 3, theirs
    mine = {uid for uid, _ in ours}
    assert len(mine) == 3 and not mine & theirs, f"shared: {sorted(mine & theirs)}"
    assert all(lease is not None for _, lease in ours)


def test_a_released_jail_uid_serves_the_next_jail(colliding_pid: Path) -> None:
    import itertools

    from grader.grading.sandbox import jail

    first, lease = jail.jail_uid()
    assert lease is not None
    jail._JAIL_NUMBERS = itertools.count()  # the same starting point again
    held, _ = jail.jail_uid()
    assert held != first, "a uid held by a live jail was given again"
    lease.release()
    jail._JAIL_NUMBERS = itertools.count()
    again, _ = jail.jail_uid()
    assert again == first, (first, again)


@pytest.mark.parametrize("how", ["root", "userns", "setuid"])
def test_the_probe_runs_the_bootstraps_own_entry(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One jail entry: a probe holds only if the bootstrap's own function does (the probe's
    forked child inherits the patched module)."""
    from grader.grading.child import bootstrap
    from grader.grading.sandbox import jail

    if not jail.can_enter(how):
        pytest.skip(f"this machine cannot enter the jail '{how}'")

    def refused(*args: object) -> None:
        raise OSError("refused by the test")

    entry = "take_jail_uid" if how == "setuid" else "unshare_namespaces"
    monkeypatch.setattr(bootstrap, entry, refused)
    assert not jail.can_enter(how), f"the '{how}' probe held without bootstrap.{entry}"
