"""Public checks for lab 02, on small worked examples (a = 2 unless a check says otherwise).

Run them with `make check LAB=lab02_ops` (or `python -m grader check lab02_ops`). The graded
suite runs these and more, with randomized inputs: passing these is a good sign, not a guarantee.
Like the graded checks, each names one pitfall and waits for the checks it builds on. Every
expected number below was worked out by hand (or with a calculator), to 16 digits.
"""

import random

import pytest

from grader.checking import check_case, contract_grid, expect_results_close, field
from grader.checking.lab02_ops import scenarios, verdicts

A = 2.0
E_SQUARED = 7.38905609893065  # e ** 2
LN_2 = 0.6931471805599453  # log(2)
TANH_HALF = 0.46211715726000974  # tanh(0.5)
TANH_HALF_SLOPE = 0.7864477329659274  # 1 - tanh(0.5) ** 2
SIGMOID_HALF = 0.6224593312018546  # 1 / (1 + e ** -0.5)
SIGMOID_HALF_SLOPE = 0.2350037122015945  # sigmoid(0.5) * (1 - sigmoid(0.5))
ONE_OVER_LN_2 = 1.4426950408889634  # 1 / log(2)


def _expect(sandboxed, op, expected, inputs, around="alone"):
    """Run `op` on the inputs and compare with the literal expected numbers."""
    result = verdicts.run_op(sandboxed, op, around=around, **inputs)
    shown = {"out": verdicts.written(op, around, inputs.get("k"))}
    shown.update({name: inputs[key] for key, name in (("x", "a"), ("y", "b"), ("z", "c"))
                  if key in inputs})
    verdicts.expect_op_results(result, expected, op=op, around=around, params=inputs,
                               inputs=shown, source="literal")


def _expect_derivative(sandboxed, op, x, slope, confused, check):
    """The gradient of `op` at x is `slope`; the confused value is left to `check`."""
    value, read, instead = confused
    result = verdicts.run_op(sandboxed, op, x=x)
    shown = {"out": verdicts.written(op), "a": x}
    with verdicts.op_graph_on_failure(op, "alone", {"x": x}, result):
        verdicts.expect_gradient(field(result, "a.grad", float), slope, quantity="a.grad",
                                 inputs=shown, source="literal",
                                 confused=(value, read, instead, check))


def _expect_not_confused(sandboxed, op, x, slope, confused):
    """The gradient of `op` at x is not the confused value."""
    what = f"out = {verdicts.written(op)}; out.backward()"
    result = verdicts.run_or_not_run(sandboxed, what, op, x=x)
    with verdicts.op_graph_on_failure(op, "alone", {"x": x}, result):
        verdicts.expect_not_confused(field(result, "a.grad", float), slope, confused,
                                     quantity="a.grad",
                                     inputs={"out": verdicts.written(op), "a": x},
                                     source="literal")


# -- unary minus and subtraction -----------------------------------------------------------------

@pytest.mark.check(id="example-neg-forward", todo=3, pitfall="graph-construction", weight=1)
def test_example_neg_forward(sandboxed):
    _expect(sandboxed, "neg", {"data": -2.0}, {"x": A}, around="forward")


@pytest.mark.check(id="example-neg-derivative", todo=3, pitfall="wrong-local-derivative", weight=1,
                   requires=("example-neg-forward",))
def test_example_neg_derivative(sandboxed):
    _expect(sandboxed, "neg", {"a.grad": -1.0}, {"x": A})


@pytest.mark.check(id="example-sub-forward", todo=4, pitfall="graph-construction", weight=1,
                   requires=("example-neg-forward",))
def test_example_sub_forward(sandboxed):
    _expect(sandboxed, "sub", {"data": 3.0}, {"x": 5.0, "y": A}, around="forward")


@pytest.mark.check(id="example-sub-derivative", todo=4, pitfall="wrong-local-derivative", weight=1,
                   requires=("example-sub-forward", "example-neg-derivative"))
def test_example_sub_derivative(sandboxed):
    _expect(sandboxed, "sub", {"a.grad": 1.0, "b.grad": -1.0}, {"x": 5.0, "y": A})


