"""Which isolation the sandbox child gets on this machine, and the jail each submission enters.

Side: trusted process (it prepares the jail that the child's bootstrap enters).

One jail, entered the strongest way the machine allows (probed once per process, in forked
children that run the child bootstrap's own entry functions):

- level "jail", how "root": root with CAP_SYS_ADMIN. New mount, network, pid, IPC and UTS
  namespaces, a new root holding only the system's programs and libraries, the interpreter, a
  few devices, a private /tmp and the submission; then the jail's own unprivileged uid.
- level "jail", how "userns": the same namespaces and root, inside a user namespace: for an
  unprivileged grader (the child keeps the grader's uid, with every capability dropped), or
  for root without CAP_SYS_ADMIN (the child first takes a uid of its own).
- level "uid", how "setuid": root where namespaces are refused (a container's seccomp
  profile): the jail's own uid and, where the kernel has Landlock, the same files the jail's
  root would hold and nothing else.

Every jail also gets a seccomp filter: no sockets but AF_UNIX, no io_uring, no keyrings.
- level "limits", how "none": resource limits, the audit guard and `-I -S` only.

`available_isolation()` says which applies, `default_jail()` gives a submission its jail.
"""

from __future__ import annotations

import fcntl
import functools
import importlib.util
import itertools
import os
import signal
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.grading.child import bootstrap

UID_BASE = 61000
UID_SPAN = 4000
PROBE_UID = UID_BASE + UID_SPAN  # never a jail's: only the probes run as it
SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3")
LEVELS = ("none", "limits", "uid", "jail")  # weakest first; "none": `check --debug`, in-process
HOWS = ("root", "userns", "setuid", "none")  # strongest first: the order they are tried in
HOW_LEVEL = {"root": "jail", "userns": "jail", "setuid": "uid", "none": "limits"}
# An instructor (or the benchmark) may ask for a weaker entry than the strongest available:
# GRADER_ISOLATION=setuid tries setuid, then none. It never raises the level.
ISOLATION_VARIABLE = "GRADER_ISOLATION"

SYS_LANDLOCK_CREATE_RULESET, LANDLOCK_CREATE_RULESET_VERSION = 444, 1
# One uid per jail, so one submission's processes (and their limit) are never another's.
_JAIL_NUMBERS = itertools.count()
# Where the machine-wide claims on jail uids live (the first that can be made this user's own):
# every grader on the machine, in every process, takes a uid only by locking its file.
UID_LOCK_DIRS = ("/run/minigrad-jail-uids", "/tmp/minigrad-jail-uids")


@dataclass(frozen=True)
class Isolation:
    """The isolation a sandbox child runs under, as recorded in every score document.

    `memory` says what bounds a whole submission's memory: "cgroup" (one memory cgroup per
    submission), "process-count" (a per-process limit times the process limit), or
    "per-process" (a per-process limit only).
    """

    level: str  # jail | uid | limits | none
    how: str  # root | userns | setuid | none | in-process
    memory: str = "per-process"  # cgroup | process-count | per-process | none

    def at_least(self, level: str) -> bool:
        """Whether this isolation is `level` or stronger."""
        return LEVELS.index(self.level) >= LEVELS.index(level)

    def as_dict(self) -> dict[str, str]:
        """The plain-data form stored in score documents."""
        return {"level": self.level, "how": self.how, "memory": self.memory}


@dataclass(frozen=True)
class Jail:
    """Whom the child runs as, how it is isolated, with which interpreter."""

    how: str  # root | userns | setuid
    uid: int
    gid: int
    interpreter: str
    own_uid: bool  # the uid is this submission's alone: its processes can be found by uid
    landlock: int = 0  # Landlock ABI the "setuid" entry restricts files with (0: none)
    tmp_bytes: int = 8 << 20
    lease: UidLease | None = field(default=None, compare=False)  # the claim on `uid`

    def release(self) -> None:
        """Give the uid back once nothing of the jail runs any more (Sandbox.close)."""
        if self.lease is not None:
            self.lease.release()

    @property
    def pid_namespace(self) -> bool:
        """Whether the child is the init of a pid namespace of its own (which kills what a
        scenario leaves behind, and everything when it dies)."""
        return self.how in ("root", "userns")

    def config(self) -> dict[str, Any]:
        """The plain-data form sent to the child bootstrap."""
        return {"how": self.how, "uid": self.uid, "gid": self.gid, "tmp_bytes": self.tmp_bytes,
                "landlock": self.landlock}


# The debug runner's: student code in the grader's own process, so that breakpoint() works.
IN_PROCESS = Isolation("none", "in-process", "none")


def isolation_of(jail: Jail | None, memory_cgroup: bool) -> Isolation:
    """The isolation a sandbox with this jail (and memory cgroup, or not) gives its child."""
    how = jail.how if jail is not None else "none"
    level = HOW_LEVEL[how]
    if memory_cgroup:
        memory = "cgroup"
    else:
        memory = "per-process" if level == "limits" else "process-count"
    return Isolation(level, how, memory)


# -- probes: each runs in a forked child, and runs the bootstrap's own functions ---------------

