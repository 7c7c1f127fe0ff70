"""The sandbox child's bootstrap: limits itself, imports the submission, then forks one child per scenario.

This file is never imported by the grader. Its source is passed to `python -I -S -c` in a
scratch directory. Everything before the submission is imported is trusted; everything
after is not, which is why the parent trusts nothing it receives beyond plain JSON.

Frames are `<length>\n<json bytes>`. Requests arrive on stdin; replies go to the result fd.
"""

import json
import os
import resource
import signal
import sys
import traceback


def read_frame(stream):
    header = stream.readline()
    if not header:
        return None
    return json.loads(stream.read(int(header)))


def write_frame(fd, message):
    payload = json.dumps(message, allow_nan=True).encode("utf-8")
    data = b"%d\n" % len(payload) + payload
    while data:
        data = data[os.write(fd, data):]


def apply_limits(limits):
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"], limits["file_bytes"]))
    cpu = limits["zygote_cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if limits.get("processes"):
        resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))


CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_REC, MS_PRIVATE = 16384, 1 << 18
SUBMISSION_DIR = "/tmp/submission"
PR_SET_NO_NEW_PRIVS = 38


def enter_jail(jail):
    """As root: a new mount and network namespace, secrets covered, then an unprivileged uid."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def check(result, what):
        if result != 0:
            raise OSError(ctypes.get_errno(), f"jail: {what} failed")

    def mount_tmpfs(path, options):
        flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
        check(libc.mount(b"tmpfs", path.encode(), b"tmpfs", flags, options.encode()), path)

    check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET), "unshare")
    check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")
    for path in jail["private_tmp"]:
        if os.path.isdir(path):
            mount_tmpfs(path, f"size={jail['tmp_bytes']},mode=1777")
    # The submission folder reappears, read-only, at a fixed path inside the private /tmp.
    # "." still names it here: the process cwd survives the mounts that cover its path.
    os.mkdir(SUBMISSION_DIR, 0o755)
    check(libc.mount(b".", SUBMISSION_DIR.encode(), None, MS_BIND, None), "bind submission")
    check(libc.mount(None, SUBMISSION_DIR.encode(), None,
                     MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None), "read-only")
    for path in jail["hide"]:
        if os.path.isdir(path):
            mount_tmpfs(path, "size=64k,mode=0755")
    os.chdir(SUBMISSION_DIR)
    os.setgroups([])
    os.setgid(jail["gid"])
    os.setuid(jail["uid"])
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def student_frames(tb, submission_files):
    """Traceback lines that point into the submission's own files, capped."""
    frames = [f for f in traceback.extract_tb(tb) if os.path.basename(f.filename) in submission_files]
    lines = [f"{os.path.basename(f.filename)}, line {f.lineno}, in {f.name}" for f in frames[-3:]]
    return "; ".join(lines)


def describe_exception(exc, submission_files):
    message = str(exc)
    if len(message) > 500:
        message = message[:500] + "..."
    return {
        "type": type(exc).__name__,
        "message": message,
        "where": student_frames(exc.__traceback__, submission_files),
    }


def run_scenario(request, student_class, kit_namespace, result_fd, submission_files):
    """In the forked child: run one scenario and write its reply; never returns."""
    cpu = request["cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:
        namespace = dict(kit_namespace)
        exec(compile(request["source"], "<scenario>", "exec"), namespace)
        value = namespace[request["name"]](student_class, **request["params"])
        reply = {"status": "ok", "value": value}
    except kit_namespace["WrongType"] as exc:
        reply = {"status": "wrong-type", "quantity": exc.quantity,
                 "actual_type": exc.actual_type, "expected_type": exc.expected_type}
    except BaseException as exc:  # the student's code may raise anything, SystemExit included
        reply = {"status": "exception", **describe_exception(exc, submission_files)}
    try:
        write_frame(result_fd, reply)
    except (TypeError, ValueError) as exc:
        write_frame(result_fd, {"status": "bad-result", "reason": str(exc)[:200]})
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def serve(config, result_fd):
    kit_namespace = {"__name__": "grader_kit"}
    exec(compile(config["kit_source"], "<kit>", "exec"), kit_namespace)
    submission_files = set(config["files"])
    sys.path.append(os.getcwd())
    try:
        module = __import__(config["module"])
        name = config["class_name"]
        student_class = getattr(module, name) if name else module
    except BaseException as exc:
        write_frame(result_fd, {"status": "import-error", **describe_exception(exc, submission_files)})
        return
    write_frame(result_fd, {"status": "ready"})
    stdin = sys.stdin.buffer
    while True:
        request = read_frame(stdin)
        if request is None:
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            run_scenario(request, student_class, kit_namespace, result_fd, submission_files)
        _, status = os.waitpid(pid, 0)
        write_frame(result_fd, {"status": "exited", "code": os.waitstatus_to_exitcode(status)})


def main():
    stdin = sys.stdin.buffer
    config = read_frame(stdin)
    result_fd = config["result_fd"]
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if config.get("jail"):
        enter_jail(config["jail"])
    apply_limits(config["limits"])
    serve(config, result_fd)
    os._exit(0)


main()
