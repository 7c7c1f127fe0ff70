"""The isolation of every mode, attempted from inside: what a submission's own process (past the
audit guard, as native code could be) reaches when the grader runs as root, as root without
CAP_SYS_ADMIN, in a container that refuses namespaces, as an unprivileged user, and as an
unprivileged user without user namespaces. Each mode must hold exactly what SECURITY.md says.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.common.labs import COURSE_ROOT

sys.path.insert(0, str(Path(__file__).parent))
import modes  # noqa: E402 - a helper beside this file

PROBE = Path(__file__).with_name("mode_probe.py")
SOLUTION = COURSE_ROOT / "solutions" / "lab01_graph" / "value.py"
HOME_CANARY = "minigrad-mode-probe-home-canary"
# What the probe's attempts must give in each mode; a mode not listed for an attempt must see
# it fail (any error). "limits" is listed in full: it documents what that level leaves open.
OPEN_IN_LIMITS = {"read_solution", "read_home", "list_proc", "keyring", "sysv_ipc",
                  "write_host_folder", "write_tmp", "connect", "signal_grader",
                  # memory no limit counts, and locks and watches on shared inodes (issue 38)
                  "memfd", "flock", "record_lock", "ofd_lock", "inotify", "sysv_shm"}
# What the jail's private namespaces hide and a separate uid does not: nothing since the seccomp
# filter refuses System V IPC (msgget, shmget, semget) at every jail level (issue 39: a queue
# its owner opened to every uid was readable; segments outlived the run).
OPEN_IN_UID: set[str] = set()


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    """Things to reach: a home with a canary, a host folder, a listener; all cleaned up."""
    folder = Path(tempfile.mkdtemp(prefix="minigrad-modes-", dir="/tmp"))
    os.chmod(folder, 0o755)
    home = folder / "home"
    home.mkdir(mode=0o755)
    (home / "canary").write_text(HOME_CANARY, encoding="utf-8")
    os.chmod(home / "canary", 0o644)
    host = folder / "host"
    host.mkdir()
    os.chmod(host, 0o777)  # a folder the instructor could write to
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.1)
    try:
        yield {"folder": folder, "home": home, "host": host, "listener": listener}
    finally:
        listener.close()
        shutil.rmtree(folder, ignore_errors=True)
        (COURSE_ROOT / f"mode-probe-marker-{folder.name}").unlink(missing_ok=True)


def probe(mode: str, world: dict[str, Any]) -> dict[str, Any]:
    """Run mode_probe.py in `mode`; its findings."""
    workdir = world["folder"] / f"submission-{mode}"
    modes.grader_owned(workdir, mode)
    os.chmod(workdir, 0o755)
    config = {
        "workdir": str(workdir), "solution": str(SOLUTION),
        "home_canary": str(world["home"] / "canary"),
        "repository_marker": str(COURSE_ROOT / f"mode-probe-marker-{world['folder'].name}"),
        "host_marker": str(world["host"] / f"written-{mode}"),
        # in the machine's /tmp (not TMPDIR), named for this run: another run's is not ours
        "tmp_marker": f"/tmp/minigrad-mode-probe-{mode}-{world['folder'].name}",
        "port": world["listener"].getsockname()[1], "sleeper": "31.7",
    }
    python = modes.python_for(mode, world["folder"] / "python")
    try:
        completed = subprocess.run(
            [*modes.prefix(mode), python, str(PROBE), json.dumps(config)], capture_output=True,
            text=True, timeout=120, env=modes.environment(mode), cwd=world["folder"])
    finally:
        host_tmp = Path(config["tmp_marker"])
        world["host_tmp_written"] = host_tmp.exists()
        host_tmp.unlink(missing_ok=True)
    assert completed.returncode == 0, f"{mode}: probe failed: {completed.stderr[-2000:]}"
    return json.loads(completed.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", modes.MODES)
def test_each_mode_takes_the_strongest_isolation_and_holds_it(mode: str, world: dict[str, Any]):
    reason = modes.why_unavailable(mode)
    if reason:
        pytest.skip(f"{mode}: {reason}")
    found = probe(mode, world)
    level, how = modes.EXPECTED_ISOLATION[mode]
    assert (found["isolation"]["level"], found["isolation"]["how"]) == (level, how), found
    attempts = found["attempts"]
    assert "unparsed" not in attempts, f"{mode}: the probe did not run: {attempts}"
    # Without a memory cgroup a submission has 4 processes (SECURITY.md, Memory); the probe's
    # runner, its scenario's child and the pid namespace's init leave no room for a sleeper
    # that double-forks, so there the fork itself is refused.
    capped = found["isolation"].get("memory") == "process-count"
    assert attempts["sleeper"] == ("BlockingIOError" if capped else "started"), attempts
    assert found["sleepers_left"] == [], f"{mode}: a process outlived its scenario"
    opened = {name for name, value in attempts.items()
              if name not in ("uid", "root_listing", "sleeper", "write_submission")
              and not (isinstance(value, str) and value.endswith(("Error", "Exception")))}
    if level == "limits":
        assert opened == OPEN_IN_LIMITS, f"{mode}: open {sorted(opened)}"
        return
    # the jail's private /tmp is the one writable place; nothing else may open
    expected = {"write_tmp"} if level == "jail" else OPEN_IN_UID
    assert opened == expected, f"{mode}: open beyond {sorted(expected)}: {attempts}"
    assert attempts["write_submission"] != "written", f"{mode}: the submission is writable"
    if level == "jail":
        assert attempts["root_listing"] == sorted(attempts["root_listing"]) and \
            set(attempts["root_listing"]) <= {"bin", "dev", "lib", "lib32", "lib64", "libx32",
                                              "sbin", "tmp", "usr"}, attempts["root_listing"]
    assert not world["host_tmp_written"], f"{mode}: wrote to the machine's /tmp"
    assert not (world["host"] / f"written-{mode}").exists()
    assert not (COURSE_ROOT / f"mode-probe-marker-{world['folder'].name}").exists()


def test_grade_refuses_for_real_where_only_limits_are_left(world: dict[str, Any]):
    """As uid 65534 without user namespaces (nothing simulated inside the grader): exit 2 and
    one line, no report; with --allow-unisolated it grades, and says so."""
    mode = "unprivileged-no-userns"
    reason = modes.why_unavailable(mode)
    if reason:
        pytest.skip(f"{mode}: {reason}")
    out = modes.grader_owned(world["folder"] / "refused-out", mode) / "out"
    python = modes.python_for(mode, world["folder"] / "python")
    command = [*modes.prefix(mode), python, "-m", "grader", "grade", "lab01_graph",
               str(SOLUTION.parent), "--out", str(out), "--lang", "en", "--workers", "1"]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=300,
                             env=modes.environment(mode), cwd=world["folder"])
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert len(refused.stderr.strip().splitlines()) == 1 and "--allow-unisolated" in refused.stderr
    assert not out.exists()
    allowed = subprocess.run([*command, "--allow-unisolated"], capture_output=True, text=True,
                             timeout=300, env=modes.environment(mode), cwd=world["folder"])
    assert allowed.returncode == 0, allowed.stderr[-2000:]
    doc = json.loads((out / "lab01_graph" / "scores.json").read_text(encoding="utf-8"))
    assert (doc["isolation"]["level"], doc["isolation"]["how"]) == ("limits", "none"), doc
    assert "Warning:" in allowed.stdout, allowed.stdout[-2000:]