def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _in_child(probe: Callable[[], bool]) -> bool:
    """Run `probe` in a forked child (whatever it changes dies with it); True if it held."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the probe child
        try:
            code = 0 if probe() else 1
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _check(result: int, what: str) -> None:
    if result != 0:
        raise OSError(f"probe: {what} failed")


def _probe_namespaces(how: str) -> bool:  # pragma: no cover - runs in the probe child
    """The bootstrap's own namespace entry, then a private tmpfs, as the jail's root needs."""
    libc = _libc()
    bootstrap.unshare_namespaces(libc, _check, {"how": how, "uid": PROBE_UID, "gid": PROBE_UID})
    bootstrap.private_tmpfs(libc, _check, "/tmp", 4096)
    return True


def _probe_root() -> bool:  # pragma: no cover - runs in the probe child
    return _probe_namespaces("root")


def _probe_userns() -> bool:  # pragma: no cover - runs in the probe child
    return _probe_namespaces("userns")


def _probe_setuid() -> bool:  # pragma: no cover - runs in the probe child
    bootstrap.take_jail_uid({"uid": PROBE_UID, "gid": PROBE_UID})
    return os.getuid() == PROBE_UID


PROBES: dict[str, Callable[[], bool]] = {
    "root": _probe_root, "userns": _probe_userns, "setuid": _probe_setuid,
}


def can_enter(how: str) -> bool:
    """Whether this process can enter the jail `how`."""
    if how == "none":
        return True
    if not sys.platform.startswith("linux"):
        return False
    if how in ("root", "setuid") and os.geteuid() != 0:
        return False
    return _in_child(PROBES[how])


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers this process (0: none)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0,
                                  LANDLOCK_CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


@functools.lru_cache(maxsize=1)
def _entry() -> str:
    """The strongest way into the jail this process has (probed once)."""
    wanted = os.environ.get(ISOLATION_VARIABLE, "")
    start = HOWS.index(wanted) if wanted in HOWS else 0
    for how in HOWS[start:]:
        if how != "none" and sandbox_interpreter() is None:
            return "none"
        if can_enter(how):
            return how
    return "none"


def sandbox_possible() -> bool:
    """Whether this platform can run the sandbox at all: a forked child under POSIX resource
    limits (not on Windows outside WSL, where only the in-process runner is left)."""
    return hasattr(os, "fork") and importlib.util.find_spec("resource") is not None


def available_isolation() -> Isolation:
    """The strongest isolation this process can give a sandbox child (probed once); the
    in-process runner's where no sandbox can run."""
    from grader.grading.sandbox.memory import memory_cgroups_delegated

    if not sandbox_possible():
        return IN_PROCESS
    return isolation_of(default_jail(), memory_cgroups_delegated())


def jail_supported() -> bool:
    """Whether sandbox children get the full jail here (root or user namespaces)."""
    return available_isolation().level == "jail"


# -- the jail of one submission ----------------------------------------------------------------

def readable_by_others(path: Path) -> bool:
    """Whether any uid may read path: every folder above it traversable by others, and path
    readable (and traversable, if a folder) by others."""
    try:
        for folder in reversed(path.parents):
            if not folder.stat().st_mode & 0o001:
                return False
        mode = path.stat().st_mode
    except OSError:
        return False
    needed = 0o005 if path.is_dir() else 0o004
    return mode & needed == needed


@functools.lru_cache(maxsize=1)
def sandbox_interpreter() -> str | None:
    """A Python the jail's uid can run: this one if its standard library is world-readable
    (or if the jail keeps this process's uid), else the system's."""
    stdlib = Path(os.__file__).parent
    if os.geteuid() != 0 or readable_by_others(stdlib):
        return sys.executable
    for candidate in SYSTEM_PYTHONS:
        if os.access(candidate, os.X_OK):
            return candidate
    return None


class UidLease:
    """A machine-wide claim on one jail uid: an exclusive flock on the uid's lock file, held
    until released or until this process ends (the kernel drops it then), so that no other
    jail, of this grader or of another one running at the same time, is given the uid."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def release(self) -> None:
        """Drop the claim (closing the file drops the lock)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _lock_dir() -> Path | None:
    """The first of UID_LOCK_DIRS that is a real folder of this user's, writable by no one
    else (made if missing); None when there is none."""
    for name in UID_LOCK_DIRS:
        path = Path(name)
        try:
            path.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022:
            return path
    return None


def jail_uid() -> tuple[int, UidLease | None]:
    """An unprivileged uid no other live jail on this machine holds, and the claim on it
    (None, and a uid that is only probably free, where no lock folder can be had).

    The search starts at a number of this process's own, so that concurrent graders rarely
    try the same files; whatever processes of the uid a dead jail left are killed."""
    start = (os.getpid() * 64 + next(_JAIL_NUMBERS)) % UID_SPAN
    folder = _lock_dir()
    if folder is None:
        return UID_BASE + start, None
    for step in range(UID_SPAN):
        uid = UID_BASE + (start + step) % UID_SPAN
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW,
                     0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        kill_uid(uid)  # leftovers of a jail whose grader died: no live jail has this uid
        return uid, UidLease(fd)
    raise RuntimeError(f"all {UID_SPAN} jail uids are held by running jails")


def jail_for(how: str) -> Jail | None:
    """A jail entered `how` for one submission (None for "none"); the caller checks that
    this process can enter it (see `available_isolation`)."""
    interpreter = sandbox_interpreter()
    if how == "none" or interpreter is None:
        return None
    if how == "userns" and os.geteuid() != 0:
        return Jail(how, os.getuid(), os.getgid(), interpreter, own_uid=False)
    uid, lease = jail_uid()
    landlock = landlock_abi() if how == "setuid" else 0
    return Jail(how, uid, uid, interpreter, own_uid=True, landlock=landlock, lease=lease)


def default_jail() -> Jail | None:
    """The strongest jail available here, for one submission; None where there is none."""
    return jail_for(_entry())


def default_interpreter() -> str:
    """The Python a default jail's sandbox runs (this one where there is no jail): known
    before any submission's jail is made, so that its shard zygote can start early."""
    interpreter = sandbox_interpreter() if _entry() != "none" else None
    return interpreter or sys.executable


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
