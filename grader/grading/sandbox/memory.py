"""The memory of a whole submission (all its processes) bounded by a cgroup, where one is
delegated to the grader.

Side: trusted process.

A memory cgroup can be had where this process may create a child of its own cgroup with the
memory controller: as root on a machine whose cgroup file system is writable (cgroup v1, or v2
with the memory controller enabled below this process's cgroup), or as a user to whom systemd
or a container runtime delegated a cgroup subtree with the memory controller. Elsewhere the
bound is the per-process RLIMIT_AS times RLIMIT_NPROC (see `Isolation.memory`).
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

_GROUP_NUMBERS = itertools.count()
PROBE_BYTES = 64 << 20


@dataclass(frozen=True)
class Hierarchy:
    """Where this process's memory cgroup lives and which interface it speaks."""

    directory: Path  # this process's own cgroup
    version: int  # 1 or 2

    @property
    def limit_file(self) -> str:
        """The file holding a cgroup's memory limit."""
        return "memory.limit_in_bytes" if self.version == 1 else "memory.max"

    @property
    def swap_file(self) -> str:
        """The file bounding memory plus swap (v1) or swap alone (v2), where swap exists."""
        return "memory.memsw.limit_in_bytes" if self.version == 1 else "memory.swap.max"


def _mounts() -> list[tuple[str, str, str, str]]:
    """(mount root, mount point, file system type, super options) of every mount."""
    mounts = []
    with open("/proc/self/mountinfo", encoding="utf-8") as handle:
        for line in handle:
            before, _, after = line.partition(" - ")
            fields, tail = before.split(), after.split()
            if len(fields) >= 5 and len(tail) >= 3:
                mounts.append((fields[3], fields[4], tail[0], tail[2]))
    return mounts


def _own_cgroups() -> dict[str, str]:
    """controller list ("" for cgroup v2) -> this process's cgroup path."""
    groups = {}
    with open("/proc/self/cgroup", encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) == 3:
                groups[parts[1]] = parts[2]
    return groups


def _join(mount_root: str, mount_point: str, path: str) -> Path:
    relative = path[len(mount_root):] if path.startswith(mount_root) and mount_root != "/" else path
    return Path(mount_point) / relative.lstrip("/")


def find_hierarchy() -> Hierarchy | None:
    """This process's memory cgroup, where the memory controller is mounted at all."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        mounts, groups = _mounts(), _own_cgroups()
    except OSError:
        return None
    for root, point, fstype, options in mounts:
        if fstype == "cgroup" and "memory" in options.split(","):
            path = next((p for keys, p in groups.items() if "memory" in keys.split(",")), None)
            if path is not None:
                return Hierarchy(_join(root, point, path), 1)
    for root, point, fstype, _ in mounts:
        if fstype == "cgroup2" and "" in groups:
            directory = _join(root, point, groups[""])
            try:
                enabled = (directory / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if "memory" in enabled:
                return Hierarchy(directory, 2)
    return None


class MemoryGroup:
    """One memory cgroup bounding every process of one submission; remove with close()."""

    def __init__(self, hierarchy: Hierarchy, directory: Path, limit_bytes: int) -> None:
        self.hierarchy = hierarchy
        self.directory = directory
        self.limit_bytes = limit_bytes

    @classmethod
    def create(cls, limit_bytes: int) -> MemoryGroup | None:
        """A new cgroup limited to limit_bytes (swap included), or None where this process
        has no delegated memory cgroup."""
        hierarchy = find_hierarchy()
        if hierarchy is None:
            return None
        directory = hierarchy.directory / f"minigrad-{os.getpid()}-{next(_GROUP_NUMBERS)}"
        try:
            directory.mkdir()
        except OSError:
            return None
        group = cls(hierarchy, directory, limit_bytes)
        try:
            group._write(hierarchy.limit_file, str(limit_bytes))
            if (directory / hierarchy.swap_file).exists():
                # v1 bounds memory+swap (it must not be below the memory limit); v2 swap alone
                group._write(hierarchy.swap_file, str(limit_bytes if hierarchy.version == 1 else 0))
        except OSError:
            group.close()
            return None
        return group

    def _write(self, name: str, value: str) -> None:
        (self.directory / name).write_text(value + "\n", encoding="ascii")

    def add(self, pid: int) -> bool:
        """Move a process (and so every process it starts afterwards) into the group."""
        try:
            self._write("cgroup.procs", str(pid))
        except OSError:
            return False
        return True

    def pids(self) -> list[int]:
        """The processes in the group now."""
        try:
            text = (self.directory / "cgroup.procs").read_text(encoding="ascii")
        except OSError:
            return []
        return [int(word) for word in text.split()]

    def oom_kills(self) -> int:
        """How many processes of the group the kernel killed for want of memory so far."""
        name = "memory.events" if self.hierarchy.version == 2 else "memory.oom_control"
        try:
            for line in (self.directory / name).read_text(encoding="ascii").splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def close(self) -> None:
        """Kill whatever is left in the group and remove it."""
        for _ in range(100):
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                self.directory.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.01)  # processes still exiting


@functools.lru_cache(maxsize=1)
def memory_cgroups_delegated() -> bool:
    """Whether this process can bound a submission's memory with a cgroup (probed once)."""
    group = MemoryGroup.create(PROBE_BYTES)
    if group is None:
        return False
    group.close()
    return True