@pytest.mark.check(id="example-sub-number-on-left", todo=5, pitfall="number-operand", weight=1,
                   requires=("example-sub-derivative",))
def test_example_number_minus_value(sandboxed):
    _expect(sandboxed, "sub-number-on-left", {"data": -1.0, "a.grad": -1.0}, {"x": A, "k": 1})


# -- powers and division -------------------------------------------------------------------------

@pytest.mark.check(id="example-pow-forward", todo=1, pitfall="graph-construction", weight=1)
def test_example_pow_forward(sandboxed):
    for x, k, power in ((A, 3, 8.0), (4.0, 0.5, 2.0), (A, -1, 0.5)):
        _expect(sandboxed, "pow", {"data": power}, {"x": x, "k": k}, around="forward")


@pytest.mark.check(id="example-pow-rejects-value-exponent", todo=1, pitfall="unsupported-operand",
                   weight=1, requires=("example-pow-forward",))
def test_example_pow_rejects_a_value_exponent(sandboxed):
    result = sandboxed(scenarios.pow_value_exponent, x=A, k=2)
    verdicts.expect_rejected(result, {"a": A, "k": 2})


@pytest.mark.check(id="example-pow-derivative", todo=2, pitfall="wrong-local-derivative", weight=1,
                   requires=("example-pow-forward",))
def test_example_pow_derivative(sandboxed):
    for x, k, slope in ((A, 3, 12.0), (4.0, 0.5, 0.25), (A, -1, -0.25)):
        _expect(sandboxed, "pow", {"a.grad": slope}, {"x": x, "k": k})


@pytest.mark.check(id="example-pow-scaled-output", todo=2, pitfall="ignores-upstream-gradient",
                   weight=1, requires=("example-pow-derivative",))
def test_example_pow_times_c(sandboxed):
    _expect(sandboxed, "pow", {"a.grad": 12.0}, {"x": 3.0, "k": 2, "z": A}, around="scaled")


@pytest.mark.check(id="example-pow-negative-base", todo=(1, 2), pitfall="graph-construction",
                   weight=1, requires=("example-pow-forward",), defers_to=("example-pow-derivative",))
def test_example_pow_at_a_negative_base(sandboxed):
    # an int exponent is defined at every base: (-2) ** 3 is -8, its slope 3 * 4
    _expect(sandboxed, "pow", {"data": -8.0, "a.grad": 12.0}, {"x": -2.0, "k": 3})


@pytest.mark.check(id="example-pow-zero-base", todo=2, pitfall="wrong-local-derivative", weight=1,
                   requires=("example-pow-derivative",), defers_to=("example-pow-negative-base",))
def test_example_pow_at_a_zero_base(sandboxed):
    # 0 ** 2 is 0 and so is its slope 2 * 0: a derivative written n * out / a divides by 0
    _expect(sandboxed, "pow", {"data": 0.0, "a.grad": 0.0}, {"x": 0.0, "k": 2})


@pytest.mark.check(id="example-div-forward", todo=6, pitfall="graph-construction", weight=1,
                   requires=("example-pow-forward",))
def test_example_div_forward(sandboxed):
    _expect(sandboxed, "truediv", {"data": 0.75}, {"x": 3.0, "y": 4.0}, around="forward")


@pytest.mark.check(id="example-div-derivative", todo=6, pitfall="wrong-local-derivative", weight=1,
                   requires=("example-div-forward", "example-pow-derivative",
                             "example-pow-scaled-output"))
def test_example_div_derivative(sandboxed):
    _expect(sandboxed, "truediv", {"a.grad": 0.25, "b.grad": -0.1875}, {"x": 3.0, "y": 4.0})


@pytest.mark.check(id="example-div-number-on-left", todo=7, pitfall="number-operand", weight=1,
                   requires=("example-div-derivative",))
def test_example_number_over_value(sandboxed):
    _expect(sandboxed, "truediv-number-on-left", {"data": 0.5, "a.grad": -0.125}, {"x": 4.0, "k": 2})


# -- exp and log ---------------------------------------------------------------------------------

@pytest.mark.check(id="example-exp-forward", todo=8, pitfall="graph-construction", weight=1)
def test_example_exp_forward(sandboxed):
    _expect(sandboxed, "exp", {"data": E_SQUARED}, {"x": A}, around="forward")


