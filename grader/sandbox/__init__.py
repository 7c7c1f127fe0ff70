"""The trust boundary: student code runs only in sandboxed child processes started from here."""

from grader.sandbox.sandbox import Limits, Outcome, Sandbox
from grader.sandbox.scenario import Scenario, scenario

__all__ = ["Limits", "Outcome", "Sandbox", "Scenario", "scenario"]
