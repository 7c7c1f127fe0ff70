"""Hidden checks for lab 02 (op derivatives): one pitfall per check, randomized inputs.

Every operation gets four checks: its forward value; its local derivative, against the
reference solution and a central difference; its output scaled by c (the upstream gradient);
its input reused, as in `op(a) + a` (accumulation). exp, log, tanh and sigmoid also get a check
that their derivative reads the right number (the input or the output); - and / get numbers on
either side, and ** a Value exponent.

Prerequisites keep blame on one pitfall. A derivative that reads the input where it should read
the output is reported by its own check: the plain local-derivative check then says it was not
run, instead of failing too. In micrograd's style `a - b` is `a + (-b)` and `a / b` is
`a * b**-1`, so the checks of - and / wait for the matching checks of unary - and **.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from grader.expect import close, expect_close, expect_results_close, field
from grader.scenarios import lab02_ops as scenarios

H = 1e-5  # central-difference step; f(x ± H) stays away from kinks and singularities
INT_EXPONENTS = (2, 3, -1, -2)
FLOAT_EXPONENTS = (0.5, 1.5, 2.5, -0.5)


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


# The value of each operation, f(x, y, k), computed here for central differences.
FUNCTIONS: dict[str, Callable[[float, Any, Any], float]] = {
    "neg": lambda x, y, k: -x,
    "sub": lambda x, y, k: x - y,
    "truediv": lambda x, y, k: x / y,
    "pow": lambda x, y, k: x ** k,
    "exp": lambda x, y, k: math.exp(x),
    "log": lambda x, y, k: math.log(x),
    "tanh": lambda x, y, k: math.tanh(x),
    "relu": lambda x, y, k: max(x, 0.0),
    "sigmoid": lambda x, y, k: _sigmoid(x),
}
# A derivative that reads the wrong number: what it gives at x, what it reads, what it should
# read, and the check that reports it.
CONFUSED: dict[str, tuple[Callable[[float], float], str, str, str]] = {
    "exp": (lambda x: x, "self.data", "out.data", "exp-derivative-uses-output"),
    "log": (lambda x: 1 / math.log(x), "out.data", "self.data", "log-derivative-uses-input"),
    "tanh": (lambda x: 1 - x * x, "self.data", "out.data", "tanh-derivative-uses-output"),
    "sigmoid": (lambda x: x * (1 - x), "self.data", "out.data", "sigmoid-derivative-uses-output"),
}


class ReferenceDisagrees(RuntimeError):
    """The reference solution and the central difference differ: a grader bug."""


# -- inputs --------------------------------------------------------------------------------------

def _number(rng: random.Random, low: float, high: float, signed: bool = True) -> float:
    """A value with magnitude in [low, high], 3 decimals, of random sign when `signed`."""
    value = round(rng.uniform(low, high), 3)
    return value * rng.choice((-1, 1)) if signed else value


def _x(rng: random.Random, op: str) -> float:
    """An input for a one-argument operation, away from its kinks and singularities."""
    while True:
        if op == "log":
            x = _number(rng, 0.15, 5.0, signed=False)  # x > 0.1, and log(x) not near 0
            if abs(math.log(x)) > 0.2:
                return x
        elif op == "relu":
            return _number(rng, 0.2, 3.0)  # |x| > 0.1
        else:
            x = _number(rng, 0.5, 3.0)
            if abs(abs(x) - 1) > 0.1:  # near 1, x**n and x**(n-1) hardly differ
                return x


def _points(rng: random.Random, op: str, relu_signs: tuple[int, ...] = (1, -1)) -> list[dict]:
    """The inputs at which a check evaluates `op`: one point, or one per case that matters."""
    if op in ("sub", "truediv"):
        x = _number(rng, 0.5, 3.0)
        while True:
            y = _number(rng, 0.6, 3.0)  # a denominator with |y| > 0.5, and y**2 not near |y|
            if abs(abs(y) - abs(x)) > 0.05 and abs(abs(y) - 1) > 0.1:
                return [{"x": x, "y": y}]
    if op == "pow":  # an int exponent at any base, a float one at a base > 0.1
        return [{"x": _x(rng, op), "k": rng.choice(INT_EXPONENTS)},
                {"x": abs(_x(rng, op)), "k": rng.choice(FLOAT_EXPONENTS)}]
    if op == "relu":  # one point on each side of the kink that matters
        return [{"x": sign * abs(_x(rng, op))} for sign in relu_signs]
    return [{"x": _x(rng, op)}]


def _shown(op: str, around: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs as the feedback shows them: the expression, then a, b and c."""
    shown: dict[str, Any] = {"out": scenarios.written(op, around, inputs.get("k"))}
    for key, name in (("x", "a"), ("y", "b"), ("z", "c")):
        if inputs.get(key) is not None:
            shown[name] = inputs[key]
    return shown


