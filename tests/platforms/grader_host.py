"""PrairieLearn's grader host, played without a container runtime (a test helper, not a test
module): a job run in a built image's file system as `runJob` runs it in a container.

`podman run` cannot start containers on these machines (its runtime fails setting rlimits), so
the container is made by podman but started by bubblewrap. What PrairieLearn's grader host
does, apps/grader-host/src/index.ts `runJob` (its `docker.createContainer` call) and
`initFiles`, and what stands for it here:

- `Image`: the image's own file system with a writable layer on top: `podman create` + `podman
  mount` give exactly the overlay a container of that image gets (one fresh container per job,
  removed after it, as `container.remove`).
- `HostConfig.Binds: [tempDir:/grade]`: the job folder (data/data.json, student/, tests/,
  serverFilesCourse/, as externalGraderCommon.ts `buildDirectory` lays it out) bound at /grade;
  the entrypoint made executable first (`initFiles`: chmod +x).
- `Entrypoint: entrypoint.split(' ')`, the image's `WorkingDir`, the image's `Env` plus the
  question's `environment`, as root (no `User` is given), `Tty: true` (TERM=xterm).
- `NetworkDisabled`, `IpcMode: private`: new network (loopback only), IPC, UTS and PID
  namespaces; `/proc` of its own, a minimal `/dev`, `/sys` read-only.
- Docker's default capability set for a root container (moby `oci/caps/defaults.go`
  `DefaultCapabilities`), every other capability dropped from the bounding set.
- `results.succeeded = !timedOut && ExitCode === 0`, then `results/results.json` is read from the
  job folder (prairielearn_oracle.grade follows what the host and the server do with it).

Not reproduced: the cgroup limits (Memory, CpuQuota, PidsLimit: no cgroup delegation here) and
Docker's default seccomp profile (it would refuse the grader's user namespaces, and the grader
falls back to its `uid` isolation, which tests/sandbox/test_isolation_modes.py covers).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# moby/moby oci/caps/defaults.go DefaultCapabilities (Docker's default for a container).
DOCKER_DEFAULT_CAPS = ("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
                       "CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
                       "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE")


@dataclass(frozen=True)
class Container:
    """A created container's mounted root and the image's configuration."""

    root: Path
    env: dict[str, str]
    workdir: str


def image_config(image: str) -> dict[str, Any]:
    """The image's configuration (`Env`, `WorkingDir`, `Entrypoint`, ...)."""
    inspected = subprocess.run(["podman", "image", "inspect", image], capture_output=True,
                               text=True, check=True).stdout
    return json.loads(inspected)[0]["Config"]


@contextmanager
def container_of(image: str) -> Iterator[Container]:
    """A fresh container of `image` (podman create), its root mounted; removed afterwards."""
    name = f"minigrad-job-{uuid.uuid4().hex[:12]}"
    subprocess.run(["podman", "create", "--name", name, image], capture_output=True,
                   check=True)
    try:
        root = subprocess.run(["podman", "mount", name], capture_output=True, text=True,
                              check=True).stdout.strip()
        config = image_config(image)
        env = dict(item.split("=", 1) for item in config.get("Env") or [])
        yield Container(Path(root), env, config.get("WorkingDir") or "/")
    finally:
        subprocess.run(["podman", "rm", "--force", name], capture_output=True, check=False)


def lay_out_job(job: Path, question: Path, student_files: Mapping[str, bytes],
                data: Mapping[str, Any]) -> None:
    """The job folder as externalGraderCommon.ts `buildDirectory` writes it."""
    shutil.copytree(question / "tests", job / "tests")
    (job / "student").mkdir(parents=True)
    (job / "serverFilesCourse").mkdir()
    (job / "data").mkdir()
    for name, content in student_files.items():
        (job / "student" / name).write_bytes(content)
    (job / "data" / "data.json").write_text(json.dumps(data), encoding="utf-8")


@dataclass(frozen=True)
class JobRun:
    """What the grader host keeps of a job: whether it succeeded, its log, results.json."""

    succeeded: bool
    log: str
    results: bytes | None


def run_job(image: str, job: Path, entrypoint: str, environment: Mapping[str, str],
            timeout_s: float) -> JobRun:
    """Run one grading job in a fresh container of `image`, as `runJob` does."""
    entry = job / entrypoint.split(" ")[0].removeprefix("/grade/")
    entry.chmod(entry.stat().st_mode | 0o111)  # initFiles: chmod +x
    with container_of(image) as container:
        env = {**container.env, **environment, "HOSTNAME": "grader", "TERM": "xterm",
               "HOME": container.env.get("HOME", "/root")}
        command = ["bwrap", "--bind", str(container.root), "/", "--bind", str(job), "/grade",
                   "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm",
                   "--ro-bind", "/sys", "/sys",
                   "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                   "--unshare-cgroup-try", "--hostname", "grader", "--die-with-parent",
                   "--new-session", "--clearenv", "--chdir", container.workdir,
                   "--cap-drop", "ALL"]
        for cap in DOCKER_DEFAULT_CAPS:
            command += ["--cap-add", cap]
        for key, value in env.items():
            command += ["--setenv", key, value]
        try:
            done = subprocess.run([*command, "--", *entrypoint.split(" ")], capture_output=True,
                                  text=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return JobRun(False, "timed out", None)
    log = done.stdout + done.stderr
    if done.returncode != 0:
        return JobRun(False, log, None)
    path = job / "results" / "results.json"
    return JobRun(True, log, path.read_bytes() if path.is_file() else None)


def unavailable_reason() -> str | None:
    """Why a job cannot be run here, or None."""
    if os.geteuid() != 0:
        return "a container's root is mounted and entered as root (podman mount, bwrap caps)"
    missing = [tool for tool in ("podman", "bwrap") if shutil.which(tool) is None]
    return f"not installed: {', '.join(missing)}" if missing else None
