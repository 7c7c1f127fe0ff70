"""What a submission can reach from inside the sandbox, run as a grader of some mode would run.

A test helper script (see `modes.py`): `python mode_probe.py '<json config>'` opens a Sandbox
with the strongest jail available to this process, runs one scenario whose submission starts a
fresh interpreter (past the audit guard, as native code could) that tries every way out, and
prints one JSON object: the isolation, what each attempt gave, and which of the processes the
attempt left behind are still alive once the scenario has returned.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from grader.grading.child.scenario import scenario
from grader.grading.sandbox import Limits, Sandbox
from grader.grading.sandbox.jail import available_isolation, default_jail

IPC_CREAT, IPC_RMID = 0o1000, 0

# The submission: runs the probe's code in a fresh interpreter, started through the one
# process-creating call that raises no audit event, and returns what it printed.
SUBMISSION = '''
import _posixsubprocess, os

class Value:
    def __init__(self, data):
        self.data = data

def escape(code):
    read, write = os.pipe()
    args = [b"/usr/bin/python3", b"-I", b"-S", b"-c", code.encode()]
    pid = _posixsubprocess.fork_exec(
        args, args[:1], True, (write,), None, None, -1, -1, -1, write, -1, -1, read, write,
        True, True, -1, None, None, None, -1, None, False)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace")
'''

# Runs with no audit hook, as the submission's own process: every way out it can think of.
ATTEMPTS = '''
import json, os, socket, time
IPC_CREAT = 0o1000
config = json.loads(CONFIG)
result = {}

def attempt(name, action):
    try:
        result[name] = action()
    except Exception as exc:
        result[name] = type(exc).__name__

def write(path):
    with open(path, "a") as handle:
        handle.write("probe")
    return "written"

def sleeper():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)  # the pipe to the submission must reach its end
            os.execv("/usr/bin/sleep", ["sleep", config["sleeper"]])
        os._exit(0)
    os.waitpid(pid, 0)
    return "started"

def connect():
    socket.create_connection(("127.0.0.1", config["port"]), timeout=1).close()
    return "connected"

def keyring():
    import ctypes, platform
    number = {"x86_64": 250, "aarch64": 219}[platform.machine()]  # keyctl
    libc = ctypes.CDLL(None, use_errno=True)
    # KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_USER_KEYRING (-4), creating it if need be (1)
    if libc.syscall(number, 0, -4, 1) < 0:
        raise OSError(ctypes.get_errno(), "keyctl refused")
    return "the user's keyring"

def message_queue():
    import ctypes
    # a System V message queue the grader made, open to every uid (0666)
    if ctypes.CDLL(None, use_errno=True).msgget(config["queue_key"], 0) < 0:
        raise OSError(ctypes.get_errno(), "no such queue")
    return "found the grader's queue"

MIB = 1 << 20

def memfd():
    # pages held by a memfd and never mapped: RLIMIT_AS does not count them
    # (1 MiB each: RLIMIT_FSIZE caps one file; the red team's 1.5 GiB was many of them)
    held = []
    for _ in range(64):
        fd = os.memfd_create("hoard")
        os.write(fd, b"x" * MIB)
        held.append(fd)
    return "held %d MiB unmapped" % len(held)

def xattr():
    # user.* attributes: kernel memory outside a tmpfs's size; on a shared file, a channel
    path = "/tmp/xattr-probe" if os.path.isdir("/tmp") and os.access("/tmp", os.W_OK) \
        else os.__file__
    if path != os.__file__:
        open(path, "w").close()
    os.setxattr(path, "user.hoard", b"x" * 65536)
    return "set on " + path

def lock_stdlib():
    # a lock lives on the inode: every jail's root holds the same standard library files
    import fcntl
    handle = open(os.__file__, "rb")
    fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    return "flock on the standard library"

def record_lock_stdlib():
    import fcntl, struct
    handle = open(os.__file__, "rb")
    fcntl.fcntl(handle, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 7, 1, 0))
    return "a byte-range read lock on the standard library"

def ofd_lock_stdlib():
    import fcntl, struct
    handle = open(os.__file__, "rb")
    fcntl.fcntl(handle, 37, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 7, 1, 0))  # F_OFD_SETLK
    return "an open file description lock on the standard library"

def inotify():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify refused")
    if libc.inotify_add_watch(fd, os.__file__.encode(), 0x20 | 0x1) < 0:  # IN_OPEN | IN_ACCESS
        raise OSError(ctypes.get_errno(), "watch refused")
    return "watching the standard library"

def sysv_shm():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
    segment = libc.shmget(0, 64 * MIB, IPC_CREAT | 0o600)  # IPC_PRIVATE
    if segment < 0:
        raise OSError(ctypes.get_errno(), "shmget refused")
    libc.shmctl(segment, 0, None)  # IPC_RMID: the probe leaves nothing behind
    return "made a System V segment"

def posix_mq():
    import ctypes, platform
    number = {"x86_64": 240, "aarch64": 180}[platform.machine()]  # mq_open
    libc = ctypes.CDLL(None, use_errno=True)
    name = b"/minigrad-probe-%d" % os.getpid()
    fd = libc.syscall(number, name, os.O_CREAT | os.O_RDWR, 0o600, None)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "mq_open refused")
    libc.syscall({"x86_64": 241, "aarch64": 181}[platform.machine()], name)  # mq_unlink
    return "made a POSIX message queue"

def signal_grader():
    os.kill(config["grader_pid"], 0)
    return "may signal"

attempt("uid", os.getuid)
attempt("root_listing", lambda: sorted(os.listdir("/")))
attempt("read_solution", lambda: "read %d bytes" % len(open(config["solution"]).read()))
attempt("read_home", lambda: open(config["home_canary"]).read())
attempt("list_proc", lambda: "%d entries" % len(os.listdir("/proc")))
attempt("write_repository", lambda: write(config["repository_marker"]))
attempt("write_host_folder", lambda: write(config["host_marker"]))
attempt("write_tmp", lambda: write(config["tmp_marker"]))
attempt("write_submission", lambda: write("value.py"))
attempt("connect", connect)
attempt("signal_grader", signal_grader)
attempt("keyring", keyring)
attempt("sysv_ipc", message_queue)
attempt("memfd", memfd)
attempt("xattr", xattr)
attempt("flock", lock_stdlib)
attempt("record_lock", record_lock_stdlib)
attempt("ofd_lock", ofd_lock_stdlib)
attempt("inotify", inotify)
attempt("sysv_shm", sysv_shm)
attempt("posix_mq", posix_mq)
attempt("sleeper", sleeper)
print(json.dumps(result))
'''


@scenario
def try_everything(Value, code):
    import value

    return {"printed": value.escape(code)}


def sleepers(marker: str) -> list[int]:
    """Pids of live `sleep <marker>` processes."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if handle.read().split(b"\0")[:2] == [b"sleep", marker.encode()]:
                        found.append(int(entry))
            except OSError:
                continue
    return found


