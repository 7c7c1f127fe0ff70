"""Hidden checks for lab 02 (op derivatives): one pitfall per check, randomized inputs.

The checks are one table (`CHECKS`): each row is a parameter of `test_operation` with its own
check id, pitfall, weight and prerequisites. Every operation gets four checks: its forward value; its local derivative, against the
reference solution and a central difference; its output scaled by c (the upstream gradient);
its input reused, as in `op(a) + a` (accumulation). exp, log, tanh and sigmoid also get a check
that their derivative reads the right number (the input or the output); - and / get numbers on
either side, and ** a Value exponent.

Prerequisites keep blame on one pitfall. A derivative that reads the input where it should read
the output is reported by its own check: the plain local-derivative check then says it was not
run, instead of failing too. In micrograd's style `a - b` is `a + (-b)` and `a / b` is
`a * b**-1`, so the checks of - and / defer their blame to the matching checks of unary - and
**: they always run, and one that fails while those failed too is reported as not run.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from grader.checking import (
    OPERATIONS,
    SHAPES_LAB02,
    CheckFailed,
    NotRun,
    check_case,
    close,
    contract_grid,
    expect_close,
    expect_equal,
    expect_results_close,
    field,
    fixed_shapes,
    random_graphs,
    said,
)
from grader.checking.lab02_ops import scenarios, verdicts

H = 1e-5  # central-difference step; f(x ± H) stays away from kinks and singularities
INT_EXPONENTS = (2, 3, -1, -2)
FLOAT_EXPONENTS = (0.5, 1.5, 2.5, -0.5)
ZERO_BASE_EXPONENTS = (2, 3)  # at a = 0, a ** k and its derivative are 0 (and a**-1 is not)


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
                break
        # a denominator of each sign under every seed: `a * b**-1` with a `**` that fails
        # for a negative base fails every draw, never some (see pow-int-exponent-at-a-negative-base)
        return [{"x": x, "y": abs(y)}, {"x": x, "y": -abs(y)}]
    if op == "pow":  # an int and a float exponent, at a positive base (a negative one: below)
        return [{"x": abs(_x(rng, op)), "k": rng.choice(INT_EXPONENTS)},
                {"x": abs(_x(rng, op)), "k": rng.choice(FLOAT_EXPONENTS)}]
    if op == "pow-negative-base":  # an int exponent at a base < 0, under every seed
        return [{"x": -abs(_x(rng, "pow")), "k": rng.choice(INT_EXPONENTS)}]
    if op == "relu":  # one point on each side of the kink that matters
        return [{"x": sign * abs(_x(rng, op))} for sign in relu_signs]
    return [{"x": _x(rng, op)}]


def _shown(op: str, around: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs as the feedback shows them: the expression, then a, b and c."""
    shown: dict[str, Any] = {"out": verdicts.written(op, around, inputs.get("k"))}
    for key, name in (("x", "a"), ("y", "b"), ("z", "c")):
        if inputs.get(key) is not None:
            shown[name] = inputs[key]
    return shown


def _central_difference(op: str, inputs: dict[str, Any], key: str) -> float:
    """d op / d inputs[key] by a central difference, computed in this process."""
    def value_at(shift: float) -> float:
        point = {"x": inputs["x"], "y": inputs.get("y"), "k": inputs.get("k")}
        point[key] += shift
        return OPERATIONS[op].forward(point["x"], point["y"], point["k"])

    return (value_at(H) - value_at(-H)) / (2 * H)


# -- checks, by kind -----------------------------------------------------------------------------

def _check_forward(sandboxed, reference, rng, op):
    for inputs in _points(rng, op):
        result = verdicts.run_op(sandboxed, op, around="forward", **inputs)
        expected = verdicts.run_op(reference, op, around="forward", **inputs)
        reaches = expected.pop("reaches")
        shown = _shown(op, "forward", inputs)
        expect_results_close(result, expected, inputs=shown, source="reference")
        reached = field(result, "reaches", (list, type(None)))
        if reached is not None:  # None: no `_prev` (the parents under another name), not judged
            expect_equal(reached, reaches, quantity=said("quantity-operands-reached", node="out",
                                                         attribute="_prev"), inputs=shown)


