"""The shard's zygote: one warm process per interpreter that forks every submission's zygote.

Side: trusted process (it starts the shard zygote and talks to it; no student code runs in it).

Starting Python, importing what the jail entry needs and compiling the graph helpers is most
of a sandbox's start. The shard zygote does that once (`grader/child/bootstrap.py`, `main`)
and then forks one process per submission on request: that process takes its own session,
its own pipes and folder and nothing else, and only then enters its jail (its own uid,
namespaces and limits, as a zygote started from scratch would), so no classmate ever runs in
a process another one ran in. The trusted side watches each forked zygote through a pidfd:
it is not this process's child, and a pidfd names exactly that process, never a later one
that reuses its pid.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import threading
from pathlib import Path

from grader.child.scenario import HELPERS_SOURCE
from grader.sandbox import protocol

CHILD_SOURCE = (Path(__file__).parent.parent / "child" / "bootstrap.py").read_text(encoding="utf-8")
# Pids of every live shard zygote and submission zygote of this process: an orphan sweep
# must spare them, or closing one sandbox would kill another's zygote.
LIVE_ZYGOTES: set[int] = set()
STOP_WAIT_S = 1.0  # how long a shard zygote may take to end once its socket is closed


class ForkedZygote:
    """A submission's zygote forked by the shard zygote: its pid, its request pipe, its pidfd."""

    def __init__(self, pid: int, stdin_fd: int) -> None:
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        self.stdin = os.fdopen(stdin_fd, "wb")

    def kill(self) -> None:
        """SIGKILL the zygote's process group (and the zygote itself, should it not have made
        its own session yet), then wait until it has ended."""
        if self.pidfd < 0:
            return
        for send in (lambda: signal.pidfd_send_signal(self.pidfd, signal.SIGKILL),
                     lambda: os.killpg(self.pid, signal.SIGKILL)):
            try:
                send()
            except (ProcessLookupError, PermissionError):
                pass
        select.select([self.pidfd], [], [])  # readable once the process has ended
        os.close(self.pidfd)
        self.pidfd = -1
        LIVE_ZYGOTES.discard(self.pid)


class ShardZygote:
    """One shard zygote for one interpreter, started on first use, restarted if it died."""

    def __init__(self, interpreter: str) -> None:
        self.interpreter = interpreter
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._lock = threading.Lock()  # one request and its reply at a time

    def fork(self, folder: Path, result_w: int, output_w: int) -> ForkedZygote:
        """A new submission zygote with `folder` as its cwd, writing replies to result_w and
        output to output_w (both stay open here: the caller closes its copies)."""
        stdin_r, stdin_w = os.pipe()
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            with self._lock:
                try:
                    pid = self._request((stdin_r, result_w, output_w, folder_fd))
                except (OSError, EOFError, ValueError):
                    self.close()  # it died: a fresh one, once
                    pid = self._request((stdin_r, result_w, output_w, folder_fd))
                zygote = ForkedZygote(pid, stdin_w)  # before the next request can reap it
        except BaseException:
            os.close(stdin_w)
            raise
        finally:
            os.close(stdin_r)
            os.close(folder_fd)
        LIVE_ZYGOTES.add(pid)
        return zygote

    def _request(self, fds: tuple[int, int, int, int]) -> int:
        control = self._control or self._start()
        socket.send_fds(control, [b"fork"], list(fds))
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
        if self._process is not None:
            try:  # the closed socket is its signal to end
                self._process.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            LIVE_ZYGOTES.discard(self._process.pid)
            self._process = None


class ShardZygotes:
    """The shard zygotes of one pytest session (one per interpreter the jails use)."""

    def __init__(self) -> None:
        self._by_interpreter: dict[str, ShardZygote] = {}

    def for_interpreter(self, interpreter: str) -> ShardZygote:
        """The shard zygote running `interpreter`, made on first use."""
        if interpreter not in self._by_interpreter:
            self._by_interpreter[interpreter] = ShardZygote(interpreter)
        return self._by_interpreter[interpreter]

    def close(self) -> None:
        """Stop every shard zygote."""
        for zygote in self._by_interpreter.values():
            zygote.close()
        self._by_interpreter.clear()
