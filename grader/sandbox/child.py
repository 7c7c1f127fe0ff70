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


def drop_privileges(config):
    uid = config.get("uid")
    if uid is None:
        return
    os.setgroups([])
    os.setgid(config["gid"])
    os.setuid(uid)


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
    drop_privileges(config)
    apply_limits(config["limits"])
    serve(config, result_fd)
    os._exit(0)


main()