def _check_local_derivative(sandboxed, reference, rng, op):
    for inputs in _points(rng, op):
        result = verdicts.run_op(sandboxed, op, **inputs)
        expected = verdicts.run_op(reference, op, **inputs)
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
            with verdicts.op_graph_on_failure(op, "alone", inputs, result):
                verdicts.expect_gradient(actual, expected[quantity], quantity=quantity,
                                         inputs=shown, source="reference", confused=confused)
                expect_close(actual, slope, quantity=quantity, inputs=shown,
                             source="central-difference")


def _check_reads_the_right_value(sandboxed, reference, rng, op):
    formula = CONFUSED[op][0]
    inputs = _points(rng, op)[0]
    expected = verdicts.run_op(reference, op, **inputs)["a.grad"]
    if close(expected, formula(inputs["x"])):
        raise ReferenceDisagrees(f"{op} at {inputs}: the confused derivative is the right one")
    what = f"out = {verdicts.written(op)}; out.backward()"
    result = verdicts.run_or_not_run(sandboxed, what, op, **inputs)
    with verdicts.op_graph_on_failure(op, "alone", inputs, result):
        verdicts.expect_not_confused(field(result, "a.grad", float), expected,
                                     formula(inputs["x"]), quantity="a.grad",
                                     inputs=_shown(op, "alone", inputs), source="reference")


def _check_around(sandboxed, reference, rng, op, around):
    # relu passes nothing back for x < 0, whatever the upstream gradient: look at x > 0 only
    for inputs in _points(rng, op, relu_signs=(1,)):
        if around == "scaled":
            inputs["z"] = _number(rng, 1.5, 3.0)  # c, far from 1
        result = verdicts.run_op(sandboxed, op, around=around, **inputs)
        expected = verdicts.run_op(reference, op, around=around, **inputs)
        verdicts.expect_op_results(result, expected, op=op, around=around, params=inputs,
                                   inputs=_shown(op, around, inputs), source="reference")


def _check_number_operand(sandboxed, reference, rng, op):
    x, k = _number(rng, 0.6, 3.0, signed=False), rng.choice((2, 3, 5, -2, -3))
    for inputs in ({"x": x, "k": k}, {"x": -x, "k": k}):  # a of each sign, under every seed
        result = verdicts.run_op(sandboxed, op, **inputs)
        expected = verdicts.run_op(reference, op, **inputs)
        verdicts.expect_op_results(result, expected, op=op, around="alone", params=inputs,
                                   inputs=_shown(op, "alone", inputs), source="reference")


def _check_negative_base(sandboxed, reference, rng, op):
    # a ** n for an int n is defined at every base: its forward value, then its gradient
    for inputs in _points(rng, "pow-negative-base"):
        shown = _shown("pow", "forward", inputs)
        result = verdicts.run_op(sandboxed, "pow", around="forward", **inputs)
        expected = verdicts.run_op(reference, "pow", around="forward", **inputs)
        del expected["reaches"]
        expect_results_close(result, expected, inputs=shown, source="reference")
        try:
            result = verdicts.run_op(sandboxed, "pow", **inputs)
            expected = verdicts.run_op(reference, "pow", **inputs)
            verdicts.expect_op_results(result, expected, op="pow", around="alone", params=inputs,
                                       inputs=_shown("pow", "alone", inputs), source="reference")
        except CheckFailed as exc:  # the value is right: what fails is the derivative
            exc.pitfall = exc.pitfall or "wrong-local-derivative"
            raise


def _check_zero_base(sandboxed, reference, rng, op):
    # a ** n for an int n >= 1 is defined at a = 0, and so is its derivative n * 0**(n-1); a
    # derivative written n * out.data / a divides by zero there (relu(x) ** 2 at x < 0 gets 0)
    inputs = {"x": 0.0, "k": rng.choice(ZERO_BASE_EXPONENTS)}
    result = verdicts.run_op(sandboxed, "pow", **inputs)
    expected = verdicts.run_op(reference, "pow", **inputs)
    verdicts.expect_op_results(result, expected, op="pow", around="alone", params=inputs,
                               inputs=_shown("pow", "alone", inputs), source="reference")


