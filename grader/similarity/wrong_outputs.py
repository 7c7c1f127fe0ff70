"""The second signal: two students whose code gave the same rare wrong value on the same input.

Side: trusted process; reads score documents (`scores.json`, grader/results/score.schema.json),
never a submission.

A failed check's `detail` holds what the student's code returned: `params.actual` (with
`params.inputs` and `params.quantity`) and, for a drawn failure, `graph`, the nodes with the
data and gradient the student's engine left on them. A wrong value is that output together with
the check and the input it answered: hidden inputs are seeded per submission, so two students
meet on the same input only in the checks whose inputs are fixed (the course's examples, the
literal graphs). The same bug on the same input gives the same wrong value, so a value many
students share is a common mistake and says nothing; one only a few share (at most RARE_SHARE of
the graded class, and never more than RARE_MOST students) is worth a look beside the text.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from grader.results.score_document import Document, Graph, as_document

RARE_SHARE = 0.05
RARE_MOST = 5
SIGNIFICANT = 9  # digits a wrong value is compared to: the same code gives the same float


@dataclass(frozen=True)
class WrongValue:
    """One wrong output: the check, the quantity, the input, what came back, and how many
    students of the class gave it."""

    check: str
    quantity: str
    inputs: Any
    actual: Any
    expected: Any
    holders: int


def _rounded(value: Any) -> Any:
    """The value with every float to SIGNIFICANT digits (lists and dicts walked)."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT}g}")
    if isinstance(value, list | tuple):
        return [_rounded(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _rounded(item) for key, item in value.items()}
    return value


def _graph_state(graph: Graph) -> list[list[Any]]:
    """A drawn graph as what the engine left on it: name, data and gradient of each node."""
    return [[node.name, node.data, node.grad] for node in graph.nodes]


def wrong_values(document: Document) -> dict[str, dict[str, Any]]:
    """The wrong outputs of one score document, each under a key that two equal ones share."""
    found: dict[str, dict[str, Any]] = {}
    for check in as_document(document).checks:
        detail = check.detail
        if check.status != "failed" or detail is None:
            continue
        params = detail.params
        if "actual" in params:
            actual = params["actual"]
        elif detail.graph is not None:
            actual = _graph_state(detail.graph)
        else:
            continue
        value = {"check": check.id, "quantity": str(params.get("quantity", "")),
                 "inputs": _rounded(params.get("inputs")), "actual": _rounded(actual),
                 "expected": _rounded(params.get("expected"))}
        key = json.dumps([value["check"], value["quantity"], value["inputs"], value["actual"]],
                         sort_keys=True)
        found[key] = value
    return found


def rare_limit(graded: int) -> int:
    """The most students a wrong value may be shared by and still count as rare."""
    return max(2, min(RARE_MOST, int(RARE_SHARE * graded)))


def shared_wrong_values(documents: Iterable[Document]) -> dict[tuple[str, str], list[WrongValue]]:
    """For each pair of students (ids in sorted order), the rare wrong values both gave."""
    docs = [as_document(document) for document in documents]
    by_student = {doc.submission.id: wrong_values(doc) for doc in docs
                  if doc.status == "graded"}
    holders: dict[str, list[str]] = defaultdict(list)
    for student, values in by_student.items():
        for key in values:
            holders[key].append(student)
    limit = rare_limit(len(by_student))
    shared: dict[tuple[str, str], list[WrongValue]] = defaultdict(list)
    for key, students in sorted(holders.items()):
        if 2 <= len(students) <= limit:
            value = by_student[students[0]][key]
            for first, second in combinations(sorted(students), 2):
                shared[first, second].append(WrongValue(**value, holders=len(students)))
    return dict(shared)


def graded_count(docs: Sequence[Document]) -> int:
    """How many of the documents were graded (the class the rarity is counted in)."""
    return sum(1 for doc in docs if as_document(doc).status == "graded")
