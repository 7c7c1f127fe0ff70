"""How much memory a submission's process can hold outside RLIMIT_AS, per route, in a mode.

A bench helper script (see `modes.py`, `bench/boundary.py`): `python memory_routes.py LIMIT_MIB`
opens a Sandbox with the strongest jail available, and runs one scenario whose submission starts
a fresh interpreter (past the audit guard, as native code could: `mode_probe.SUBMISSION`) that
holds memory through each route in turn, up to LIMIT_MIB each, and releases it before the next:
memfd pages never mapped (1 MiB files: RLIMIT_FSIZE caps one file), user.* extended attributes
on a file of /tmp (64 KiB values), System V segments touched through a mapping then detached.
Prints one JSON object: the isolation and the MiB each route held (or the error that stopped it
first).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from grader.grading.child.scenario import scenario
from grader.grading.sandbox import Limits, Sandbox
from grader.grading.sandbox.jail import available_isolation, default_jail

sys.path.insert(0, str(Path(__file__).parent))
from mode_probe import SUBMISSION  # noqa: E402 - the probe's escape past the audit guard

HOARD = '''
import ctypes, json, os
LIMIT = LIMIT_MIB
MIB = 1 << 20
result = {}

def memfd():
    held = []
    try:
        while len(held) < LIMIT:
            fd = os.memfd_create("hoard")
            os.write(fd, b"x" * MIB)
            held.append(fd)
    except OSError as exc:
        if not held:
            return type(exc).__name__
    for fd in held:
        os.close(fd)
    return len(held)

def xattr():
    path = "/tmp/hoard"
    try:
        open(path, "w").close()
    except OSError as exc:
        return type(exc).__name__
    count = 0
    try:
        while count < LIMIT * 16:
            os.setxattr(path, "user.h%d" % count, b"x" * 65536)
            count += 1
    except OSError as exc:
        if not count:
            return type(exc).__name__
    os.unlink(path)
    return count // 16

def shm():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    made, size = [], 64 * MIB
    while len(made) * 64 < LIMIT:
        segment = libc.shmget(0, size, 0o1000 | 0o600)
        if segment < 0:
            if not made:
                return "errno %d" % ctypes.get_errno()
            break
        made.append(segment)
        address = libc.shmat(segment, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            break
        ctypes.memset(address, 1, size)  # the pages stay with the segment once detached
        libc.shmdt(address)
    for segment in made:
        libc.shmctl(segment, 0, None)  # IPC_RMID
    return len(made) * 64

for name, route in (("memfd", memfd), ("xattr", xattr), ("shm", shm)):
    try:
        result[name] = route()
    except Exception as exc:
        result[name] = type(exc).__name__
print(json.dumps(result))
'''


@scenario
def hoard(Value, code):
    import value

    return {"printed": value.escape(code)}


def main() -> None:
    """Hoard and print what each route held."""
    limit = int(sys.argv[1])
    workdir = Path(tempfile.mkdtemp(prefix="minigrad-memory-routes-"))
    os.chmod(workdir, 0o755)
    (workdir / "value.py").write_text(SUBMISSION, encoding="utf-8")
    os.chmod(workdir / "value.py", 0o644)
    try:
        with Sandbox(workdir, "value", "Value", ("value.py",), Limits(timeout_s=60),
                     jail=default_jail()) as sandbox:
            outcome = sandbox.run(hoard, {"code": HOARD.replace("LIMIT_MIB", str(limit))},
                                  timeout_s=60)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    printed = outcome.value["printed"] if outcome.ok else ""
    try:
        routes = json.loads(printed)
    except ValueError:
        routes = {"unparsed": printed[-300:], "status": outcome.status}
    print(json.dumps({"isolation": available_isolation().as_dict(), "routes": routes}))


if __name__ == "__main__":
    main()
