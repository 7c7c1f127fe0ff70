"""Running scenarios against a submission in a limited, killable child process (the zygote).

Side: trusted process.

One zygote per submission, forked from the shard's zygote (`shard_zygote`), enters its jail,
compiles the student's files without running them, probes that they import, then forks a
fresh child per scenario that imports them and runs the scenario (`grader/grading/child/bootstrap.py`),
so isolation costs a fork, not an interpreter start, and student code never runs in the
process that holds the request pipe. Every reply is decoded by `protocol`; a
timeout (of the child's own time: waiting for a CPU on a busy machine does not count, see
`run_queue`) kills the zygote's whole process group and the next scenario starts a new zygote;
after every scenario whatever the child left running is killed and reaped. Nothing but
plain data ever comes back.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.common.text import clean_text
from grader.grading.child.scenario import Scenario
from grader.grading.sandbox import protocol, reaper, reply_schemas, run_queue
from grader.grading.sandbox.jail import Isolation, Jail, isolation_of, kill_uid
from grader.grading.sandbox.memory import MemoryGroup, memory_cgroups_delegated
from grader.grading.sandbox.shard_zygote import LIVE_ZYGOTES, ForkedZygote, ShardZygote

# A zygote restarted after a timeout or a crash gets this many tries at its import probe, each
# with RESTART_PATIENCE times the time of the one before.
RESTART_ATTEMPTS = 3
RESTART_PATIENCE = 3.0
# A scenario's deadline moves on by the time its child waited for a CPU (run_queue), up to this
# many times its limit in all: a busy machine fails no one, and an endless loop still ends.
MAX_STRETCH = 8.0
STRETCH_STEP_S = 0.01  # a wait shorter than this moves no deadline


@dataclass(frozen=True)
class Limits:
    """Resource limits for one submission's sandbox."""

    timeout_s: float = 2.0
    import_timeout_s: float = 5.0
    cpu_s: int = 3
    zygote_cpu_s: int = 60
    memory_bytes: int = 1 << 30  # per process (RLIMIT_AS)
    submission_memory_bytes: int = 1 << 30  # all of a submission's processes together
    file_bytes: int = 1 << 20
    processes: int = 64
    # Without a memory cgroup, a jail's processes are this few (RLIMIT_NPROC) and each gets
    # this share of submission_memory_bytes as its RLIMIT_AS: 4 x 256 MiB, 1 GiB in all (the
    # zygote, its scenario's child, and two more; a 100,000-node chain needs about 90 MiB).
    processes_without_cgroup: int = 4
    # RLIMIT_NOFILE: a descriptor can hold kernel memory no other limit counts (a pipe's or a
    # socket's buffers); the child needs a handful
    open_files: int = 256
    output_bytes: int = 4096
    message_bytes: int = 1 << 20
    max_restarts: int = 3
    # Wall-clock seconds all of a submission's scenarios and imports may take together (the
    # time spent waiting on its processes, not the trusted checks' own work): a submission
    # over it is stopped and every later scenario is refused at once, so that no classmate
    # waits on it (the shard's limit grows with its submissions' budgets).
    budget_s: float = 60.0


class GraderFault(RuntimeError):
    """The grader could not set up what it gives a submission's sandbox: its own error, never
    the student's (raised out of `load_problem`, so every check of the submission ends as the
    grader's error)."""


@dataclass
class Outcome:
    """What one scenario run produced: plain data or a described failure."""

    status: str  # ok | exception | wrong-type | timeout | crash | import-error | bad-result | over-budget
    value: Any = None
    detail: dict[str, Any] = field(default_factory=dict)
    output: str = ""
    flags: list[dict[str, Any]] = field(default_factory=list)  # runtime policy notes

    @property
    def ok(self) -> bool:
        """True when the scenario returned a value."""
        return self.status == "ok"


