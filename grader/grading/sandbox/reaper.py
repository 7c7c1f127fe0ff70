"""Finding and killing processes a submission left behind, including double-forked daemons.

Side: trusted process.

The trusted process makes itself a child subreaper (Linux prctl), so orphans of sandboxed
children are re-parented to it instead of to init and can be found and killed here.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Iterable

PR_SET_CHILD_SUBREAPER = 36


def enable_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans; False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def child_pids(parent: int | None = None, zombies: bool = False) -> list[int]:
    """Pids of the children of `parent` (this process by default), read from /proc; zombies
    only when asked (they are dead, but still need reaping)."""
    parent = os.getpid() if parent is None else parent
    children = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and (zombies or fields[0] != b"Z"):
            children.append(int(entry))
    return children


def kill_orphans(keep: Iterable[int] = ()) -> list[int]:
    """SIGKILL and reap every child of this process not in `keep` (zombies are reaped too);
    returns the pids reaped."""
    kept = set(keep)
    killed = []
    for pid in child_pids(zombies=True):
        if pid in kept:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        killed.append(pid)
    for pid in killed:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return killed