def _check_rejects_value_exponent(sandboxed, reference, rng, op):
    inputs = {"x": abs(_x(rng, op)), "k": rng.choice((2, 3))}
    result = sandboxed(scenarios.pow_value_exponent, **inputs)
    verdicts.expect_rejected(result, {"a": inputs["x"], "k": inputs["k"]})


def _check_scaled(sandboxed, reference, rng, op):
    _check_around(sandboxed, reference, rng, op, "scaled")


def _check_reused(sandboxed, reference, rng, op):
    _check_around(sandboxed, reference, rng, op, "reused")


KINDS = {
    "forward": _check_forward,
    "local-derivative": _check_local_derivative,
    "reads-the-right-value": _check_reads_the_right_value,
    "scaled": _check_scaled,
    "reused": _check_reused,
    "number-operand": _check_number_operand,
    "rejects-value-exponent": _check_rejects_value_exponent,
    "negative-base": _check_negative_base,
    "zero-base": _check_zero_base,
}
# Where an operation built from ** meets a negative base: checks of / defer to this one.
NEGATIVE_BASE = "pow-int-exponent-at-a-negative-base"

# (operation, kind of check) per check, in the order they run: prerequisites come first.
CHECKS = [
    # neg
    check_case("neg", "forward", id="neg-forward", pitfall="graph-construction", weight=1,
               clause="neg"),
    check_case("neg", "local-derivative", id="neg-local-derivative",
               pitfall="wrong-local-derivative", weight=2, requires=("neg-forward",), clause="neg"),
    check_case("neg", "scaled", id="neg-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1, requires=("neg-local-derivative",),
               clause="neg"),
    check_case("neg", "reused", id="neg-accumulates",
               pitfall="grad-overwrite", weight=1, requires=("neg-local-derivative",),
               random_defers=True, clause=("neg", "adds")),
    # sub
    check_case("sub", "forward", id="sub-forward",
               pitfall="graph-construction", weight=1, defers_to=("neg-forward",), clause="sub"),
    check_case("sub", "local-derivative", id="sub-local-derivative",
               pitfall="wrong-local-derivative", weight=2,
               requires=("sub-forward",), defers_to=("neg-local-derivative",), clause="sub"),
    check_case("sub", "scaled", id="sub-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1,
               requires=("sub-local-derivative",),
               defers_to=("neg-passes-upstream-gradient",), clause="sub"),
    check_case("sub", "reused", id="sub-accumulates",
               pitfall="grad-overwrite", weight=1,
               requires=("sub-local-derivative",), defers_to=("neg-accumulates",),
               random_defers=True, clause=("sub", "adds")),
    check_case("sub-number-on-right", "number-operand", id="sub-number-on-right",
               pitfall="number-operand", weight=1, requires=("sub-local-derivative",),
               clause="sub"),
    check_case("sub-number-on-left", "number-operand", id="sub-number-on-left",
               pitfall="number-operand", weight=1, requires=("sub-local-derivative",),
               clause="sub"),
    # pow
    check_case("pow", "forward", id="pow-forward", pitfall="graph-construction", weight=1,
               clause="pow"),
    check_case("pow", "rejects-value-exponent", id="pow-rejects-value-exponent",
               pitfall="unsupported-operand", weight=1, requires=("pow-forward",),
               clause="other-exponent"),
    check_case("pow", "local-derivative", id="pow-local-derivative",
               pitfall="wrong-local-derivative", weight=2, requires=("pow-forward",), clause="pow"),
    check_case("pow", "scaled", id="pow-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1, requires=("pow-local-derivative",),
               clause="pow"),
    check_case("pow", "reused", id="pow-accumulates",
               pitfall="grad-overwrite", weight=1, requires=("pow-local-derivative",),
               random_defers=True, clause=("pow", "adds")),
    check_case("pow", "negative-base", id=NEGATIVE_BASE, pitfall="graph-construction",
               weight=1, requires=("pow-forward",), defers_to=("pow-local-derivative",),
               clause="pow"),
    check_case("pow", "zero-base", id="pow-int-exponent-at-a-zero-base",
               pitfall="wrong-local-derivative", weight=1, requires=("pow-local-derivative",),
               defers_to=(NEGATIVE_BASE,), clause="pow"),
    # truediv
    check_case("truediv", "forward", id="truediv-forward",
               pitfall="graph-construction", weight=1, defers_to=("pow-forward", NEGATIVE_BASE),
               clause="truediv"),
    check_case("truediv", "local-derivative", id="truediv-local-derivative",
               pitfall="wrong-local-derivative", weight=2,
               requires=("truediv-forward",),
               defers_to=("pow-local-derivative", "pow-passes-upstream-gradient",
                          NEGATIVE_BASE), clause="truediv"),
    check_case("truediv", "scaled", id="truediv-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1,
               requires=("truediv-local-derivative",), defers_to=(NEGATIVE_BASE,),
               clause="truediv"),
    check_case("truediv", "reused", id="truediv-accumulates",
               pitfall="grad-overwrite", weight=1,
               requires=("truediv-local-derivative",),
               defers_to=("pow-accumulates", NEGATIVE_BASE), random_defers=True,
               clause=("truediv", "adds")),
    check_case("truediv-number-on-right", "number-operand", id="truediv-number-on-right",
               pitfall="number-operand", weight=1, requires=("truediv-local-derivative",),
               defers_to=(NEGATIVE_BASE,), clause="truediv"),
    check_case("truediv-number-on-left", "number-operand", id="truediv-number-on-left",
               pitfall="number-operand", weight=1, requires=("truediv-local-derivative",),
               defers_to=(NEGATIVE_BASE,), clause="truediv"),
    # exp
    check_case("exp", "forward", id="exp-forward", pitfall="graph-construction", weight=1,
               clause="functions"),
    check_case("exp", "reads-the-right-value", id="exp-derivative-uses-output",
               pitfall="input-output-confusion", weight=2, requires=("exp-forward",),
               clause="functions"),
    check_case("exp", "local-derivative", id="exp-local-derivative",
               pitfall="wrong-local-derivative", weight=2, requires=("exp-forward",),
               clause="functions"),
    check_case("exp", "scaled", id="exp-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1, requires=("exp-local-derivative",),
               clause="functions"),
    check_case("exp", "reused", id="exp-accumulates",
               pitfall="grad-overwrite", weight=1, requires=("exp-local-derivative",),
               random_defers=True, clause=("functions", "adds")),
    # log
    check_case("log", "forward", id="log-forward", pitfall="graph-construction", weight=1,
               clause="functions"),
    check_case("log", "reads-the-right-value", id="log-derivative-uses-input",
               pitfall="input-output-confusion", weight=2, requires=("log-forward",),
               clause="functions"),
    check_case("log", "local-derivative", id="log-local-derivative",
               pitfall="wrong-local-derivative", weight=2, requires=("log-forward",),
               clause="functions"),
    check_case("log", "scaled", id="log-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1, requires=("log-local-derivative",),
               clause="functions"),
    check_case("log", "reused", id="log-accumulates",
               pitfall="grad-overwrite", weight=1, requires=("log-local-derivative",),
               random_defers=True, clause=("functions", "adds")),
    # tanh
    check_case("tanh", "forward", id="tanh-forward", pitfall="graph-construction", weight=1,
               clause="functions"),
    check_case("tanh", "reads-the-right-value", id="tanh-derivative-uses-output",
               pitfall="input-output-confusion", weight=2, requires=("tanh-forward",),
               clause="functions"),
    check_case("tanh", "local-derivative", id="tanh-local-derivative",
               pitfall="wrong-local-derivative", weight=2, requires=("tanh-forward",),
               clause="functions"),
    check_case("tanh", "scaled", id="tanh-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1, requires=("tanh-local-derivative",),
               clause="functions"),
    check_case("tanh", "reused", id="tanh-accumulates",
               pitfall="grad-overwrite", weight=1, requires=("tanh-local-derivative",),
               random_defers=True, clause=("functions", "adds")),
    # relu
    check_case("relu", "forward", id="relu-forward", pitfall="graph-construction", weight=1,
               clause="functions"),
    check_case("relu", "local-derivative", id="relu-local-derivative",
               pitfall="wrong-local-derivative", weight=2, requires=("relu-forward",),
               clause="functions"),
    check_case("relu", "scaled", id="relu-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1, requires=("relu-local-derivative",),
               clause="functions"),
    check_case("relu", "reused", id="relu-accumulates",
               pitfall="grad-overwrite", weight=1, requires=("relu-local-derivative",),
               random_defers=True, clause=("functions", "adds")),
    # sigmoid
    check_case("sigmoid", "forward", id="sigmoid-forward", pitfall="graph-construction", weight=1,
               clause="functions"),
    check_case("sigmoid", "reads-the-right-value", id="sigmoid-derivative-uses-output",
               pitfall="input-output-confusion", weight=2, requires=("sigmoid-forward",),
               clause="functions"),
    check_case("sigmoid", "local-derivative", id="sigmoid-local-derivative",
               pitfall="wrong-local-derivative", weight=2, requires=("sigmoid-forward",),
               clause="functions"),
    check_case("sigmoid", "scaled", id="sigmoid-passes-upstream-gradient",
               pitfall="ignores-upstream-gradient", weight=1,
               requires=("sigmoid-local-derivative",), clause="functions"),
    check_case("sigmoid", "reused", id="sigmoid-accumulates",
               pitfall="grad-overwrite", weight=1, requires=("sigmoid-local-derivative",),
               random_defers=True, clause=("functions", "adds")),
]


