"""The student path off Linux: where Linux-only calls are missing, checking degrades, never crashes.

macOS has fork and POSIX limits but no namespaces, prctl, /proc, cgroups or Landlock: checks run
in the sandbox at "limits". Windows (outside WSL) has no fork: checks run in-process, as with
`--debug`, at "none"; `grade` refuses there unless told otherwise. Simulated on this machine by
patching `sys.platform` or removing `os.fork`, in this process and, through a sitecustomize, in
the grader's own processes (the sandbox child itself still runs on this Linux).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.common.labs import COURSE_ROOT
from grader.grading.sandbox import jail, memory, reaper
from grader.grading.sandbox.jail import IN_PROCESS, Isolation, available_isolation

PRETEND = {
    "macos": "import sys; sys.platform = 'darwin'\n",
    "no-fork": "import os; del os.fork\n",
}
EXPECTED = {
    "macos": {"level": "limits", "how": "none", "memory": "per-process"},
    "no-fork": IN_PROCESS.as_dict(),
}


def _forget_probes() -> None:
    for cached in (jail._entry, jail.landlock_abi, jail.sandbox_interpreter,
                   memory.memory_cgroups_delegated):
        cached.cache_clear()


@pytest.fixture
def fresh_probes() -> Iterator[None]:
    """Probe again under the patched platform, and again after it."""
    _forget_probes()
    yield
    _forget_probes()


def test_on_macos_the_isolation_is_limits_and_linux_calls_are_skipped(
        monkeypatch: pytest.MonkeyPatch, fresh_probes: None):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert available_isolation() == Isolation("limits", "none", "per-process")
    assert jail.landlock_abi() == 0
    assert reaper.enable_subreaper() is False
    assert memory.find_hierarchy() is None
    assert memory.MemoryGroup.create(1 << 30) is None


def test_without_fork_only_the_in_process_runner_is_left(monkeypatch: pytest.MonkeyPatch,
                                                          fresh_probes: None):
    monkeypatch.delattr(os, "fork")
    assert available_isolation() == IN_PROCESS
    assert not IN_PROCESS.at_least("limits")


def _grader(tmp_path: Path, platform: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m grader ARGS` with every grader process pretending to run on `platform`."""
    shim = tmp_path / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(PRETEND[platform], encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if not key.startswith("GRADER_")}
    env.update(PYTHONPATH=str(shim), GRADER_LANG="en", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=COURSE_ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("platform", sorted(PRETEND))
def test_check_degrades_and_still_grades_the_solution(tmp_path: Path, platform: str):
    scores = tmp_path / "scores.json"
    result = _grader(tmp_path, platform, "check", "--path", "solutions/lab01_graph",
                     "--json", str(scores), "--verbose")
    assert result.returncode == 0, result.stderr[-2000:]
    doc = json.loads(scores.read_text(encoding="utf-8"))
    assert doc["score"] == doc["max_score"] > 0, doc["score"]
    assert doc["isolation"] == EXPECTED[platform], doc["isolation"]
    assert "Warning:" in result.stderr, "check --verbose names the weaker isolation"


@pytest.mark.parametrize("platform", sorted(PRETEND))
def test_grade_refuses_where_only_limits_or_nothing_is_left(tmp_path: Path, platform: str):
    result = _grader(tmp_path, platform, "grade", "lab01_graph", "solutions/lab01_graph",
                     "--out", str(tmp_path / "out"))
    assert result.returncode == 2, result.stderr[-2000:]
    assert "--allow-unisolated" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
