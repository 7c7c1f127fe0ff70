"""The one import for check authors: what a lab's suite (public or hidden) uses to write checks.

Side: trusted process (the checks run in the pytest that scores; what they send to the sandbox
child are the lab's scenarios). A suite imports the API from here,

    from grader.checking import check_case, expect_results_close, field

and its lab's own two modules from the lab's name under here (`grader.checking.lab01_graph`:
`verdicts`, the trusted side's reference and judgement; `scenarios`, what runs in the child):

    from grader.checking.lab01_graph import scenarios, verdicts

The names below are everything the suites use; where each is defined is the grader's business
(grader.grading.checking and its modules, grader.grading.child.graph), and may change.
"""

from __future__ import annotations

from grader.grading.checking import contract_grid, random_graphs
from grader.grading.checking.inputs import distinct_values
from grader.grading.checking.marker import check_case
from grader.grading.checking.random_graphs.sampling import SHAPES_LAB02, fixed_shapes
from grader.grading.checking.verdict import (
    CheckFailed,
    NotRun,
    close,
    expect_close,
    expect_equal,
    expect_results_close,
    fail,
    field,
    said,
    structure_only,
)
from grader.grading.child.graph import OPERATIONS

__all__ = [
    "OPERATIONS",
    "SHAPES_LAB02",
    "CheckFailed",
    "NotRun",
    "check_case",
    "close",
    "contract_grid",
    "distinct_values",
    "expect_close",
    "expect_equal",
    "expect_results_close",
    "fail",
    "field",
    "fixed_shapes",
    "random_graphs",
    "said",
    "structure_only",
]