@pytest.mark.parametrize(("op", "kind"), CHECKS)
def test_operation(sandboxed, reference, rng, op, kind):
    KINDS[kind](sandboxed, reference, rng, op)


# The nodes of the random programs (grader.grading.checking.random_graphs) each row of CHECKS judges.
GRAPH_OPS = {"sub": ("sub", "sub-number-on-right", "sub-number-on-left"),
             "truediv": ("truediv", "truediv-number-on-right", "truediv-number-on-left")}
NOT_ACCUMULATION = tuple(case.id for case in CHECKS if not case.id.endswith("-accumulates"))


def _broken_ops(statuses, checks):
    """The program operations for which one of `checks` has failed (or was not run for a
    failed prerequisite)."""
    broken = set()
    for case in CHECKS:
        if case.id in checks and statuses.get(case.id, "passed") not in ("passed", "declined"):
            op = case.values[0]
            broken.update(GRAPH_OPS.get(op, (op,)))
    return broken


def _judged_apart(programs, statuses, checks):
    """The programs without the operations for which one of `checks` has failed (or was not run
    for a failed prerequisite): those cost their own checks. Not run if none is left."""
    kept = random_graphs.programs_without(programs, _broken_ops(statuses, checks))
    judged = {op for case in CHECKS for op in GRAPH_OPS.get(case.values[0], (case.values[0],))}
    if not any({node[0] for node in program["nodes"]} & judged for program in kept):
        # no program with an operation of this lab is left: nothing of lab 02 to judge
        raise NotRun("prerequisite", checks=[c for c in checks
                                             if statuses.get(c, "passed") != "passed"])
    return kept


