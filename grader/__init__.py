"""minigrad-labs grader: runs lab checks on student submissions behind a process boundary."""

__version__ = "0.1.0"