class _Zygote:
    """One running bootstrap process and its pipes."""

    def __init__(
        self, process: ForkedZygote, result_fd: int, output_fd: int, max_bytes: int
    ) -> None:
        self.process = process
        self.result_fd = result_fd
        self.output_fd = output_fd
        self.frames = protocol.FrameReader(max_bytes=max_bytes)
        self.selector = selectors.DefaultSelector()
        self.selector.register(result_fd, selectors.EVENT_READ, "result")
        self.selector.register(output_fd, selectors.EVENT_READ, "output")
        self.output = bytearray()
        self.output_total = 0
        self.result_closed = False

    def kill(self) -> None:
        """Kill the zygote's whole process group and release its pipes."""
        self.process.kill()
        self.selector.close()
        for fd in (self.result_fd, self.output_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.process.stdin.close()
        except OSError:
            pass


class Sandbox:
    """Runs scenarios for one submission; use as a context manager so nothing outlives it."""

    def __init__(
        self,
        workdir: Path,
        module: str,
        class_name: str | None,
        files: tuple[str, ...],
        limits: Limits | None = None,
        jail: Jail | None = None,
        shard_zygote: ShardZygote | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.module = module
        self.class_name = class_name
        self.files = files
        self.limits = limits or Limits()
        self.jail = jail
        # The process that forks this submission's zygotes: the shard's, or one of its own.
        interpreter = jail.interpreter if jail else sys.executable
        self._own_shard_zygote = shard_zygote is None or shard_zygote.interpreter != interpreter
        if shard_zygote is None or self._own_shard_zygote:
            shard_zygote = ShardZygote(interpreter)
        self.shard_zygote = shard_zygote
        # Every process of the submission in one memory cgroup, where one is delegated to us.
        self.memory = (MemoryGroup.create(self.limits.submission_memory_bytes)
                       if memory_cgroups_delegated() else None)
        self._zygote: _Zygote | None = None
        self._fatal: Outcome | None = None
        # Orphans of the child must come back to this process to be killed and reaped (a
        # container's init may never reap them, and zombies count against the uid's limit).
        reaper.enable_subreaper()
        self._lost_count = 0  # zygotes that died on their own (a timeout is not counted)
        # The submission has imported once: a zygote started after a timeout or a crash that
        # then fails its import probe on time is the machine's load, not the code (see _start).
        self._proven = False
        self._spent = 0.0  # seconds of the budget used, in run() and load_problem()
        self._budget_end = 0.0  # while one of them runs: when the budget ends

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the zygote and kill anything the submission left running."""
        if self._zygote is not None:
            self._zygote.kill()
            self._zygote = None
        self._sweep(keep=())
        if self.memory is not None:
            self.memory.close()
            self.memory = None
        if self.jail is not None:
            self.jail.release()  # nothing of it runs any more: its uid may serve another jail
        if self._own_shard_zygote:
            self.shard_zygote.close()

    @property
    def isolation(self) -> Isolation:
        """The isolation this sandbox's children run under."""
        return isolation_of(self.jail, self.memory is not None)

    def zygote_pids(self) -> tuple[int, ...]:
        """The zygote's own processes (none between zygotes): the process this one started
        and, in a jail with a pid namespace, the namespace's init it waits for."""
        if self._zygote is None:
            return ()
        outer = self._zygote.process.pid
        return (outer, *reaper.child_pids(outer))

    def load_problem(self) -> Outcome | None:
        """Why the submission cannot be loaded at all (an error, a timeout or a crash while it
        is imported), or None when it imports: the probe every zygote starts with."""
        if self._fatal is None and self._zygote is None:
            with self._budgeted():
                self._start()
        return replace(self._fatal) if self._fatal is not None else None

    @property
    def over_budget(self) -> bool:
        """Whether the submission has used up its wall-clock budget (Limits.budget_s)."""
        return self._spent >= self.limits.budget_s

    def spent(self) -> float:
        """Seconds of the budget used so far: its processes' and the trusted checks' work."""
        return self._spent

    def budget_left(self) -> float:
        """Seconds of the budget not yet used."""
        return self.limits.budget_s - self._spent

    def charge(self, seconds: float) -> None:
        """Count trusted seconds spent on this submission (`grader.grading.trusted_time`)."""
        self._spent += seconds

    @contextlib.contextmanager
    def _budgeted(self) -> Iterator[None]:
        """Count the time spent inside against the budget; `_budget_end` is when it ends."""
        started = time.monotonic()
        self._budget_end = started + self.limits.budget_s - self._spent
        try:
            yield
        finally:
            self._spent += time.monotonic() - started

    def _over_budget(self) -> Outcome:
        return Outcome("over-budget", detail={"seconds": self.limits.budget_s})

    # -- running -----------------------------------------------------------------------------

    def run(
        self,
        scen: Scenario,
        params: dict[str, Any],
        *,
        timeout_s: float | None = None,
        allow_nonfinite: bool = False,
    ) -> Outcome:
        """Run one scenario in a fresh forked child and return its outcome."""
        with self._budgeted():
            return self._run(scen, params, timeout_s, allow_nonfinite)

    def _run(self, scen: Scenario, params: dict[str, Any], timeout_s: float | None,
             allow_nonfinite: bool) -> Outcome:
        if self._fatal is not None:
            return replace(self._fatal)
        if time.monotonic() >= self._budget_end:
            return self._over_budget()
        zygote = self._zygote or self._start()
        if zygote is None:
            assert self._fatal is not None
            return replace(self._fatal)
        timeout = timeout_s if timeout_s is not None else self.limits.timeout_s
        cut_by_budget = self._budget_end - time.monotonic() < timeout
        timeout = max(0.0, min(timeout, self._budget_end - time.monotonic()))
        request = {
            "name": scen.name,
            "source": scen.source,
            "params": params,
            "cpu_s": max(1, int(timeout) + 1),
        }
        zygote.output.clear()
        zygote.output_total = 0
        try:
            zygote.process.stdin.write(protocol.encode_frame(request))
            zygote.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return self._lost(zygote, "how-already-ended")
        try:
            reply = self._reply_within(zygote, timeout, allow_nonfinite)
            if reply is None and (cut_by_budget or time.monotonic() >= self._budget_end):
                outcome = self._finish(self._over_budget(), zygote)
                self._discard(zygote)
                return outcome
            if reply is None:
                return self._timed_out(zygote, timeout)
            if reply.get("status") == "exited" and reply.get("code") == -signal.SIGXCPU:
                # its CPU-time limit (RLIMIT_CPU, the timeout and a second) ended it: on a busy
                # machine it may come before the stretched deadline, and it is the same limit
                return self._finish(Outcome("timeout", detail={"seconds": timeout}), zygote)
            if reply.get("status") == "exited":
                return self._finish(Outcome("crash", detail=_crash_detail(reply)), zygote)
            exited = self._next_message(zygote, time.monotonic() + 1.0, False)
            if exited is None or exited.get("status") != "exited":
                self._discard(zygote)
            else:
                self._drain_output(zygote)
                self._sweep(keep=(zygote.process.pid,))
            return self._finish(checked_reply(_outcome_from_reply(reply), scen, params), zygote)
        except protocol.ProtocolError as exc:
            self._discard(zygote)
            return self._finish(breach_outcome(exc), zygote)
        except EOFError:
            return self._lost(zygote, "how-ended")

    def _reply_within(self, zygote: _Zygote, timeout: float,
                      allow_nonfinite: bool) -> dict[str, Any] | None:
        """The child's reply, or None once it has had `timeout` seconds: seconds it ran, slept
        or blocked, not seconds it was runnable and waiting for a CPU (`run_queue`), so a loaded
        machine does not time out a correct scenario. Never past MAX_STRETCH times the limit
        nor past the submission's budget."""
        started = time.monotonic()
        last = min(started + timeout * MAX_STRETCH, self._budget_end)
        deadline = started + timeout
        while True:
            reply = self._next_message(zygote, deadline, allow_nonfinite)
            if reply is not None:
                return reply
            moved = min(started + timeout + run_queue.queue_wait_s(zygote.process.pid), last)
            if moved - deadline < STRETCH_STEP_S:
                return None
            deadline = moved

    def _finish(self, outcome: Outcome, zygote: _Zygote) -> Outcome:
        outcome.output = _decode_output(zygote, self.limits.output_bytes)
        return outcome

    def _timed_out(self, zygote: _Zygote, timeout: float) -> Outcome:
        outcome = self._finish(Outcome("timeout", detail={"seconds": timeout}), zygote)
        self._discard(zygote)
        return outcome

    def _lost(self, zygote: _Zygote, how: str) -> Outcome:
        """A crash outcome; `how` is the detail kind that says how it ended (details.how-*)."""
        self._lost_count += 1
        outcome = self._finish(Outcome("crash", detail=_how(how)), zygote)
        self._discard(zygote)
        return outcome

    def _discard(self, zygote: _Zygote) -> None:
        zygote.kill()
        if self._zygote is zygote:
            self._zygote = None
        self._sweep(keep=())

    def _sweep(self, keep: tuple[int, ...]) -> None:
        """Kill what the submission left running (`keep`: the live zygote, between scenarios).

        In a jail with its own pid namespace the zygote is that namespace's init: it has
        already killed what the scenario left, and when it dies the kernel kills the rest.
        Otherwise: every process of the jail's own uid (daemons that escaped the process group
        included), and this process's orphans."""
        # Reaping matters too: zombies still count against the uid's process limit. With a
        # jail of its own uid every process of the submission has it, so one scan finds all.
        jail = self.jail
        if jail is not None and jail.pid_namespace and keep:
            return
        if jail is None or not jail.own_uid or kill_uid(jail.uid, keep):
            reaper.kill_orphans((*keep, *LIVE_ZYGOTES))

    # -- the zygote --------------------------------------------------------------------------

    def _start(self) -> _Zygote | None:
        """A fresh zygote whose import probe answered: the next scenario, after a timeout or a
        killed child, starts on a verified process. For a submission that has imported before,
        a probe that times out or dies is tried again with more time (RESTART_PATIENCE), so
        that a loaded machine does not blame the next check for an earlier check's end."""
        if time.monotonic() >= self._budget_end:
            self._fatal = self._over_budget()
            return None
        if self._lost_count > self.limits.max_restarts:
            self._fatal = Outcome(
                "crash", detail=_how("how-kept-ending")
            )
            return None
        attempts = RESTART_ATTEMPTS if self._proven else 1
        for attempt in range(attempts):
            zygote, fatal = self._spawn(self.limits.import_timeout_s * RESTART_PATIENCE ** attempt)
            if zygote is not None:
                self._proven = True
                return zygote
            assert fatal is not None
            if not self._proven or fatal.status in ("import-error", "over-budget"):
                break
        self._fatal = fatal
        return None

    def _spawn(self, import_timeout_s: float) -> tuple[_Zygote | None, Outcome | None]:
        """Start one zygote and wait for its import probe: the zygote, or why it failed."""
        result_r, result_w = os.pipe()
        output_r, output_w = os.pipe()
        try:
            process = self.shard_zygote.fork(self.workdir, result_w, output_w)
        except BaseException:
            os.close(result_r)
            os.close(output_r)
            raise
        finally:
            os.close(result_w)
            os.close(output_w)
        if self.memory is not None and not self.memory.add(process.pid):
            self.memory.close()  # the group is gone: fall back to the per-process limits
            self.memory = None
        os.set_blocking(result_r, False)
        os.set_blocking(output_r, False)
        zygote = _Zygote(process, result_r, output_r, self.limits.message_bytes)
        config = {
            "module": self.module,
            "class_name": self.class_name,
            "files": list(self.files),
            # every module the grader put in the folder (the lab's support files too): the
            # zygote compiles them all from its cwd, as it does the submission's
            "given": sorted(path.name for path in self.workdir.glob("*.py")),
            "limits": self.child_limits(),
            "jail": self.jail.config() if self.jail else None,
        }
        process.stdin.write(protocol.encode_frame(config))
        process.stdin.flush()
        return self._await_ready(zygote, import_timeout_s)

    def child_limits(self) -> dict[str, int]:
        """The limits the zygote sets itself (and its children inherit). Where a memory cgroup
        bounds the submission, each process gets memory_bytes and the usual process count;
        in a jail without one, RLIMIT_NPROC x RLIMIT_AS is submission_memory_bytes; at
        `limits` (no jail) RLIMIT_NPROC would count the instructor's own processes and is
        not set: one process's memory_bytes is the bound there."""
        memory, processes = self.limits.memory_bytes, self.limits.processes
        if self.jail is None:
            processes = 0
        elif self.memory is None:
            processes = self.limits.processes_without_cgroup
            memory = min(memory, self.limits.submission_memory_bytes // processes)
        return {"memory_bytes": memory, "file_bytes": self.limits.file_bytes,
                "zygote_cpu_s": self.limits.zygote_cpu_s, "processes": processes,
                "open_files": self.limits.open_files}

    def _await_ready(self, zygote: _Zygote,
                     import_timeout_s: float) -> tuple[_Zygote | None, Outcome | None]:
        """Wait for the import probe: a child that imports the submission and says ready."""
        deadline = min(time.monotonic() + import_timeout_s, self._budget_end)
        try:
            # The zygote's own word first, written before any student code exists: whether it
            # could read every file the grader gave it.
            reply = self._next_message(zygote, deadline, False)
            if reply is not None and reply.get("status") == "unreadable":
                zygote.kill()
                self._sweep(keep=())
                raise GraderFault("the sandbox could not read the files the grader gave it")
            if reply is not None and reply.get("status") == "compiled":
                reply = self._next_message(zygote, deadline, False)
            exited = None
            if reply is not None and reply.get("status") != "exited":
                exited = self._next_message(zygote, time.monotonic() + 1.0, False)
        except (protocol.ProtocolError, EOFError):
            reply, exited = {"status": "died"}, None
        if reply is not None and reply.get("status") == "ready" and exited is not None:
            self._zygote = zygote
            zygote.output.clear()  # import-time output belongs to no check
            zygote.output_total = 0
            self._sweep(keep=(zygote.process.pid,))
            return zygote, None
        if reply is None and time.monotonic() >= self._budget_end:
            fatal = self._over_budget()
        elif reply is None:
            fatal = Outcome("timeout", detail={"seconds": self.limits.import_timeout_s})
        elif reply.get("status") == "import-error":
            fatal = Outcome("import-error", detail=_exception_detail(reply))
        else:
            fatal = Outcome("crash", detail=_how("how-ended-importing"))
        fatal = self._finish(fatal, zygote)
        zygote.kill()
        self._sweep(keep=())
        return None, fatal

    def _next_message(
        self, zygote: _Zygote, deadline: float, allow_nonfinite: bool
    ) -> dict[str, Any] | None:
        """The next decoded frame, None at the deadline; EOFError if the result pipe closed."""
        while True:
            payload = zygote.frames.next_frame()
            if payload is not None:
                message = protocol.decode(payload, allow_nonfinite=allow_nonfinite)
                if not isinstance(message, dict):
                    raise protocol.ProtocolError("not-object")
                return message
            if zygote.result_closed:
                raise EOFError
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            for key, _ in zygote.selector.select(remaining):
                self._read(zygote, key.data)

    def _drain_output(self, zygote: _Zygote) -> None:
        """Read what the finished scenario left in the output pipe, so it is not shown with
        the next one (the child has exited: everything it wrote is already in the pipe)."""
        while zygote.output_fd in zygote.selector.get_map() and self._read(zygote, "output"):
            pass

    def _read(self, zygote: _Zygote, which: str) -> bool:
        """Read once from one pipe; False when nothing was there (would block, or closed)."""
        fd = zygote.result_fd if which == "result" else zygote.output_fd
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return False
        if not data:
            zygote.selector.unregister(fd)
            zygote.result_closed = zygote.result_closed or which == "result"
            return False
        if which == "result":
            zygote.frames.feed(data)
            return True
        zygote.output_total += len(data)
        room = self.limits.output_bytes - len(zygote.output)
        if room > 0:
            zygote.output += data[:room]
        return True


def breach_outcome(exc: protocol.ProtocolError) -> Outcome:
    """A refused message: a failed check ("not plain data", in the grader's words only) and a
    protocol-breach flag that quotes nothing of the child's."""
    return Outcome("bad-result", detail={"reason": str(exc)}, flags=[protocol.breach_flag(exc)])


def checked_reply(outcome: Outcome, scen: Scenario, params: dict[str, Any]) -> Outcome:
    """The outcome of a scenario's reply once its value has matched the scenario's schema
    (`reply_schemas`): a value of another shape is a protocol breach on this check, and no
    trusted code reads it."""
    if outcome.ok and reply_schemas.mismatch(scen, outcome.value, params) is not None:
        return breach_outcome(protocol.ProtocolError("reply-shape"))
    return outcome


def _decode_output(zygote: _Zygote, cap: int) -> str:
    text = clean_text(bytes(zygote.output).decode("utf-8", errors="replace"), cap)
    if zygote.output_total > cap:
        text += f"\n[... {zygote.output_total - cap} more bytes not shown]"
    return text


# How much of an exception each field keeps, counted here whatever the child claimed (a str
# subclass whose __len__ lies, an exception class with a name of a megabyte).
EXCEPTION_FIELD_CAPS = {"type": 100, "message": 500}
FRAME_FIELD_CAP = 200


def _frames(where: Any) -> list[dict[str, Any]]:
    """The child's traceback frames {file, line[, function]}, only as plain strings and ints
    (the child is not trusted to send the shape it should)."""
    frames = []
    for frame in where[-3:] if isinstance(where, list) else []:
        if isinstance(frame, dict):
            line = frame.get("line")
            clean: dict[str, Any] = {"file": clean_text(frame.get("file", ""), FRAME_FIELD_CAP),
                                     "line": line if type(line) is int else 0}
            if "function" in frame:
                clean["function"] = clean_text(frame["function"], FRAME_FIELD_CAP)
            frames.append(clean)
    return frames


def _exception_detail(reply: dict[str, Any]) -> dict[str, Any]:
    detail: dict[str, Any] = {key: clean_text(reply.get(key, ""), cap)
                              for key, cap in EXCEPTION_FIELD_CAPS.items()}
    detail["where"] = _frames(reply.get("where"))
    return detail


def _crash_detail(reply: dict[str, Any]) -> dict[str, Any]:
    code = reply.get("code")
    if isinstance(code, int) and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return _how("how-killed", signal=name)
    return _how("how-exit-code", code=str(code))


def _how(kind: str, **params: str) -> dict[str, Any]:
    """A crash's `how`: a detail the catalogue says in words (details.how-*)."""
    return {"how": {"kind": kind, "params": params}}


def _outcome_from_reply(reply: dict[str, Any]) -> Outcome:
    status = reply.get("status")
    if status == "ok":
        return Outcome("ok", value=reply.get("value"))
    if status == "exception":
        return Outcome("exception", detail=_exception_detail(reply))
    if status == "import-error":
        return Outcome("import-error", detail=_exception_detail(reply))
    if status == "wrong-type":
        return Outcome(
            "wrong-type",
            detail={key: clean_text(reply.get(key, ""), EXCEPTION_FIELD_CAPS["type"])
                    for key in ("quantity", "actual_type", "expected_type")},
        )
    if status == "bad-result":
        return Outcome("bad-result", detail={"reason": clean_text(reply.get("reason", ""), 200)})
    raise protocol.ProtocolError("unknown-status")  # its status is the child's text: not said