# `=` instead of `+=` is a headline pitfall: one op that overwrites costs this check too, so
# that it costs at least a tenth of the lab's points (docs/how-it-works.md, points per pitfall).
@pytest.mark.check(id="accumulates-in-every-op", pitfall="grad-overwrite", weight=6, clause="adds")
def test_every_operation_adds_to_the_gradients_of_a_reused_input(sandboxed, reference, rng,
                                                                  statuses):
    # every op in one sandbox run: op(a) + a, and (a op b) + a + b for - and /; an op whose
    # own checks (value, derivative) failed is left out: a wrong tanh costs tanh's checks only
    programs = _judged_apart(random_graphs.reused_op_programs(rng), statuses, NOT_ACCUMULATION)
    random_graphs.judge(sandboxed, reference, scenarios.random_graphs, programs,
                        default_pitfall="grad-overwrite", diagnosed=False)


# -- the contract's instance state and shared inputs (grader.grading.checking.contract_grid) -----
# Before the random check, which defers to them (random_defers): its programs run in one process
# and share inputs too, so a node kept per number or a result stored on the input can show there
# first, under a pitfall it would diagnose from numbers alone. They judge only the operations
# whose own rows passed, and defer to the accumulation checks.
ACCUMULATION = (*(case.id for case in CHECKS if case.id.endswith("-accumulates")),
                "accumulates-in-every-op")


