"""The one vocabulary of operations (grader/grading/child/graph.py's OPERATIONS) agrees with itself,
with the reference solution, and with every place that names an operation.

The scenarios build with `build`, the random graphs compute with `forward` and diagnose with
`partials`, lab02's verdicts write with `code`: these tests hold the four against each other
and against the reference engine, so a new operation is one row of the table.
"""

from __future__ import annotations

import math

import pytest

from grader.common.labs import LABS
from grader.grading.checking import random_graphs
from grader.grading.checking.reference import load_reference_class
from grader.grading.checking.verdicts import lab02_ops as lab02_verdicts
from grader.grading.child.graph import OPERATIONS, Operation

H = 1e-6
# A point inside every operation's domain (random_graphs.DOMAINS), away from kinks: a, b, k.
POINT = (0.8, -1.3, 2.5)


@pytest.fixture(scope="module")
def reference_value() -> type:
    return load_reference_class(LABS["lab02_ops"])


def _at(op: Operation) -> tuple[float, float, float]:
    a, b, k = POINT
    assert random_graphs.in_domain(op.name, a, b, k), f"{op.name}: the test's point is outside it"
    return a, b, k


def test_random_graphs_draw_from_every_operation_and_only_from_them() -> None:
    assert sorted(random_graphs.LAB02_OPS) == sorted(OPERATIONS), (
        "lab02's random graphs should draw every operation of the vocabulary")
    assert set(random_graphs.LAB01_OPS) <= set(OPERATIONS)
    assert set(random_graphs.DOMAINS) <= set(OPERATIONS), (
        f"domains of unknown operations: {sorted(set(random_graphs.DOMAINS) - set(OPERATIONS))}")


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_local_derivatives_are_the_central_difference_of_the_forward_value(name: str) -> None:
    op = OPERATIONS[name]
    a, b, k = _at(op)
    d_da = (op.forward(a + H, b, k) - op.forward(a - H, b, k)) / (2 * H)
    d_db = (op.forward(a, b + H, k) - op.forward(a, b - H, k)) / (2 * H) if op.binary else 0.0
    got = op.partials(a, b, k)
    assert math.isclose(got[0], d_da, rel_tol=1e-5, abs_tol=1e-8), (name, "d/da", got, d_da)
    assert math.isclose(got[1], d_db, rel_tol=1e-5, abs_tol=1e-8), (name, "d/db", got, d_db)


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_building_with_the_reference_engine_gives_forward_and_partials(
        name: str, reference_value: type) -> None:
    op = OPERATIONS[name]
    a, b, k = _at(op)
    x, y = reference_value(a), reference_value(b)
    out = op.build(x, y if op.binary else None, k)
    out.backward()
    assert math.isclose(out.data, op.forward(a, b, k), rel_tol=1e-12), (name, out.data)
    want = op.partials(a, b, k)
    assert math.isclose(x.grad, want[0], rel_tol=1e-9, abs_tol=1e-12), (name, "a.grad", x.grad)
    if op.binary:
        assert math.isclose(y.grad, want[1], rel_tol=1e-9, abs_tol=1e-12), (name, "b.grad", y.grad)


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_the_written_form_is_the_python_that_builds_it(name: str,
                                                       reference_value: type) -> None:
    op = OPERATIONS[name]
    a, b, k = _at(op)
    written = lab02_verdicts.written(name, k=k)
    built = eval(written, {}, {"a": reference_value(a), "b": reference_value(b)})  # our own text
    assert math.isclose(built.data, op.forward(a, b, k), rel_tol=1e-12), (name, written)


def test_kinds_follow_the_written_form() -> None:
    kinds = {name: (op.binary, op.number) for name, op in OPERATIONS.items()}
    assert kinds["truediv"] == (True, False)
    assert kinds["sub-number-on-left"] == (False, True)
    assert kinds["tanh"] == (False, False)
