"""How long a zygote's scenario child has waited for a CPU: the time a busy machine took from it.

Side: trusted process (it reads /proc; nothing here runs in or talks to a child).

A scenario's time limit is meant for the student's code, not for the rest of the machine. On a
loaded machine a correct but slow walk can reach its wall-clock limit while it was runnable and
waiting for a core most of that time. Linux counts that wait per task: the second field of
`/proc/<pid>/schedstat` is the time the task spent on a run queue, runnable but not running. A
scenario's deadline is moved on by that much (`Sandbox`), so the limit counts time the child
ran or chose to wait (sleeping, blocked on a pipe), never time the machine made it wait.

The child is the zygote's child (it is forked per scenario), so every descendant of the zygote
but the zygote itself is that scenario's; their waits are summed. Where /proc does not show
them (another system, a /proc mounted with hidepid) the answer is None and the limit stays
wall-clock, as it always was.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def _parent_of(pid: str) -> int | None:
    """The parent pid of a process from its stat line (the name in parentheses may hold
    spaces and parentheses, so the fields are read after the last ')')."""
    try:
        stat = (PROC / pid / "stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    return int(fields[1]) if len(fields) > 1 else None


def _queue_wait_ns(pid: int) -> int:
    try:
        return int((PROC / str(pid) / "schedstat").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0  # ended meanwhile: its wait no longer matters


def descendants(root: int) -> list[int]:
    """Every live process below `root` (children, theirs, ...), found by their parent pids."""
    try:
        entries = [name for name in os.listdir(PROC) if name.isdigit()]
    except OSError:
        return []
    children: dict[int, list[int]] = {}
    for name in entries:
        parent = _parent_of(name)
        if parent is not None:
            children.setdefault(parent, []).append(int(name))
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def supported() -> bool:
    """Whether this machine counts run-queue waits where this process can read them."""
    try:
        (PROC / "self" / "schedstat").read_text().split()[1]
    except (OSError, IndexError):
        return False
    return True


def queue_wait_s(zygote_pid: int) -> float:
    """Seconds the zygote's descendants (its scenario child and whatever that started) have
    spent runnable and waiting for a CPU; 0 where /proc does not tell (see supported())."""
    return sum(_queue_wait_ns(pid) for pid in descendants(zygote_pid)) / 1e9