def main() -> None:
    """Probe and print the findings as JSON."""
    import ctypes

    config = json.loads(sys.argv[1])
    config["grader_pid"] = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)
    config["queue_key"] = int.from_bytes(os.urandom(3), "big") + 1
    queue = libc.msgget(config["queue_key"], IPC_CREAT | 0o666)
    workdir = Path(config["workdir"])
    (workdir / "value.py").write_text(SUBMISSION, encoding="utf-8")
    os.chmod(workdir / "value.py", 0o644)
    code = f"CONFIG = {json.dumps(json.dumps(config))}\n{ATTEMPTS}"
    with Sandbox(workdir, "value", "Value", ("value.py",), Limits(timeout_s=10),
                 jail=default_jail()) as sandbox:
        outcome = sandbox.run(try_everything, {"code": code})
        left = sleepers(config["sleeper"])
    libc.msgctl(queue, IPC_RMID, None)
    printed = outcome.value["printed"] if outcome.ok else ""
    try:
        attempts = json.loads(printed)
    except ValueError:
        attempts = {"unparsed": printed[:500], "status": outcome.status, "detail": outcome.detail}
    print(json.dumps({"isolation": available_isolation().as_dict(), "attempts": attempts,
                      "sleepers_left": left}))


if __name__ == "__main__":
    main()
