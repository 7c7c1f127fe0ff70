"""lab04_xor's own check modules, for its suites: `verdicts` (trusted side) and `scenarios` (sandbox child).

Side: trusted process (it names the scenarios; they run in the child, sent there by name).
"""

from __future__ import annotations

from grader.grading.checking.verdicts import lab04_xor as verdicts
from grader.grading.child.scenarios import lab04_xor as scenarios

__all__ = ["scenarios", "verdicts"]
