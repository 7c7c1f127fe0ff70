"""Trusted time charged to the submission it is spent on: a check's own work counts against its
submission's budget, and a check that would run past it is cut off.

Side: trusted process (the shard's pytest process).

The sandbox's budget (`Limits.budget_s`) counted only the time spent waiting on a submission's
processes; what a check did with a reply in this process was free. A reply built to make a
verdict slow (issue 39: ~10^10 comparisons, 13 minutes) then held the whole shard, and at the
shard's limit a correct classmate graded after it got a grader error. Now each check's call is
timed: its wall time beyond the sandbox's own is added to the submission's budget
(`Sandbox.charge`), and while it runs an interval timer (ITIMER_REAL) is armed at the end of
that budget, plus GRACE_S. When it fires, TrustedOverrun ends the check; the plugin reports it
as `over-budget`, as every later check of that submission is, and the shard goes on with the
next submission. The schemas of `reply_schemas` keep verdicts linear, so an honest reply never
comes near this; the timer bounds what a bug in a verdict could still cost.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any, Protocol

GRACE_S = 2.0  # past the budget's end: the sandbox's own deadline comes first


class TrustedOverrun(BaseException):  # noqa: N818 - not an error of the grader's: an interrupt
    """A check's trusted work ran past its submission's budget (raised by the timer). A
    BaseException, so that no verdict's `except Exception` swallows it."""


class Budgeted(Protocol):
    """What the clock needs of a runner: what is left of its budget, and a way to charge it."""

    def budget_left(self) -> float:
        """Seconds of the submission's budget not yet spent."""

    def spent(self) -> float:
        """Seconds spent so far, sandbox and trusted work together."""

    def charge(self, seconds: float) -> None:
        """Add trusted seconds to what the submission has spent."""


def _can_arm() -> bool:
    """An interval timer's signal reaches only the main thread (pytest's own, in a shard)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _interrupt(signum: int, frame: Any) -> None:
    raise TrustedOverrun


@contextlib.contextmanager
def charged(runner: Budgeted) -> Iterator[None]:
    """Run a check's call with its trusted time charged to `runner`'s submission and cut off
    GRACE_S past the end of its budget."""
    started = time.monotonic()
    spent_before = runner.spent()
    armed = _can_arm()
    previous: Any = None
    if armed:
        previous = signal.signal(signal.SIGALRM, _interrupt)
        signal.setitimer(signal.ITIMER_REAL, max(runner.budget_left(), 0.0) + GRACE_S)
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        sandboxed = runner.spent() - spent_before
        runner.charge(max(0.0, time.monotonic() - started - sandboxed))