def _central_difference(op: str, inputs: dict[str, Any], key: str) -> float:
    """d op / d inputs[key] by a central difference, computed in this process."""
    def value_at(shift: float) -> float:
        point = {"x": inputs["x"], "y": inputs.get("y"), "k": inputs.get("k")}
        point[key] += shift
        return FUNCTIONS[op](point["x"], point["y"], point["k"])

    return (value_at(H) - value_at(-H)) / (2 * H)


# -- checks, by kind -----------------------------------------------------------------------------

def _check_forward(run, reference, rng, op):
    for inputs in _points(rng, op):
        result = scenarios.run_op(run, op, around="forward", **inputs)
        expected = scenarios.run_op(reference, op, around="forward", **inputs)
        expect_results_close(result, expected, inputs=_shown(op, "forward", inputs),
                             source="reference")


def _check_local_derivative(run, reference, rng, op):
    for inputs in _points(rng, op):
        result = scenarios.run_op(run, op, **inputs)
        expected = scenarios.run_op(reference, op, **inputs)
        shown = _shown(op, "alone", inputs)
        for key, quantity in (("x", "a.grad"), ("y", "b.grad")):
            if key not in inputs:
                continue
            slope = _central_difference(op, inputs, key)
            if not close(expected[quantity], slope):
                raise ReferenceDisagrees(f"{op} at {inputs}: {expected[quantity]} vs {slope}")
            actual = field(result, quantity, float)
            confused = None
            if op in CONFUSED and key == "x":
                formula, read, instead, check = CONFUSED[op]
                confused = (formula(inputs["x"]), read, instead, check)
            scenarios.expect_gradient(actual, expected[quantity], quantity=quantity, inputs=shown,
                                      source="reference", confused=confused)
            expect_close(actual, slope, quantity=quantity, inputs=shown,
                         source="central-difference")


def _check_reads_the_right_value(run, reference, rng, op):
    formula = CONFUSED[op][0]
    inputs = _points(rng, op)[0]
    expected = scenarios.run_op(reference, op, **inputs)["a.grad"]
    if close(expected, formula(inputs["x"])):
        raise ReferenceDisagrees(f"{op} at {inputs}: the confused derivative is the right one")
    what = f"out = {scenarios.written(op)}; out.backward()"
    result = scenarios.run_or_not_run(run, what, op, **inputs)
    scenarios.expect_not_confused(field(result, "a.grad", float), expected, formula(inputs["x"]),
                                  quantity="a.grad", inputs=_shown(op, "alone", inputs),
                                  source="reference")


def _check_around(run, reference, rng, op, around):
    # relu passes nothing back for x < 0, whatever the upstream gradient: look at x > 0 only
    for inputs in _points(rng, op, relu_signs=(1,)):
        if around == "scaled":
            inputs["z"] = _number(rng, 1.5, 3.0)  # c, far from 1
        result = scenarios.run_op(run, op, around=around, **inputs)
        expected = scenarios.run_op(reference, op, around=around, **inputs)
        expect_results_close(result, expected, inputs=_shown(op, around, inputs),
                             source="reference")


def _check_number_operand(run, reference, rng, op):
    inputs = {"x": _number(rng, 0.6, 3.0), "k": rng.choice((2, 3, 5, -2, -3))}
    result = scenarios.run_op(run, op, **inputs)
    expected = scenarios.run_op(reference, op, **inputs)
    expect_results_close(result, expected, inputs=_shown(op, "alone", inputs), source="reference")


# -- unary minus ---------------------------------------------------------------------------------

@pytest.mark.check(id="neg-forward", pitfall="graph-construction", weight=1)
def test_neg_gives_minus_a(run, reference, rng):
    _check_forward(run, reference, rng, "neg")


