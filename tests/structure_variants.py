"""The structural variants among the fixtures (issue 32, "Proportion"), and what each may cost.

A structural variant is a correct engine with one difference in the graph's names or labels:
a leaf's `_op` that is None, labels of another type or spelling, parents under another name or
in another collection. Such a difference costs the structure checks about its attribute (the
hidden checks whose only contract clause is that attribute's, from the suites' `clause=`
markers, plus any check whose failure is a structural finding of that attribute), at their
weights in the suites, and nothing else: every check of numbers (`data`, `grad`, `backward()`)
passes and no check is left unrun behind it. Where the lab's README leaves the attribute free
(a `correct-` fixture) it costs nothing.

Side: trusted (the project's own tests).
"""

from __future__ import annotations

from typing import Any

from grader.common.labs import LABS
from grader.grading.checking.declared import declared_checks

# The contract's clause key of each structural attribute (docs/contract-clauses.md).
CLAUSE = {"_op": "op", "_prev": "prev"}

# The detail kinds a structural verdict raises about each attribute (verdicts.lab01_graph's
# expect_op_labels and expect_parents_in_prev; lab03_backprop's cycle checks, which close a
# cycle through the parents' collection): a check that fails with one of them failed on
# structure alone.
FINDINGS = {
    "_op": frozenset({"op-label-missing", "op-label-empty", "op-labels-equal",
                      "op-label-not-text"}),
    "_prev": frozenset({"prev-missing", "cycle-needs-parents"}),
}

# Fixture -> the attributes its only differences are in, by lab.
VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "lab01_graph": {
        "leaf-label-none": ("_op",),
        "leaf-label-not-empty": ("_op",),
        "labels-not-text": ("_op",),
        "no-op-attribute": ("_op",),
        "mul-labelled-plus": ("_op",),
        "parents-under-another-name": ("_prev",),
        "correct-frozenset-prev": ("_prev",),
        "correct-word-labels-list-prev": ("_op", "_prev"),
        "correct-times-label": ("_op",),
    },
    "lab02_ops": {
        "correct-leaf-op-none": ("_op",),
        "correct-frozenset-prev": ("_prev",),
        "correct-parents-named-prevs": ("_prev",),
    },
    "lab03_backprop": {
        "correct-leaf-op-none": ("_op",),
        "correct-frozenset-prev": ("_prev",),
        "correct-parents-named-children": ("_prev",),
        "parents-in-two-attributes": ("_prev",),
    },
    "lab04_xor": {  # value.py is given: a student's own node in nn.py
        "correct-fused-neuron-unlabelled": ("_op",),
    },
}


def weights(lab: str) -> dict[str, float]:
    """Each check's weight, as the lab's suites declare it."""
    return {spec.id: spec.weight for spec in declared_checks(LABS[lab])}


def structure_checks(lab: str, attributes: tuple[str, ...]) -> set[str]:
    """The hidden checks whose only contract clause is one of these attributes'."""
    keys = {CLAUSE[attribute] for attribute in attributes}
    return {spec.id for spec in declared_checks(LABS[lab])
            if spec.visibility == "hidden" and len(spec.clauses) == 1 and spec.clauses[0] in keys}


def lost_checks(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The document's checks that did not pass, by id."""
    return {c["id"]: c for c in doc["checks"] if c["status"] != "passed"}


def structural_failure(check: dict[str, Any], attributes: tuple[str, ...]) -> bool:
    """A failed check whose detail is a structural finding about one of these attributes."""
    kind = (check.get("detail") or {}).get("kind")
    return check["status"] == "failed" and any(kind in FINDINGS[a] for a in attributes)
