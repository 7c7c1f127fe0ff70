"""The shard zygote: every submission's zygote is forked from it, and gets nothing of it but
a fresh process: its own session, its own four descriptors, its own jail uid."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from grader.grading.child.bootstrap import GC_FIRST_THRESHOLD
from grader.grading.child.scenario import scenario
from grader.grading.sandbox import Limits, Sandbox
from grader.grading.sandbox.jail import default_interpreter, default_jail, jail_supported
from grader.grading.sandbox.shard_zygote import LIVE_ZYGOTES, ShardZygote, ShardZygotes

ENGINE = "class Value:\n    def __init__(self, data):\n        self.data = data\n"


@scenario
def plant_and_look(Value, mark):
    import builtins

    found = hasattr(builtins, mark)
    setattr(builtins, mark, True)
    return {"found": found}


@scenario
def collector_threshold(Value):
    import gc

    return {"first": gc.get_threshold()[0]}


def _submission(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(mode=0o755)
    (folder / "value.py").write_text(ENGINE, encoding="utf-8")
    os.chmod(folder / "value.py", 0o644)
    return folder


@pytest.fixture
def classroom(tmp_path: Path) -> Path:
    os.chmod(tmp_path, 0o755)
    return tmp_path


def _sandbox(folder: Path, shard: ShardZygote) -> Sandbox:
    jail = default_jail()
    return Sandbox(folder, "value", "Value", ("value.py",), Limits(), jail=jail,
                   shard_zygote=shard)


def _interpreter() -> str:
    return default_interpreter()


def test_the_default_interpreter_is_the_one_a_default_jail_runs() -> None:
    jail = default_jail()
    try:
        assert default_interpreter() == (jail.interpreter if jail else sys.executable)
    finally:
        if jail is not None:
            jail.release()


def test_a_shard_zygote_started_early_is_the_one_every_submission_forks_from(classroom: Path):
    shard = ShardZygote(_interpreter())
    try:
        shard.start()
        assert shard._process is not None
        started = shard._process.pid
        shard.start()  # already running: not a second one
        with _sandbox(_submission(classroom, "a"), shard) as box:
            outcome = box.run(plant_and_look, {"mark": "early"})
        assert outcome.status == "ok", outcome
        assert shard._process.pid == started
    finally:
        shard.close()


def test_classmates_forked_from_one_shard_zygote_share_no_process_state(classroom: Path):
    shard = ShardZygote(_interpreter())
    try:
        seen = []
        for name in ("first", "second"):
            with _sandbox(_submission(classroom, name), shard) as sandbox:
                for _ in range(2):
                    outcome = sandbox.run(plant_and_look, {"mark": "_planted_by_a_classmate"})
                    assert outcome.ok, (outcome.status, outcome.detail)
                    seen.append(outcome.value["found"])
        assert seen == [False] * 4, "a scenario found what an earlier one planted"
    finally:
        shard.close()


def test_each_submission_zygote_has_its_own_session_and_four_descriptors(classroom: Path):
    shard = ShardZygote(_interpreter())
    try:
        zygotes = []
        for name in ("first", "second"):
            sandbox = _sandbox(_submission(classroom, name), shard)
            assert sandbox.load_problem() is None
            own = sandbox.zygote_pids()  # the forked zygote, and the init of its pid namespace
            zygotes.append((sandbox, own[0], own[-1]))
        pids = [outer for _, outer, _ in zygotes]
        assert len(set(pids)) == 2, pids
        for _, outer, _ in zygotes:
            assert os.getsid(outer) == outer, "a submission's zygote leads a session of its own"
            assert sorted(int(fd) for fd in os.listdir(f"/proc/{outer}/fd")) == [0, 1, 2, 3], (
                "a submission's zygote holds exactly its own pipes (no control socket, no "
                "classmate's pipe)")
        if jail_supported() and os.geteuid() == 0:
            uids = {os.stat(f"/proc/{inner}").st_uid for _, _, inner in zygotes}
            assert len(uids) == 2 and 0 not in uids, f"jail uids {uids}"
    finally:
        for sandbox, _, _ in zygotes:
            sandbox.close()
        shard.close()
    assert not LIVE_ZYGOTES & set(pids), "closed sandboxes' zygotes are still counted live"


def test_a_killed_shard_zygote_is_started_again(classroom: Path):
    shard = ShardZygote(_interpreter())
    try:
        with _sandbox(_submission(classroom, "first"), shard) as sandbox:
            assert sandbox.load_problem() is None
        assert shard._process is not None
        shard._process.kill()
        shard._process.wait()
        with _sandbox(_submission(classroom, "second"), shard) as sandbox:
            assert sandbox.load_problem() is None, "the next submission found no shard zygote"
    finally:
        shard.close()


def test_a_scenario_child_collects_garbage_less_often_than_python_s_default(classroom: Path):
    # at Python's 700, an engine's 100,000-node graph is walked by the collector again and again
    shard = ShardZygote(_interpreter())
    try:
        with _sandbox(_submission(classroom, "gc"), shard) as box:
            outcome = box.run(collector_threshold, {})
        assert outcome.status == "ok", outcome
        assert outcome.value == {"first": GC_FIRST_THRESHOLD}
    finally:
        shard.close()


def test_a_shard_zygote_started_before_pytest_is_the_session_s_or_is_closed() -> None:
    from grader.grading.sandbox import shard_zygote

    shard_zygote.start_early(_interpreter())
    early = shard_zygote._STARTED_EARLY[_interpreter()]
    session = ShardZygotes()
    try:
        assert session.for_interpreter(_interpreter()) is early  # taken over, not a second one
        assert shard_zygote._STARTED_EARLY == {}
    finally:
        session.close()
    shard_zygote.start_early(_interpreter())
    untaken = shard_zygote._STARTED_EARLY[_interpreter()]
    assert untaken._process is not None
    process = untaken._process
    shard_zygote.close_early()  # no session took it: it is stopped, not left running
    assert process.poll() is not None and shard_zygote._STARTED_EARLY == {}
