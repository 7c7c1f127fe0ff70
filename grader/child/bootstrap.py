"""The sandbox child's bootstrap: a zygote that never runs student code, and one child per scenario.

Side: sandbox child (the zygote is set up by the trusted process but runs this file alone).

This file is never imported by the grader. Its source is passed to `python -I -S -c` in a
scratch directory. The zygote (this process) limits itself, enters the jail, compiles the
submission's files WITHOUT running them, and then, for every request, forks a child that
imports the submission and runs the scenario. Student code therefore only ever runs in a
child that holds one request, cannot read the request pipe (its stdin is /dev/null), and
runs under an audit hook that refuses what would let it reach the bootstrap's state or
outlive the check: frames, the garbage collector, tracing, forking, signals to other
processes, sockets, ctypes, reading /proc. Replies are encoded with the C JSON encoder
captured before any student code exists, so patching the json module changes nothing.

Frames are `<length>\n<json bytes>`. Requests arrive on stdin; replies go to the result fd.
"""

import _thread
import json
import os
import resource
import signal
import sys
import traceback

# Captured before any student code runs: the C scanner and encoder, and the os calls used
# on the reply path.
SCAN = json.decoder.JSONDecoder().scan_once
C_ENCODER = json.encoder.c_make_encoder
ENCODE_STRING = json.encoder.c_encode_basestring_ascii
WRITE, FORK, WAITPID, EXIT = os.write, os.fork, os.waitpid, os._exit
GET_IDENT = _thread.get_ident

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_REC, MS_PRIVATE = 16384, 1 << 18
PR_SET_NO_NEW_PRIVS = 38
SUBMISSION_DIR = "/tmp/submission"
NEW_ROOT = "/tmp"  # exists everywhere; the jail mounts a fresh tmpfs over it as the new root
SYSTEM_DIRS = ("usr", "bin", "lib", "lib32", "lib64", "libx32", "sbin")
DEVICES = ("null", "zero", "random", "urandom")
# Standard modules submissions commonly use, imported once here so each child starts warm.
WARM_MODULES = ("math", "random", "functools", "itertools", "collections", "operator",
                "dataclasses", "typing", "numbers")

# Standard modules allowed to call sys._getframe: they read the caller's module name and
# never hand the frame to the caller (namedtuple, Enum, TypeVar need this).
FRAME_READERS = ("typing.py", "enum.py", "collections/__init__.py", "warnings.py")
BLOCKED_EVENTS = frozenset({
    "sys._current_frames", "sys.settrace", "sys.setprofile",
    "sys.addaudithook", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.spawn", "os.posix_spawn",
    "os.kill", "os.killpg", "subprocess.Popen", "pty.spawn", "signal.pthread_kill",
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "ctypes.call_function",
    "resource.setrlimit", "resource.prlimit", "code.__new__", "function.__new__",
})
# Frame-bearing attributes (the audited ways to a frame other than sys._getframe).
BLOCKED_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
PATH_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "os.chdir"})


def read_frame(stream):
    header = stream.readline()
    if not header:
        return None
    payload = stream.read(int(header)).decode("utf-8")
    return SCAN(payload, 0)[0]


def refuse(value):
    raise TypeError(f"{type(value).__name__} is not plain data")


ENCODE = C_ENCODER(None, refuse, ENCODE_STRING, None, ":", ",", False, False, True)


def write_frame(fd, message):
    payload = "".join(ENCODE(message, 0)).encode("utf-8")
    data = b"%d\n" % len(payload) + payload
    while data:
        data = data[WRITE(fd, data):]


