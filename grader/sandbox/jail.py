"""The jail the sandbox child enters when the grader runs as root on Linux.

Side: trusted process (it prepares the jail that the child's bootstrap enters).

The child unshares a mount and a network namespace and changes root into a fresh tmpfs that
holds only the system's programs and libraries (read-only), a few devices, a private /tmp
and the submission (read-only): the repository, the scratch root, the reports and every
other file of the machine are simply not there. It then drops to an unprivileged uid of its
own (so RLIMIT_NPROC applies and every leftover process can be found by uid). Without root, or where namespaces are refused, the sandbox runs with resource
limits only; `describe()` says which protections are in force.
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

UID_BASE = 61000
UID_SPAN = 4000
SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3")
# One uid per jail, so one submission's processes (and their limit) are never another's.
_JAIL_NUMBERS = itertools.count()


@dataclass(frozen=True)
class Jail:
    """Whom the child runs as, with which interpreter, and how much private /tmp it gets."""

    uid: int
    gid: int
    interpreter: str
    tmp_bytes: int = 8 << 20

    def config(self) -> dict[str, Any]:
        """The plain-data form sent to the child bootstrap."""
        return {"uid": self.uid, "gid": self.gid, "tmp_bytes": self.tmp_bytes}


def _probe_namespaces() -> bool:
    """Whether a child of this process may unshare mount and network namespaces."""
    import ctypes

    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the probe child
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            os._exit(0 if libc.unshare(0x00020000 | 0x40000000) == 0 else 1)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


@functools.lru_cache(maxsize=1)
def jail_supported() -> bool:
    """Root on Linux with namespaces allowed (probed once per process)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    if os.environ.get("GRADER_NO_JAIL"):
        return False
    return _probe_namespaces()


def _world_readable_path(path: Path) -> bool:
    """Every directory up to path is traversable by others, and path itself readable."""
    for part in [*reversed(path.parents), path]:
        try:
            mode = part.stat().st_mode
        except OSError:
            return False
        if not mode & 0o001:
            return False
    return bool(path.stat().st_mode & 0o004)


def sandbox_interpreter() -> str | None:
    """A Python the unprivileged uid can run: this one if its stdlib is world-readable."""
    stdlib = Path(os.__file__).parent
    if _world_readable_path(stdlib):
        return sys.executable
    for candidate in SYSTEM_PYTHONS:
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def default_jail() -> Jail | None:
    """A jail with a fresh uid for one submission, or None where it cannot be had."""
    if not jail_supported():
        return None
    interpreter = sandbox_interpreter()
    if interpreter is None:
        return None
    uid = UID_BASE + (os.getpid() * 64 + next(_JAIL_NUMBERS)) % UID_SPAN
    return Jail(uid=uid, gid=uid, interpreter=interpreter)


def processes_of_uid(uid: int) -> list[int]:
    """Pids of live processes owned by uid (read from /proc)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


def kill_uid(uid: int, keep: Sequence[int] = ()) -> list[int]:
    """SIGKILL every process of uid except `keep`; returns the pids signalled."""
    killed = []
    for pid in processes_of_uid(uid):
        if pid in keep:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except ProcessLookupError:
            continue
    return killed


def describe(jail: Jail | None) -> str:
    """One line saying which protections are in force (for logs and SECURITY.md checks)."""
    if jail is None:
        return "resource limits only (not root, or namespaces refused)"
    return (f"uid {jail.uid}, private mount+network namespaces, new root with system files "
            f"only, interpreter {jail.interpreter}")