@pytest.mark.check(id="example-exp-reads-output", todo=9,
                   pitfall="input-output-confusion", weight=1,
                   requires=("example-exp-forward",))
def test_example_exp_derivative_reads_the_output(sandboxed):
    _expect_not_confused(sandboxed, "exp", A, E_SQUARED, A)


@pytest.mark.check(id="example-exp-derivative", todo=9, pitfall="wrong-local-derivative", weight=1,
                   requires=("example-exp-forward",))
def test_example_exp_derivative(sandboxed):
    _expect_derivative(sandboxed, "exp", A, E_SQUARED, (A, "self.data", "out.data"),
                       "example-exp-reads-output")


@pytest.mark.check(id="example-log-forward", todo=10, pitfall="graph-construction", weight=1)
def test_example_log_forward(sandboxed):
    _expect(sandboxed, "log", {"data": LN_2}, {"x": A}, around="forward")


@pytest.mark.check(id="example-log-reads-input", todo=11,
                   pitfall="input-output-confusion", weight=1,
                   requires=("example-log-forward",))
def test_example_log_derivative_reads_the_input(sandboxed):
    _expect_not_confused(sandboxed, "log", A, 0.5, ONE_OVER_LN_2)


@pytest.mark.check(id="example-log-derivative", todo=11, pitfall="wrong-local-derivative", weight=1,
                   requires=("example-log-forward",))
def test_example_log_derivative(sandboxed):
    _expect_derivative(sandboxed, "log", A, 0.5, (ONE_OVER_LN_2, "out.data", "self.data"),
                       "example-log-reads-input")


@pytest.mark.check(id="example-log-reused-input", todo=11, pitfall="grad-overwrite", weight=1,
                   requires=("example-log-derivative",))
def test_example_log_plus_a(sandboxed):
    _expect(sandboxed, "log", {"a.grad": 1.5}, {"x": A}, around="reused")


# -- tanh, relu and sigmoid ----------------------------------------------------------------------

@pytest.mark.check(id="example-tanh-forward", todo=12, pitfall="graph-construction", weight=1)
def test_example_tanh_forward(sandboxed):
    _expect(sandboxed, "tanh", {"data": TANH_HALF}, {"x": 0.5}, around="forward")


@pytest.mark.check(id="example-tanh-reads-output", todo=13,
                   pitfall="input-output-confusion", weight=1,
                   requires=("example-tanh-forward",))
def test_example_tanh_derivative_reads_the_output(sandboxed):
    _expect_not_confused(sandboxed, "tanh", 0.5, TANH_HALF_SLOPE, 0.75)


@pytest.mark.check(id="example-tanh-derivative", todo=13,
                   pitfall="wrong-local-derivative", weight=1,
                   requires=("example-tanh-forward",))
def test_example_tanh_derivative(sandboxed):
    _expect_derivative(sandboxed, "tanh", 0.5, TANH_HALF_SLOPE, (0.75, "self.data", "out.data"),
                       "example-tanh-reads-output")


@pytest.mark.check(id="example-relu-forward", todo=14, pitfall="graph-construction", weight=1)
def test_example_relu_forward(sandboxed):
    for x, expected in ((A, A), (-3.0, 0.0)):
        _expect(sandboxed, "relu", {"data": expected}, {"x": x}, around="forward")


@pytest.mark.check(id="example-relu-derivative", todo=15,
                   pitfall="wrong-local-derivative", weight=1,
                   requires=("example-relu-forward",))
def test_example_relu_derivative(sandboxed):
    for x, slope in ((A, 1.0), (-3.0, 0.0)):
        _expect(sandboxed, "relu", {"a.grad": slope}, {"x": x})


@pytest.mark.check(id="example-sigmoid-forward", todo=16, pitfall="graph-construction", weight=1)
def test_example_sigmoid_forward(sandboxed):
    _expect(sandboxed, "sigmoid", {"data": SIGMOID_HALF}, {"x": 0.5}, around="forward")