@pytest.mark.check(id="neg-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("neg-forward",))
def test_neg_passes_minus_one(run, reference, rng):
    _check_local_derivative(run, reference, rng, "neg")


@pytest.mark.check(id="neg-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("neg-local-derivative",))
def test_neg_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "neg", "scaled")


@pytest.mark.check(id="neg-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("neg-local-derivative",))
def test_neg_of_a_reused_input_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "neg", "reused")


# -- subtraction ---------------------------------------------------------------------------------

@pytest.mark.check(id="sub-forward", pitfall="graph-construction", weight=1,
                   requires=("neg-forward",))
def test_sub_gives_the_difference(run, reference, rng):
    _check_forward(run, reference, rng, "sub")


@pytest.mark.check(id="sub-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("sub-forward", "neg-local-derivative"))
def test_sub_passes_one_and_minus_one(run, reference, rng):
    _check_local_derivative(run, reference, rng, "sub")


@pytest.mark.check(id="sub-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("sub-local-derivative", "neg-passes-upstream-gradient"))
def test_sub_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "sub", "scaled")


@pytest.mark.check(id="sub-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("sub-local-derivative", "neg-accumulates"))
def test_sub_of_reused_inputs_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "sub", "reused")


@pytest.mark.check(id="sub-number-on-right", pitfall="number-operand", weight=1,
                   requires=("sub-local-derivative",))
def test_sub_takes_a_number_on_the_right(run, reference, rng):
    _check_number_operand(run, reference, rng, "sub-number-on-right")


@pytest.mark.check(id="sub-number-on-left", pitfall="number-operand", weight=1,
                   requires=("sub-local-derivative",))
def test_sub_takes_a_number_on_the_left(run, reference, rng):
    _check_number_operand(run, reference, rng, "sub-number-on-left")


# -- powers --------------------------------------------------------------------------------------

@pytest.mark.check(id="pow-forward", pitfall="graph-construction", weight=1)
def test_pow_gives_the_power(run, reference, rng):
    _check_forward(run, reference, rng, "pow")


@pytest.mark.check(id="pow-rejects-value-exponent", pitfall="unsupported-operand", weight=1,
                   requires=("pow-forward",))
def test_pow_with_a_value_exponent_raises(run, rng):
    inputs = {"x": abs(_x(rng, "pow")), "k": rng.choice((2, 3))}
    result = run(scenarios.pow_value_exponent, **inputs)
    scenarios.expect_rejected(result, {"a": inputs["x"], "k": inputs["k"]})


@pytest.mark.check(id="pow-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("pow-forward",))
def test_pow_passes_n_times_a_to_the_n_minus_one(run, reference, rng):
    _check_local_derivative(run, reference, rng, "pow")


@pytest.mark.check(id="pow-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("pow-local-derivative",))
def test_pow_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "pow", "scaled")


@pytest.mark.check(id="pow-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("pow-local-derivative",))
def test_pow_of_a_reused_input_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "pow", "reused")


# -- division ------------------------------------------------------------------------------------

@pytest.mark.check(id="truediv-forward", pitfall="graph-construction", weight=1,
                   requires=("pow-forward",))
def test_truediv_gives_the_quotient(run, reference, rng):
    _check_forward(run, reference, rng, "truediv")


@pytest.mark.check(id="truediv-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("truediv-forward", "pow-local-derivative",
                             "pow-passes-upstream-gradient"))
def test_truediv_passes_one_over_b_and_minus_a_over_b_squared(run, reference, rng):
    _check_local_derivative(run, reference, rng, "truediv")


@pytest.mark.check(id="truediv-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("truediv-local-derivative",))
def test_truediv_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "truediv", "scaled")


@pytest.mark.check(id="truediv-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("truediv-local-derivative", "pow-accumulates"))
def test_truediv_of_reused_inputs_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "truediv", "reused")


@pytest.mark.check(id="truediv-number-on-right", pitfall="number-operand", weight=1,
                   requires=("truediv-local-derivative",))
def test_truediv_takes_a_number_on_the_right(run, reference, rng):
    _check_number_operand(run, reference, rng, "truediv-number-on-right")


@pytest.mark.check(id="truediv-number-on-left", pitfall="number-operand", weight=1,
                   requires=("truediv-local-derivative",))
def test_truediv_takes_a_number_on_the_left(run, reference, rng):
    _check_number_operand(run, reference, rng, "truediv-number-on-left")


# -- exp -----------------------------------------------------------------------------------------

@pytest.mark.check(id="exp-forward", pitfall="graph-construction", weight=1)
def test_exp_gives_e_to_the_a(run, reference, rng):
    _check_forward(run, reference, rng, "exp")


@pytest.mark.check(id="exp-derivative-uses-output", pitfall="input-output-confusion", weight=2,
                   requires=("exp-forward",))
def test_exp_derivative_reads_the_output(run, reference, rng):
    _check_reads_the_right_value(run, reference, rng, "exp")


@pytest.mark.check(id="exp-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("exp-forward",))
def test_exp_passes_e_to_the_a(run, reference, rng):
    _check_local_derivative(run, reference, rng, "exp")


@pytest.mark.check(id="exp-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("exp-local-derivative",))
def test_exp_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "exp", "scaled")


@pytest.mark.check(id="exp-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("exp-local-derivative",))
def test_exp_of_a_reused_input_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "exp", "reused")


# -- log -----------------------------------------------------------------------------------------

@pytest.mark.check(id="log-forward", pitfall="graph-construction", weight=1)
def test_log_gives_the_natural_logarithm(run, reference, rng):
    _check_forward(run, reference, rng, "log")


@pytest.mark.check(id="log-derivative-uses-input", pitfall="input-output-confusion", weight=2,
                   requires=("log-forward",))
def test_log_derivative_reads_the_input(run, reference, rng):
    _check_reads_the_right_value(run, reference, rng, "log")


@pytest.mark.check(id="log-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("log-forward",))
def test_log_passes_one_over_a(run, reference, rng):
    _check_local_derivative(run, reference, rng, "log")


@pytest.mark.check(id="log-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("log-local-derivative",))
def test_log_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "log", "scaled")


@pytest.mark.check(id="log-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("log-local-derivative",))
def test_log_of_a_reused_input_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "log", "reused")


# -- tanh ----------------------------------------------------------------------------------------

@pytest.mark.check(id="tanh-forward", pitfall="graph-construction", weight=1)
def test_tanh_gives_the_hyperbolic_tangent(run, reference, rng):
    _check_forward(run, reference, rng, "tanh")


@pytest.mark.check(id="tanh-derivative-uses-output", pitfall="input-output-confusion", weight=2,
                   requires=("tanh-forward",))
def test_tanh_derivative_reads_the_output(run, reference, rng):
    _check_reads_the_right_value(run, reference, rng, "tanh")


@pytest.mark.check(id="tanh-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("tanh-forward",))
def test_tanh_passes_one_minus_tanh_squared(run, reference, rng):
    _check_local_derivative(run, reference, rng, "tanh")


@pytest.mark.check(id="tanh-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("tanh-local-derivative",))
def test_tanh_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "tanh", "scaled")


@pytest.mark.check(id="tanh-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("tanh-local-derivative",))
def test_tanh_of_a_reused_input_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "tanh", "reused")


# -- relu ----------------------------------------------------------------------------------------

@pytest.mark.check(id="relu-forward", pitfall="graph-construction", weight=1)
def test_relu_keeps_positives_and_zeroes_negatives(run, reference, rng):
    _check_forward(run, reference, rng, "relu")


@pytest.mark.check(id="relu-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("relu-forward",))
def test_relu_passes_one_above_zero_and_zero_below(run, reference, rng):
    _check_local_derivative(run, reference, rng, "relu")


@pytest.mark.check(id="relu-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("relu-local-derivative",))
def test_relu_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "relu", "scaled")


@pytest.mark.check(id="relu-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("relu-local-derivative",))
def test_relu_of_a_reused_input_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "relu", "reused")


# -- sigmoid -------------------------------------------------------------------------------------

@pytest.mark.check(id="sigmoid-forward", pitfall="graph-construction", weight=1)
def test_sigmoid_gives_one_over_one_plus_e_to_the_minus_a(run, reference, rng):
    _check_forward(run, reference, rng, "sigmoid")


@pytest.mark.check(id="sigmoid-derivative-uses-output", pitfall="input-output-confusion",
                   weight=2, requires=("sigmoid-forward",))
def test_sigmoid_derivative_reads_the_output(run, reference, rng):
    _check_reads_the_right_value(run, reference, rng, "sigmoid")


@pytest.mark.check(id="sigmoid-local-derivative", pitfall="wrong-local-derivative", weight=2,
                   requires=("sigmoid-forward",))
def test_sigmoid_passes_s_times_one_minus_s(run, reference, rng):
    _check_local_derivative(run, reference, rng, "sigmoid")


@pytest.mark.check(id="sigmoid-passes-upstream-gradient", pitfall="ignores-upstream-gradient",
                   weight=1, requires=("sigmoid-local-derivative",))
def test_sigmoid_scales_by_the_upstream_gradient(run, reference, rng):
    _check_around(run, reference, rng, "sigmoid", "scaled")


@pytest.mark.check(id="sigmoid-accumulates", pitfall="grad-overwrite", weight=1,
                   requires=("sigmoid-local-derivative",))
def test_sigmoid_of_a_reused_input_accumulates(run, reference, rng):
    _check_around(run, reference, rng, "sigmoid", "reused")
