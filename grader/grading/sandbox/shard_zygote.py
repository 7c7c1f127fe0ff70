"""The shard's zygote: one warm process per interpreter that forks every submission's zygote.

Side: trusted process (it starts the shard zygote and talks to it; no student code runs in it).

Starting Python, importing what the jail entry needs and compiling the graph helpers is most
of a sandbox's start. The shard zygote does that once (`grader/grading/child/bootstrap.py`, `main`)
and then forks one process per submission on request: that process takes its own session,
its own pipes and folder and nothing else, and only then enters its jail (its own uid,
namespaces and limits, as a zygote started from scratch would), so no classmate ever runs in
a process another one ran in. A forked zygote is the shard zygote's child, not this
process's: the shard zygote reaps it when asked (`wait`), after the trusted side has killed it,
so its pid names no other process while it is signalled (portable: no pidfd, which macOS
lacks).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from pathlib import Path

from grader.grading.child.scenario import HELPERS_SOURCE
from grader.grading.sandbox import protocol

CHILD_SOURCE = (Path(__file__).parent.parent / "child" / "bootstrap.py").read_text(encoding="utf-8")
# Pids of every live shard zygote and submission zygote of this process: an orphan sweep
# must spare them, or closing one sandbox would kill another's zygote.
LIVE_ZYGOTES: set[int] = set()
STOP_WAIT_S = 1.0  # how long a shard zygote may take to end once its socket is closed


class ForkedZygote:
    """A submission's zygote forked by the shard zygote: its pid and its request pipe."""

    def __init__(self, pid: int, stdin_fd: int, parent: ShardZygote) -> None:
        self.pid = pid
        self.stdin = os.fdopen(stdin_fd, "wb")
        self.parent = parent
        self.ended = False

    def kill(self) -> None:
        """SIGKILL the zygote's process group (and the zygote itself, should it not have made
        its own session yet), then wait until it has ended and been reaped."""
        if self.ended:
            return
        for send in (os.kill, os.killpg):
            try:
                send(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.parent.reap(self.pid)
        self.ended = True
        LIVE_ZYGOTES.discard(self.pid)


class ShardZygote:
    """One shard zygote for one interpreter, started on first use, restarted if it died."""

    def __init__(self, interpreter: str) -> None:
        self.interpreter = interpreter
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._lock = threading.Lock()  # one request and its reply at a time
        self._children: set[int] = set()  # the zygotes the running shard zygote forked

    def start(self) -> None:
        """Start the shard zygote now, if it is not running, without waiting for it: it gets
        ready (Python started, the jail entry imported) while the caller does other work."""
        with self._lock:
            if self._control is None:
                self._start()

    def fork(self, folder: Path, result_w: int, output_w: int) -> ForkedZygote:
        """A new submission zygote with `folder` as its cwd, writing replies to result_w and
        output to output_w (both stay open here: the caller closes its copies)."""
        stdin_r, stdin_w = os.pipe()
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            with self._lock:
                fds = (stdin_r, result_w, output_w, folder_fd)
                try:
                    pid = self._request(b"fork", fds)
                except (OSError, EOFError, ValueError):
                    self.close()  # it died: a fresh one, once
                    pid = self._request(b"fork", fds)
                self._children.add(pid)
                zygote = ForkedZygote(pid, stdin_w, self)
        except BaseException:
            os.close(stdin_w)
            raise
        finally:
            os.close(stdin_r)
            os.close(folder_fd)
        LIVE_ZYGOTES.add(pid)
        return zygote

    def reap(self, pid: int) -> None:
        """Wait until the killed zygote `pid` has ended and reap it: the shard zygote does, if
        it forked it; this process does if it is its subreaper since (the shard zygote that
        forked it has died)."""
        with self._lock:
            if pid in self._children:
                self._children.discard(pid)
                try:
                    self._request(b"wait %d" % pid, ())
                    return
                except (OSError, EOFError, ValueError):
                    pass  # the shard zygote died: its children came to this process
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass

    def _request(self, message: bytes, fds: tuple[int, ...]) -> int:
        control = self._control or self._start()
        socket.send_fds(control, [message], list(fds))
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = control.recv(32)
            if not chunk:
                raise EOFError("the shard zygote ended")
            reply += chunk
        return int(reply)

    def _start(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            process = subprocess.Popen(
                # -u: the student's output is written as it is printed, so a child has nothing
                # to flush once it has replied (a flush is code a submission can make block)
                [self.interpreter, "-I", "-S", "-u", "-c", CHILD_SOURCE],
                cwd="/", env={}, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),), start_new_session=True)
        finally:
            theirs_fd = theirs.fileno()
            theirs.close()
        assert process.stdin is not None
        process.stdin.write(protocol.encode_frame(
            {"control_fd": theirs_fd, "helpers_source": HELPERS_SOURCE}))
        process.stdin.close()
        LIVE_ZYGOTES.add(process.pid)
        self._process, self._control = process, ours
        return ours

    def close(self) -> None:
        """Stop the shard zygote (its submission zygotes live on until their pipes close)."""
        if self._control is not None:
            self._control.close()
            self._control = None
        self._children.clear()
        if self._process is not None:
            try:  # the closed socket is its signal to end
                self._process.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            LIVE_ZYGOTES.discard(self._process.pid)
            self._process = None


# Shard zygotes started before this process imported pytest (`start_early`), for the pytest
# session it then runs to take over (`ShardZygotes.for_interpreter`): they boot meanwhile.
_STARTED_EARLY: dict[str, ShardZygote] = {}


def start_early(interpreter: str) -> None:
    """Start the shard zygote of `interpreter` for this process's next pytest session."""
    if interpreter not in _STARTED_EARLY:
        zygote = ShardZygote(interpreter)
        zygote.start()
        _STARTED_EARLY[interpreter] = zygote


def close_early() -> None:
    """Stop the zygotes started early that no session took."""
    for zygote in _STARTED_EARLY.values():
        zygote.close()
    _STARTED_EARLY.clear()


class ShardZygotes:
    """The shard zygotes of one pytest session (one per interpreter the jails use)."""

    def __init__(self) -> None:
        self._by_interpreter: dict[str, ShardZygote] = {}

    def prestart(self, interpreter: str) -> None:
        """Start the shard zygote of `interpreter` now, so that it is ready by the first fork."""
        self.for_interpreter(interpreter).start()

    def for_interpreter(self, interpreter: str) -> ShardZygote:
        """The shard zygote running `interpreter`, made on first use."""
        if interpreter not in self._by_interpreter:
            early = _STARTED_EARLY.pop(interpreter, None)
            self._by_interpreter[interpreter] = early or ShardZygote(interpreter)
        return self._by_interpreter[interpreter]

    def close(self) -> None:
        """Stop every shard zygote."""
        for zygote in self._by_interpreter.values():
            zygote.close()
        self._by_interpreter.clear()
