"""The baseline: a typical instructor script's suite, importing the submission in-process.

40 tests over the lab01 contract, run once per submission with
`pytest --json-report`. This is what bench/grade_class.py compares the grader against; it
has none of the grader's isolation and must never be used to grade real submissions.
"""

import importlib.util
import math
import os

import pytest

spec = importlib.util.spec_from_file_location("value", os.environ["MINIGRAD_SUBMISSION"])
value = importlib.util.module_from_spec(spec)
spec.loader.exec_module(value)
Value = value.Value

POINTS = [(2.0, 3.0), (-1.5, 0.5), (0.25, -4.0), (1.75, 2.5)]


@pytest.mark.parametrize("x, y", POINTS)
def test_add_forward(x, y):
    assert math.isclose((Value(x) + Value(y)).data, x + y)


@pytest.mark.parametrize("x, y", POINTS)
def test_mul_forward(x, y):
    assert math.isclose((Value(x) * Value(y)).data, x * y)


@pytest.mark.parametrize("x, y", POINTS)
def test_add_grad(x, y):
    a, b = Value(x), Value(y)
    (a + b).backward()
    assert (a.grad, b.grad) == (1.0, 1.0)


@pytest.mark.parametrize("x, y", POINTS)
def test_mul_grad(x, y):
    a, b = Value(x), Value(y)
    (a * b).backward()
    assert math.isclose(a.grad, y) and math.isclose(b.grad, x)


@pytest.mark.parametrize("x, y", POINTS)
def test_diamond(x, y):
    a, b = Value(x), Value(y)
    (a * b + a).backward()
    assert math.isclose(a.grad, y + 1)


@pytest.mark.parametrize("x, y", POINTS)
def test_self_add(x, y):
    a = Value(x)
    (a + a).backward()
    assert math.isclose(a.grad, 2.0)


@pytest.mark.parametrize("x, y", POINTS)
def test_self_mul(x, y):
    a = Value(x)
    (a * a).backward()
    assert math.isclose(a.grad, 2 * x)


@pytest.mark.parametrize("x, y", POINTS)
def test_chain(x, y):
    a, b, c = Value(x), Value(y), Value(x + y)
    ((a * b) * c).backward()
    assert math.isclose(a.grad, y * (x + y))


@pytest.mark.parametrize("x, y", POINTS)
def test_numbers_either_side(x, y):
    a = Value(x)
    (2 * a + 1).backward()
    assert math.isclose(a.grad, 2.0)


@pytest.mark.parametrize("x, y", POINTS)
def test_seed_and_structure(x, y):
    a, b = Value(x), Value(y)
    out = a * b
    out.backward()
    assert out.grad == 1.0 and out._op == "*" and len(list(out._prev)) == 2
