"""lab03_backprop's own check modules, for its suites: `verdicts` (trusted side) and `scenarios` (sandbox child).

Side: trusted process (it names the scenarios; they run in the child, sent there by name).
"""

from __future__ import annotations

from grader.grading.checking.verdicts import lab03_backprop as verdicts
from grader.grading.child.scenarios import lab03_backprop as scenarios

__all__ = ["scenarios", "verdicts"]