@pytest.mark.check(id="op-values-keep-no-state", pitfall="shared-state", weight=3,
                   defers_to=ACCUMULATION, random_defers=True, clause="independent")
def test_graphs_of_every_op_built_in_any_order_keep_their_own_numbers(sandboxed, reference, rng,
                                                                      statuses):
    broken = _broken_ops(statuses, NOT_ACCUMULATION)
    own = [op for op in random_graphs.LAB02_OPS if op not in random_graphs.LAB01_OPS]
    sessions = [session for session in contract_grid.state_sessions(rng, own)
                if len(random_graphs.programs_without(session["programs"], broken))
                == len(session["programs"])]  # an operation whose rows failed costs them
    if not sessions:
        raise NotRun("prerequisite", checks=sorted(c for c in NOT_ACCUMULATION
                                                   if statuses.get(c, "passed") != "passed"))
    contract_grid.judge_sessions(sandboxed, reference, scenarios.state_sessions, sessions,
                                 "shared-state", evidence=True)


@pytest.mark.check(id="shared-input-feeds-several-ops", pitfall="shared-state", weight=3,
                   defers_to=(*ACCUMULATION, "op-values-keep-no-state"), random_defers=True,
                   clause="shared-input")
def test_one_input_feeding_several_operations_gets_every_contribution(sandboxed, reference, rng,
                                                                      statuses):
    programs = _judged_apart(contract_grid.fan_out_programs(rng, random_graphs.LAB02_OPS),
                             statuses, NOT_ACCUMULATION)
    contract_grid.judge_shared_inputs(sandboxed, reference, scenarios.state_sessions, programs,
                                      "shared-state")


RANDOM_GRAPHS = 6  # drawn after the fixed shapes of random_graphs.SHAPES_LAB02


@pytest.mark.check(id="random-op-graphs-match-reference", pitfall="wrong-local-derivative", weight=6,
                   random=True, clause=("numbers-not-labels", "combine"))
def test_random_graphs_give_the_reference_data_and_gradients(sandboxed, reference, rng, blame_deferred,
                                                             statuses):
    # programs with an operation whose own checks failed are left out; an overwrite anywhere
    # still costs this check (a headline pitfall): it defers to the rows marked random_defers,
    # the -accumulates ones
    programs = _judged_apart(random_graphs.draw_programs(rng, random_graphs.LAB02_OPS, RANDOM_GRAPHS,
                                                         random_graphs.SHAPES_LAB02),
                             statuses, NOT_ACCUMULATION)
    random_graphs.judge(sandboxed, reference, scenarios.random_graphs, programs,
                        default_pitfall="wrong-local-derivative",
                        explain=not blame_deferred)



# -- each operation's share of the lab: its gradient in every graph ------------------------------
# A bug that makes one operation's gradient wrong in every graph (an exp whose `_backward` ignores
# out.grad, a `__rsub__` of the wrong sign) fails one row of CHECKS; these checks give it the
# operation's share of the lab (README, "Points per operation"). Each runs the shapes of the
# random check that use the operation; a failure is named by the operation's first failed row
# (the evidence of what is wrong), is not run while a row of it was not run (its prerequisite
# failed elsewhere), and otherwise is diagnosed and defers to the random check.
OPERATION_SHARE = 10
FAMILIES = ("neg", "sub", "pow", "truediv", "exp", "log", "tanh", "relu", "sigmoid")


def _rows_of(family):
    """The rows of CHECKS that judge `family` (sub: its numbers on either side too)."""
    ops = GRAPH_OPS.get(family, (family,))
    return [case.id for case in CHECKS if case.values[0] in ops]


SHARES = [check_case(family, id=f"{family}-gradient-in-graphs", pitfall="wrong-local-derivative",
                     weight=OPERATION_SHARE, defers_to=("random-op-graphs-match-reference",),
                     clause="operation-share")
          for family in FAMILIES]