@pytest.mark.check(id="example-sigmoid-reads-output", todo=17, pitfall="input-output-confusion",
                   weight=1, requires=("example-sigmoid-forward",))
def test_example_sigmoid_derivative_reads_the_output(sandboxed):
    _expect_not_confused(sandboxed, "sigmoid", 0.5, SIGMOID_HALF_SLOPE, 0.25)


@pytest.mark.check(id="example-sigmoid-derivative", todo=17,
                   pitfall="wrong-local-derivative", weight=1,
                   requires=("example-sigmoid-forward",))
def test_example_sigmoid_derivative(sandboxed):
    _expect_derivative(sandboxed, "sigmoid", 0.5, SIGMOID_HALF_SLOPE,
                       (0.25, "self.data", "out.data"), "example-sigmoid-reads-output")


# -- every operation: its output scaled, its input reused ----------------------------------------
# One row per operation and pitfall, so that one operation's bug fails that operation's row only.
# In `op(a) * c` the gradient arriving at the operation is c, not 1 (ignores-upstream-gradient);
# in `op(a) + a` the sum's `_backward` gives a its share before the operation's own runs
# (grad-overwrite). `- b` and `/ b` of micrograd's style are `+ (-b)` and `* b**-1`: their rows
# defer to those of unary minus and `**`. `**` scaled and log reused are the checks above;
# `k - a` and `k / a` get a scaled row (their reused input is judged with - and / above).

C = 3.0  # the upstream gradient of the scaled rows
EXP_SLOPE = E_SQUARED  # d exp(a) / da at a = 2
SCALED = [
    check_case("neg", {"x": A, "z": C}, {"a.grad": -C}, id="example-neg-scaled-output", todo=3,
               pitfall="ignores-upstream-gradient", weight=1, requires=("example-neg-derivative",)),
    check_case("sub", {"x": 5.0, "y": A, "z": C}, {"a.grad": C, "b.grad": -C},
               id="example-sub-scaled-output", todo=4, pitfall="ignores-upstream-gradient", weight=1,
               requires=("example-sub-derivative",), defers_to=("example-neg-scaled-output",)),
    check_case("truediv", {"x": 3.0, "y": 4.0, "z": C}, {"a.grad": 0.75, "b.grad": -0.5625},
               id="example-div-scaled-output", todo=6, pitfall="ignores-upstream-gradient", weight=1,
               requires=("example-div-derivative",)),
    check_case("exp", {"x": A, "z": C}, {"a.grad": C * EXP_SLOPE}, id="example-exp-scaled-output", todo=9,
               pitfall="ignores-upstream-gradient", weight=1, requires=("example-exp-derivative",)),
    check_case("log", {"x": A, "z": C}, {"a.grad": 1.5}, id="example-log-scaled-output", todo=11,
               pitfall="ignores-upstream-gradient", weight=1, requires=("example-log-derivative",)),
    check_case("tanh", {"x": 0.5, "z": C}, {"a.grad": C * TANH_HALF_SLOPE},
               id="example-tanh-scaled-output", todo=13, pitfall="ignores-upstream-gradient", weight=1,
               requires=("example-tanh-derivative",)),
    check_case("relu", {"x": A, "z": C}, {"a.grad": C}, id="example-relu-scaled-output", todo=15,
               pitfall="ignores-upstream-gradient", weight=1, requires=("example-relu-derivative",)),
    check_case("sigmoid", {"x": 0.5, "z": C}, {"a.grad": C * SIGMOID_HALF_SLOPE},
               id="example-sigmoid-scaled-output", todo=17, pitfall="ignores-upstream-gradient", weight=1,
               requires=("example-sigmoid-derivative",)),
    check_case("sub-number-on-left", {"x": A, "k": 1, "z": C}, {"a.grad": -C},
               id="example-rsub-scaled-output", todo=5, pitfall="ignores-upstream-gradient", weight=1,
               requires=("example-sub-number-on-left",), defers_to=("example-neg-scaled-output",)),
    check_case("truediv-number-on-left", {"x": 4.0, "k": 2, "z": C}, {"a.grad": -0.375},
               id="example-rdiv-scaled-output", todo=7, pitfall="ignores-upstream-gradient", weight=1,
               requires=("example-div-number-on-left",)),
]
REUSED = [
    check_case("neg", {"x": A}, {"a.grad": 0.0}, id="example-neg-reused-input", todo=3,
               pitfall="grad-overwrite", weight=1, requires=("example-neg-derivative",)),
    check_case("sub", {"x": 5.0, "y": A}, {"a.grad": 2.0, "b.grad": 0.0},
               id="example-sub-reused-input", todo=4, pitfall="grad-overwrite", weight=1,
               requires=("example-sub-derivative",), defers_to=("example-neg-reused-input",)),
    check_case("pow", {"x": A, "k": 3}, {"a.grad": 13.0}, id="example-pow-reused-input", todo=2,
               pitfall="grad-overwrite", weight=1, requires=("example-pow-derivative",)),
    check_case("truediv", {"x": 3.0, "y": 4.0}, {"a.grad": 1.25, "b.grad": 0.8125},
               id="example-div-reused-input", todo=6, pitfall="grad-overwrite", weight=1,
               requires=("example-div-derivative",), defers_to=("example-pow-reused-input",)),
    check_case("exp", {"x": A}, {"a.grad": EXP_SLOPE + 1}, id="example-exp-reused-input", todo=9,
               pitfall="grad-overwrite", weight=1, requires=("example-exp-derivative",)),
    check_case("tanh", {"x": 0.5}, {"a.grad": TANH_HALF_SLOPE + 1},
               id="example-tanh-reused-input", todo=13, pitfall="grad-overwrite", weight=1,
               requires=("example-tanh-derivative",)),
    check_case("relu", {"x": A}, {"a.grad": 2.0}, id="example-relu-reused-input", todo=15,
               pitfall="grad-overwrite", weight=1, requires=("example-relu-derivative",)),
    check_case("sigmoid", {"x": 0.5}, {"a.grad": SIGMOID_HALF_SLOPE + 1},
               id="example-sigmoid-reused-input", todo=17, pitfall="grad-overwrite", weight=1,
               requires=("example-sigmoid-derivative",)),
]


