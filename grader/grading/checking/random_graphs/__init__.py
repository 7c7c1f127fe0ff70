"""Random-graph checks: programs drawn, run on both engines, compared, shrunk, and blamed on a pitfall.

Side: trusted process. The pipeline, one module a step:

- `programs`: a program, the data a check runs ({"leaves", "nodes"}), its plain-float model
  and the line of Python the student can paste;
- `sampling`: which programs a check runs (fixed shapes under every seed, then random ones);
- `comparing`: the numbers of a run that differ from the reference's;
- `shrinking`: the smallest failing program found within a budget;
- `diagnosing`: the pitfall a failing program shows, and the finding that says why;
- `judging`: the check itself, which fails with the shrunk program and the graph it builds.

The hidden suites and the tests use the names below.
"""

from grader.grading.checking.random_graphs.comparing import Difference, differences
from grader.grading.checking.random_graphs.diagnosing import Diagnosis, diagnose
from grader.grading.checking.random_graphs.judging import ReferenceFailed, graph_detail, judge
from grader.grading.checking.random_graphs.programs import (
    DOMAINS,
    Program,
    as_python,
    consumers,
    forward_values,
    in_domain,
    names,
    prune,
    size,
)
from grader.grading.checking.random_graphs.sampling import (
    LAB01_OPS,
    LAB02_OPS,
    SHAPES_LAB01,
    SHAPES_LAB02,
    SHAPES_LAB03,
    draw_programs,
    programs_without,
    random_program,
    reused_op_programs,
)
from grader.grading.checking.random_graphs.shrinking import candidates, shrink

__all__ = [
    "DOMAINS", "LAB01_OPS", "LAB02_OPS", "SHAPES_LAB01", "SHAPES_LAB02", "SHAPES_LAB03",
    "Diagnosis", "Difference", "Program", "ReferenceFailed", "as_python", "candidates",
    "consumers", "diagnose", "differences", "draw_programs", "forward_values", "graph_detail",
    "in_domain", "judge", "names", "programs_without", "prune", "random_program",
    "reused_op_programs", "shrink", "size",
]