def install_guard():
    """An audit hook refusing escape hatches while armed; returns the switch (armed, thread).

    The switch lives only in this closure and in the bootstrap's locals, which student code
    cannot reach without the very frames and gc calls the hook refuses.
    """
    state = {"armed": False, "trusted_thread": None, "inside": False}
    stdlib = os.path.dirname(os.__file__) + os.sep

    def frame_reader_allowed():
        """Whether the code calling sys._getframe is one of FRAME_READERS."""
        state["inside"] = True  # the sys._getframe below raises this very event again
        try:
            filename = sys._getframe(2).f_code.co_filename
        finally:
            state["inside"] = False
        return filename.startswith(stdlib) and filename[len(stdlib):] in FRAME_READERS

    def guard(event, args):
        if state["inside"] or not state["armed"] or state["trusted_thread"] == GET_IDENT():
            return
        if event == "sys._getframe" and not frame_reader_allowed():
            raise RuntimeError("the grader's sandbox does not allow sys._getframe in a submission")
        if event == "compile" and len(args) > 1 and isinstance(args[1], str) \
                and args[1].startswith(stdlib):
            raise RuntimeError("the grader's sandbox does not allow compiling as a standard module")
        if event in ("os.kill", "os.killpg") and args and args[0] in (0, os.getpid()):
            return  # signalling itself (or its own group) harms nobody else
        if event in BLOCKED_EVENTS:
            raise RuntimeError(f"the grader's sandbox does not allow {event} in a submission")
        if event == "object.__getattr__" and len(args) > 1 and args[1] in BLOCKED_ATTRIBUTES:
            raise RuntimeError(f"the grader's sandbox does not allow reading {args[1]}")
        if event in PATH_EVENTS and args and isinstance(args[0], str | bytes):
            path = args[0] if isinstance(args[0], str) else args[0].decode("utf-8", "replace")
            if path.startswith("/proc") or path.startswith("/sys"):
                raise RuntimeError(f"the grader's sandbox does not allow {event} on {path}")

    sys.addaudithook(guard)

    def switch(armed, trusted=False):
        state["armed"] = armed
        state["trusted_thread"] = GET_IDENT() if trusted else None

    return switch


def apply_limits(limits):
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"], limits["file_bytes"]))
    cpu = limits["zygote_cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if limits.get("processes"):
        resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))


def enter_jail(jail):
    """As root: new mount and network namespaces, a new root holding only the system's
    programs and libraries (read-only), a few devices, a private /tmp and the submission
    (read-only); then an unprivileged uid. Nothing else of the machine is visible."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def check(result, what):
        if result != 0:
            raise OSError(ctypes.get_errno(), f"jail: {what} failed")

    def bind(source, target, read_only=True):
        check(libc.mount(source.encode(), target.encode(), None, MS_BIND | MS_REC, None), target)
        if read_only:
            flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
            check(libc.mount(None, target.encode(), None, flags, None), f"read-only {target}")

    check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET), "unshare")
    check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")
    root = NEW_ROOT
    options = f"size={jail['tmp_bytes']},mode=0755".encode()
    check(libc.mount(b"tmpfs", root.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options), "new root")
    for name in SYSTEM_DIRS:
        path = "/" + name
        if os.path.islink(path):
            os.symlink(os.readlink(path), root + path)
        elif os.path.isdir(path):
            os.mkdir(root + path)
            bind(path, root + path)
    for path in sys.path:  # the interpreter's own library folders, wherever they are
        if os.path.isdir(path) and not os.path.exists(root + path):
            os.makedirs(root + path)
            bind(path, root + path)
    os.mkdir(root + "/dev")
    for device in DEVICES:
        open(root + "/dev/" + device, "w").close()
        bind("/dev/" + device, root + "/dev/" + device, read_only=False)
    os.mkdir(root + "/tmp")
    os.chmod(root + "/tmp", 0o1777)
    os.mkdir(root + SUBMISSION_DIR, 0o755)
    bind(".", root + SUBMISSION_DIR)  # "." is still the submission: the cwd survives mounts
    os.chroot(root)
    os.chdir(SUBMISSION_DIR)
    os.setgroups([])
    os.setgid(jail["gid"])
    os.setuid(jail["uid"])
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def compile_submission(files, directory):
    """Code objects of the submission's modules (compiling runs none of their code)."""
    codes = {}
    for name in files:
        path = os.path.join(directory, name)
        with open(path, "rb") as handle:
            source = handle.read()
        codes[os.path.splitext(name)[0]] = (compile(source, path, "exec", dont_inherit=True), path)
    return codes


class PrecompiledFinder:
    """Serves the submission's modules from code objects compiled by the zygote."""

    def __init__(self, codes):
        self.codes = codes

    def find_spec(self, name, path=None, target=None):
        if name not in self.codes:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, self, origin=self.codes[name][1])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        code, path = self.codes[module.__name__]
        module.__file__ = path
        exec(code, module.__dict__)