@pytest.mark.parametrize("family", SHARES)
def test_each_operation_is_right_in_every_graph_that_uses_it(sandboxed, reference, rng, statuses,
                                                              family):
    ops = set(GRAPH_OPS.get(family, (family,)))
    shapes = [shape for shape in SHAPES_LAB02 if {node[0] for node in shape[1]} & ops]
    # a shape that also uses another operation whose own rows failed costs that operation
    elsewhere = _broken_ops(statuses, [case.id for case in CHECKS]) - ops
    programs = random_graphs.programs_without(fixed_shapes(rng, shapes), elsewhere)
    if not programs:
        raise NotRun("prerequisite", checks=sorted(c.id for c in CHECKS
                                                   if statuses.get(c.id, "passed") == "failed"))
    rows = _rows_of(family)
    failed = [row for row in rows if statuses.get(row) == "failed"]
    try:
        random_graphs.judge(sandboxed, reference, scenarios.random_graphs, programs,
                            default_pitfall="wrong-local-derivative", diagnosed=not failed)
    except CheckFailed as exc:
        error = str(exc.detail["params"].get("error", ""))
        if error.startswith("NotImplementedError"):  # a TODO not written: its rows say so
            raise NotRun("prerequisite", checks=failed or rows) from None
        if failed:  # named by the row that shows what is wrong
            exc.pitfall = next(case.marks[0].kwargs["pitfall"] for case in CHECKS
                               if case.id == failed[0])
            raise
        unsettled = [row for row in rows if statuses.get(row, "passed") not in ("passed",
                                                                                "declined")]
        if unsettled:
            raise NotRun("prerequisite", checks=unsettled) from None
        raise


# -- checks generated from the contract's dimensions (grader.grading.checking.contract_grid) ----
# Each judges only the operations whose own rows passed (`_judged_apart`), and defers to the
# accumulation rows and the random graphs: it takes the blame only for what no other check sees.

CONTRACT = contract_grid.DIMENSIONS["lab02_ops"]
NUMBERS_JUDGED = (*ACCUMULATION, "op-values-keep-no-state", "shared-input-feeds-several-ops",
                  "random-op-graphs-match-reference")


EDGES_DEFER = NUMBERS_JUDGED


@pytest.mark.check(id="op-edges-match-reference", pitfall="domain-edge", weight=4,
                   defers_to=EDGES_DEFER, clause="domain")
def test_every_operation_at_the_edges_of_its_domain_gives_the_reference_numbers(
        sandboxed, reference, statuses):
    programs = _judged_apart(contract_grid.edge_programs(CONTRACT), statuses, NOT_ACCUMULATION)
    random_graphs.judge(sandboxed, reference, scenarios.random_graphs, programs,
                        default_pitfall="domain-edge", diagnosed=False, exact=True)
    kinks = random_graphs.programs_without(contract_grid.edge_programs(CONTRACT, "kink"),
                                           _broken_ops(statuses, NOT_ACCUMULATION))
    if kinks:  # relu at exactly 0, unless relu's own rows failed: a number, its slope 0 (or 1)
        contract_grid.judge_kinks(sandboxed, scenarios.state_sessions, kinks, "domain-edge")


@pytest.mark.check(id="saturating-functions-stay-finite", pitfall="domain-edge", weight=2,
                   defers_to=EDGES_DEFER, clause="domain-functions")
def test_tanh_and_sigmoid_stay_finite_far_from_zero(sandboxed, reference, statuses):
    programs = _judged_apart(contract_grid.edge_programs(CONTRACT, "saturating"), statuses,
                             NOT_ACCUMULATION)
    random_graphs.judge(sandboxed, reference, scenarios.random_graphs, programs,
                        default_pitfall="domain-edge", diagnosed=False)


@pytest.mark.check(id="every-op-returns-a-new-value", pitfall="graph-construction", weight=2,
                   clause="new-value")
def test_no_operation_returns_one_of_its_operands(sandboxed, statuses):
    programs = _judged_apart(contract_grid.edge_programs(CONTRACT), statuses, NOT_ACCUMULATION)
    result = sandboxed(scenarios.state_sessions,
                       sessions=[contract_grid.new_value_session(programs)])
    contract_grid.expect_new_values(result, programs, "graph-construction")
