"""Run a command behind the seccomp filter a Docker container without CAP_SYS_ADMIN gets.

Docker's default profile refuses, to a container without CAP_SYS_ADMIN: unshare, setns,
mount, umount2, pivot_root, clone with any namespace flag, and clone3 (with ENOSYS, so the C
library falls back to clone). This script installs the same refusals (EPERM) and execs the
rest of its command line: `python container_seccomp.py setpriv ... -- program args`.
x86_64 only. Must start as root (installing a filter without no_new_privs needs
CAP_SYS_ADMIN, which the command it execs may then drop).
"""

from __future__ import annotations

import ctypes
import os
import sys

AUDIT_ARCH_X86_64 = 0xC000003E
NR_CLONE, NR_CLONE3 = 56, 435
REFUSED = {"unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155}
NAMESPACE_FLAGS = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
EPERM, ENOSYS = 1, 38
RET_ALLOW, RET_ERRNO, RET_KILL = 0x7FFF0000, 0x00050000, 0
LD_ABS_W, JEQ, JSET, RET = 0x20, 0x15, 0x45, 0x06
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(SockFilter))]


def program() -> list[tuple[int, int, int, int]]:
    """The BPF program: (code, jump if true, jump if false, constant) per instruction."""
    lines = [
        (LD_ABS_W, 0, 0, 4),                       # arch
        (JEQ, 1, 0, AUDIT_ARCH_X86_64),
        (RET, 0, 0, RET_KILL),
        (LD_ABS_W, 0, 0, 0),                       # syscall number
        (JEQ, 0, 1, NR_CLONE3),
        (RET, 0, 0, RET_ERRNO | ENOSYS),
    ]
    for number in REFUSED.values():
        lines += [(JEQ, 0, 1, number), (RET, 0, 0, RET_ERRNO | EPERM)]
    lines += [
        (JEQ, 1, 0, NR_CLONE),
        (RET, 0, 0, RET_ALLOW),
        (LD_ABS_W, 0, 0, 16),                      # clone's flags (low half)
        (JSET, 0, 1, NAMESPACE_FLAGS),
        (RET, 0, 0, RET_ERRNO | EPERM),
        (RET, 0, 0, RET_ALLOW),
    ]
    return lines


def main() -> None:
    """Install the filter and exec the command."""
    lines = program()
    filters = (SockFilter * len(lines))(*(SockFilter(*line) for line in lines))
    fprog = SockFprog(len(lines), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
