"""A submission's sandbox started ahead, in a thread, while the caller does other work.

Side: trusted process. Entering a submission's jail and probing that its files import (a
fork, namespaces, a memory cgroup whose migration waits on the kernel, the import itself) is
mostly waiting. A shard's first submission starts so while pytest collects the checks; the
session fixture that would have started it takes it over, started or failed, unchanged: the
time its probe took counts against its budget as it would have in the fixture.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from grader.grading.sandbox.sandbox import Sandbox


class EarlySandbox:
    """One sandbox, made and probed (`load_problem`) in a thread of its own."""

    def __init__(self, make: Callable[[], Sandbox]) -> None:
        self._sandbox: Sandbox | None = None
        self._error: BaseException | None = None
        self._taken = False
        self._thread = threading.Thread(target=self._start, args=(make,), daemon=True,
                                        name="early-sandbox")
        self._thread.start()

    def _start(self, make: Callable[[], Sandbox]) -> None:
        try:
            self._sandbox = make()
            self._sandbox.load_problem()
        except BaseException as exc:  # noqa: BLE001 - raised again where it is taken
            self._error = exc

    def take(self) -> Sandbox:
        """The sandbox, once its probe has answered (what making it raised, raised here)."""
        self._thread.join()
        self._taken = True
        if self._error is not None:
            if self._sandbox is not None:
                self._sandbox.close()
            raise self._error
        assert self._sandbox is not None
        return self._sandbox

    def close(self) -> None:
        """Close the sandbox if nobody took it (its submission's checks never ran)."""
        if self._taken:
            return
        self._thread.join()
        self._taken = True
        if self._sandbox is not None:
            self._sandbox.close()