@pytest.mark.parametrize(("op", "inputs", "expected"), SCALED)
def test_example_output_times_c(sandboxed, op, inputs, expected):
    _expect(sandboxed, op, expected, inputs, around="scaled")


@pytest.mark.parametrize(("op", "inputs", "expected"), REUSED)
def test_example_input_reused_by_a_sum(sandboxed, op, inputs, expected):
    _expect(sandboxed, op, expected, inputs, around="reused")


# -- a plain number on the right of - and / ------------------------------------------------------

NUMBER_ON_RIGHT = [
    check_case("sub-number-on-right", {"x": 5.0, "k": 2}, {"data": 3.0, "a.grad": 1.0},
               id="example-sub-number-on-right", todo=4, pitfall="number-operand", weight=1,
               requires=("example-sub-derivative",)),
    check_case("truediv-number-on-right", {"x": 3.0, "k": 2}, {"data": 1.5, "a.grad": 0.5},
               id="example-div-number-on-right", todo=6, pitfall="number-operand", weight=1,
               requires=("example-div-derivative",)),
]


@pytest.mark.parametrize(("op", "inputs", "expected"), NUMBER_ON_RIGHT)
def test_example_value_and_number(sandboxed, op, inputs, expected):
    _expect(sandboxed, op, expected, inputs)



# -- the contract's edges and state, from the generator the graded checks use --------------------
# Fixed, visible inputs (the leaves of the sessions and of the shared inputs are drawn with
# random.Random(32)); every program is printed in full when it fails, and its expected numbers are
# the operations' maths on plain floats (contract_grid.model). They judge what the checks above
# do not see: each defers to all of them.

