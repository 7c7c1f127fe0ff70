"""Public checks for lab 04, on seed 0 and the inputs [1, -1].

Run them with `make check LAB=lab04_xor` (or `python -m grader check lab04_xor`). The graded
suite runs these and more, with randomized seeds and inputs: passing these is a good sign, not
a guarantee. Like the graded checks, each names one pitfall and waits for the checks it
builds on.

After random.seed(0), the first two draws of random.uniform(-1, 1) are W0 and W1 below, so
Neuron(2) starts with the weights (W0, W1) and the bias 0.
"""

import math
import sys

import pytest

from grader.checking.verdict import close, expect_close, expect_equal, fail, field
from grader.child.scenarios import lab04_xor as scenarios
from grader.checking.verdicts import lab04_xor as verdicts

SEED = 0
X = [1.0, -1.0]
W0, W1 = 0.6888437030500962, 0.515908805880605
OUT = math.tanh(W0 * X[0] + W1 * X[1])  # tanh(w · x + b) with b = 0
LOOP_STEPS = 2


@pytest.mark.check(id="example-parameter-counts", pitfall="nn-structure", weight=1)
def test_example_parameter_counts(sandboxed):
    for kind, args, count, shape in (("Neuron", [2], 3, "Value"),
                                     ("Layer", [2, 4], 12, "list of 4 Values"),
                                     ("MLP", [2, [4, 1]], 17, "Value")):
        call = f"{kind}({', '.join(map(str, args))})"
        result = sandboxed(scenarios.module_forward, seed=SEED, kind=kind, args=args, kwargs={}, x=X)
        expect_equal(field(result, "count", int), count, quantity=f"len({call}.parameters())",
                     inputs={"x": X})
        if "not_value" in result:
            fail("wrong-type", quantity=f"an element of {call}.parameters()", inputs={"x": X},
                 actual_type=field(result, "not_value", str), expected_type="Value")
        expect_equal(field(result, "shape", str), shape, quantity=f"type of {call}(x)",
                     inputs={"x": X})


@pytest.mark.check(id="example-seeded-neuron", pitfall="nn-structure", weight=1,
                   requires=("example-parameter-counts",))
def test_example_seeded_neuron(sandboxed):
    inputs = {"random.seed": SEED, "x": X}
    params = field(sandboxed(scenarios.seeded_parameters, seed=SEED, kind="Neuron", args=[2]),
                   "params", list)
    expect_equal(len(params), 3, quantity="len(Neuron(2).parameters())", inputs=inputs)
    for index, expected in enumerate((W0, W1, 0.0)):
        expect_close(params[index], expected, quantity=f"Neuron(2).parameters()[{index}].data",
                     inputs=inputs, source="literal")
    result = sandboxed(scenarios.module_forward, seed=SEED, kind="Neuron", args=[2], kwargs={}, x=X)
    expect_close(field(result, "outputs", list)[0], OUT, quantity="Neuron(2)(x).data",
                 inputs=inputs, source="literal")


@pytest.mark.check(id="example-parameters-are-the-model-values", pitfall="parameters-copy",
                   weight=1, requires=("example-parameter-counts",))
def test_example_parameters_are_the_model_values(sandboxed):
    for module in field(sandboxed(scenarios.parameters_identity, seed=SEED), "modules", list):
        total, same = field(module, "total", int), field(module, "same", int)
        if field(module, "second", int) != total or same != total:
            fail("parameters-not-identical", call=f"{field(module, 'module', str)}.parameters()",
                 same=same, total=total)
    result = sandboxed(scenarios.parameters_reach_model, seed=SEED, x=X, delta=0.5)
    inputs = {"model": verdicts.XOR_MODEL, "x": X}
    if close(field(result, "before", float), field(result, "after", float)):
        fail("update-not-in-model", inputs=inputs, delta=0.5, actual=result["after"])
    expect_equal(field(result, "in_graph", int), field(result, "total", int),
                 quantity="model.parameters() that are leaves of the graph of model(x)",
                 inputs=inputs)


@pytest.mark.check(id="example-neuron-gradients", pitfall="late-binding-closure", weight=1,
                   requires=("example-seeded-neuron", "example-parameters-are-the-model-values"))
def test_example_neuron_gradients(sandboxed):
    result = sandboxed(scenarios.neuron_gradients, seed=SEED, x=X)
    inputs = {"random.seed": SEED, "out": "Neuron(2)(x)", "x": X}
    local = 1 - OUT ** 2  # d tanh(u) / du = 1 - tanh(u)**2
    grads = field(result, "grads", list)
    expect_equal(len(grads), 3, quantity="len(Neuron(2).parameters())", inputs=inputs)
    for index, expected in enumerate((local * X[0], local * X[1], local)):
        expect_close(grads[index], expected, quantity=f"Neuron(2).parameters()[{index}].grad",
                     inputs=inputs, source="literal")


def _trace(sandboxed):
    result = sandboxed(scenarios.train_trace, seed=SEED, steps=LOOP_STEPS, lr=verdicts.LEARNING_RATE)
    inputs = {"model": verdicts.XOR_MODEL, "random.seed": SEED, "steps": LOOP_STEPS,
              "lr": verdicts.LEARNING_RATE}
    return result, inputs


@pytest.mark.check(id="example-loop-zeroes-gradients", pitfall="missing-zero-grad", weight=1,
                   requires=("example-parameters-are-the-model-values",))
def test_example_loop_zeroes_gradients(sandboxed):
    result, inputs = _trace(sandboxed)
    for call, index, grad, fresh, _old, _new in field(result, "updates", list):
        if not close(grad, fresh):
            fail("stale-gradient", inputs=inputs, call=call, index=index, expected=fresh,
                 actual=grad)


@pytest.mark.check(id="example-loop-updates-after-backward", pitfall="mid-flight-mutation",
                   weight=1, requires=("example-parameters-are-the-model-values",))
def test_example_loop_updates_after_backward(sandboxed):
    result, inputs = _trace(sandboxed)
    changed = field(result, "changed", list)
    if changed:
        call, index, forward, now = changed[0]
        fail("data-changed-before-backward", inputs=inputs, call=call, index=index,
             forward=forward, actual=now)


@pytest.mark.check(id="example-learns-xor", pitfall="training-loop", weight=1,
                   requires=("example-neuron-gradients", "example-loop-zeroes-gradients",
                             "example-loop-updates-after-backward"))
def test_example_learns_xor(sandboxed):
    result = sandboxed(scenarios.train_and_evaluate, seed=SEED, steps=verdicts.STEPS,
                 lr=verdicts.LEARNING_RATE)
    loss = verdicts.mean_squared_error(field(result, "after", list), verdicts.XOR_TARGETS)
    if not loss < verdicts.TARGET_LOSS:
        fail("xor-not-learned", inputs={"model": verdicts.XOR_MODEL, "random.seed": SEED,
                                        "steps": verdicts.STEPS, "lr": verdicts.LEARNING_RATE},
             actual=min(loss, sys.float_info.max), target=verdicts.TARGET_LOSS)