def student_frames(tb, submission_files):
    """Traceback lines that point into the submission's own files, capped."""
    frames = [f for f in traceback.extract_tb(tb) if os.path.basename(f.filename) in submission_files]
    return "; ".join(f"{os.path.basename(f.filename)}, line {f.lineno}, in {f.name}"
                     for f in frames[-3:])


def describe_exception(exc, submission_files, switch):
    """Type, message and the student's own traceback lines of an exception."""
    try:
        message = str(exc)  # student code may run here: still under the guard
    except BaseException:
        message = "(the exception's message could not be read)"
    if len(message) > 500:
        message = message[:500] + "..."
    import gc

    gc.disable()  # no student finalizer runs while this thread reads the traceback unguarded
    switch(True, trusted=True)
    try:
        where = student_frames(exc.__traceback__, submission_files)
    finally:
        switch(True)
        gc.enable()
    return {"type": type(exc).__name__, "message": message, "where": where}


def run_child(request, config, helpers, result_fd, switch):
    """In a forked child: import the submission, run one scenario, reply; never returns."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the request pipe stays with the zygote
    os.close(devnull)
    cpu = request.get("cpu_s", 5)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    files = set(config["files"])
    switch(True)
    try:
        module = __import__(config["module"])
        name = config["class_name"]
        target = getattr(module, name) if name else module
    except BaseException as exc:  # the student's module may raise anything at import
        reply = {"status": "import-error", **describe_exception(exc, files, switch)}
    else:
        if request.get("probe"):
            reply = {"status": "ready"}
        else:
            reply = run_scenario(request, target, helpers, files, switch)
    try:
        write_frame(result_fd, reply)
    except (TypeError, ValueError, OverflowError) as exc:
        write_frame(result_fd, {"status": "bad-result", "reason": str(exc)[:200]})
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        EXIT(0)


def run_scenario(request, target, helpers, files, switch):
    """The reply for one scenario run against the student's class or module."""
    try:
        namespace = dict(helpers)
        exec(request["code"], namespace)
        value = namespace[request["name"]](target, **request["params"])
        return {"status": "ok", "value": value}
    except helpers["WrongType"] as exc:
        return {"status": "wrong-type", "quantity": exc.quantity,
                "actual_type": exc.actual_type, "expected_type": exc.expected_type}
    except BaseException as exc:  # the student's code may raise anything, SystemExit included
        return {"status": "exception", **describe_exception(exc, files, switch)}


def fork_child(request, config, helpers, result_fd, switch):
    """Fork, run the request in the child, wait, and report how the child ended."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = FORK()
    if pid == 0:
        run_child(request, config, helpers, result_fd, switch)
    _, status = WAITPID(pid, 0)
    write_frame(result_fd, {"status": "exited", "code": os.waitstatus_to_exitcode(status)})


def main():
    stdin = sys.stdin.buffer
    config = read_frame(stdin)
    result_fd = config["result_fd"]
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if config.get("jail"):
        enter_jail(config["jail"])
    apply_limits(config["limits"])
    for name in WARM_MODULES:
        __import__(name)
    import importlib.util  # noqa: F401 - warm for the finder

    try:
        codes = compile_submission(config["files"], os.getcwd())
    except (SyntaxError, ValueError, OSError) as exc:
        detail = {"type": type(exc).__name__, "message": str(exc)[:500], "where": ""}
        if isinstance(exc, SyntaxError):
            detail["where"] = f"{os.path.basename(exc.filename or '')}, line {exc.lineno}"
        write_frame(result_fd, {"status": "import-error", **detail})
        write_frame(result_fd, {"status": "exited", "code": 0})
        return
    sys.meta_path.insert(0, PrecompiledFinder(codes))
    sys.path.append(os.getcwd())  # for support files imported by name
    switch = install_guard()
    # Trusted work done once here, inherited by every child: the helpers, compiled scenarios.
    helpers = {"__name__": "grader_graph_helpers"}
    exec(compile(config["helpers_source"], "<graph helpers>", "exec"), helpers)
    compiled = {}
    fork_child({"probe": True}, config, helpers, result_fd, switch)
    while True:
        request = read_frame(stdin)
        if request is None:
            return
        source = request["source"]
        if source not in compiled:
            compiled[source] = compile(source, "<scenario>", "exec")
        request["code"] = compiled[source]
        fork_child(request, config, helpers, result_fd, switch)


main()
EXIT(0)