CONTRACT = contract_grid.DIMENSIONS["lab02_ops"]
ALL_TODOS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)  # every TODO of the stub
SEEN_ABOVE = (
    "example-neg-forward", "example-neg-derivative", "example-sub-forward",
    "example-sub-derivative", "example-sub-number-on-left", "example-pow-forward",
    "example-pow-rejects-value-exponent", "example-pow-derivative", "example-pow-scaled-output",
    "example-pow-negative-base", "example-pow-zero-base", "example-div-forward",
    "example-div-derivative", "example-div-number-on-left", "example-exp-forward",
    "example-exp-reads-output", "example-exp-derivative", "example-log-forward",
    "example-log-reads-input", "example-log-derivative", "example-log-reused-input",
    "example-tanh-forward", "example-tanh-reads-output", "example-tanh-derivative",
    "example-relu-forward", "example-relu-derivative", "example-sigmoid-forward",
    "example-sigmoid-reads-output", "example-sigmoid-derivative", "example-neg-scaled-output",
    "example-sub-scaled-output", "example-div-scaled-output", "example-exp-scaled-output",
    "example-log-scaled-output", "example-tanh-scaled-output", "example-relu-scaled-output",
    "example-sigmoid-scaled-output", "example-rsub-scaled-output", "example-rdiv-scaled-output",
    "example-neg-reused-input", "example-sub-reused-input", "example-pow-reused-input",
    "example-div-reused-input", "example-exp-reused-input", "example-tanh-reused-input",
    "example-relu-reused-input", "example-sigmoid-reused-input", "example-sub-number-on-right",
    "example-div-number-on-right",
)
OWN_OPS = ("sub", "truediv", "sub-number-on-right", "sub-number-on-left", "truediv-number-on-right",
           "truediv-number-on-left", "neg", "pow", "exp", "log", "tanh", "relu", "sigmoid")


@pytest.mark.check(id="example-op-graphs-keep-no-state", todo=ALL_TODOS, pitfall="shared-state",
                   weight=1, defers_to=SEEN_ABOVE)
def test_example_graphs_of_every_op_keep_their_own_numbers(sandboxed):
    sessions = contract_grid.state_sessions(random.Random(contract_grid.PUBLIC_SEED), OWN_OPS)
    contract_grid.judge_sessions(sandboxed, None, scenarios.state_sessions, sessions,
                                 "shared-state", evidence=True)


@pytest.mark.check(id="example-shared-input", todo=ALL_TODOS, pitfall="shared-state", weight=1,
                   defers_to=(*SEEN_ABOVE, "example-op-graphs-keep-no-state"))
def test_example_one_input_feeding_several_operations(sandboxed):
    programs = contract_grid.fan_out_programs(random.Random(contract_grid.PUBLIC_SEED),
                                              ("add", "mul", *OWN_OPS))
    contract_grid.judge_shared_inputs(sandboxed, None, scenarios.state_sessions, programs,
                                      "shared-state")


EDGES_DEFER = (*SEEN_ABOVE, "example-op-graphs-keep-no-state", "example-shared-input")


@pytest.mark.check(id="example-op-edges", todo=ALL_TODOS, pitfall="domain-edge", weight=1,
                   defers_to=EDGES_DEFER)
def test_example_every_operation_at_the_edges_of_its_domain(sandboxed):
    sessions = contract_grid.one_by_one(contract_grid.public_programs(CONTRACT))
    contract_grid.judge_sessions(sandboxed, None, scenarios.state_sessions, sessions,
                                 "domain-edge", exact=True)
    contract_grid.judge_kinks(sandboxed, scenarios.state_sessions,
                              contract_grid.public_programs(CONTRACT, "kink"), "domain-edge")


@pytest.mark.check(id="example-saturating-functions", todo=(12, 13, 16, 17), pitfall="domain-edge",
                   weight=1, defers_to=EDGES_DEFER)
def test_example_tanh_and_sigmoid_far_from_zero(sandboxed):
    sessions = contract_grid.one_by_one(contract_grid.public_programs(CONTRACT, "saturating"))
    contract_grid.judge_sessions(sandboxed, None, scenarios.state_sessions, sessions,
                                 "domain-edge")


@pytest.mark.check(id="example-op-returns-a-new-value", todo=ALL_TODOS,
                   pitfall="graph-construction", weight=1)
def test_example_every_operation_returns_a_new_value(sandboxed):
    programs = contract_grid.public_programs(CONTRACT)
    result = sandboxed(scenarios.state_sessions,
                       sessions=[contract_grid.new_value_session(programs)])
    contract_grid.expect_new_values(result, programs, "graph-construction")
