"""Public checks for lab 04, on seed 0 and the inputs [1, -1].

Run them with `make check LAB=lab04_xor` (or `python -m grader check lab04_xor`). The graded
suite runs these and more, with randomized seeds and inputs: passing these is a good sign, not
a guarantee. Like the graded checks, each names one pitfall and waits for the checks it
builds on.

They come in the order of the TODOs of `nn.py`: `Module.zero_grad`, then `Neuron`, `Layer`,
`MLP` and `train_xor`, and each piece earns its checks as soon as it is written.

After random.seed(0), the first two draws of random.uniform(-1, 1) are W0 and W1 below, so
Neuron(2) starts with the weights (W0, W1) and the bias 0.
"""

import math
import sys

import pytest

from grader.checking import close, expect_close, expect_equal, fail, field, said
from grader.checking.lab04_xor import scenarios, verdicts

SEED = 0
X = [1.0, -1.0]
W0, W1 = 0.6888437030500962, 0.515908805880605
LINEAR = W0 * X[0] + W1 * X[1]  # w · x + b with b = 0
OUT = math.tanh(LINEAR)
LOOP_STEPS = 2
STALE = [0.5, -2.0]  # gradients left over from an earlier backward pass


def _expect_parameters_are_own(sandboxed, kind):
    """parameters() gives the same objects twice, the leaves of the output, and reaches it."""
    name = {"Neuron": "Neuron(3)", "MLP": "MLP(2, [4, 1])"}[kind]
    result = sandboxed(scenarios.parameters_identity, seed=SEED, kinds=[kind])
    for module in field(result, "modules", list):
        total, same = field(module, "total", int), field(module, "same", int)
        if field(module, "second", int) != total or same != total:
            fail("parameters-not-identical", call=f"{name}.parameters()", same=same, total=total)
    result = sandboxed(scenarios.parameters_reach_model, seed=SEED, x=X, delta=0.5, kind=kind)
    inputs = {"model": verdicts.XOR_MODEL if kind == "MLP" else "Neuron(2)", "x": X}
    if close(field(result, "before", float), field(result, "after", float)):
        fail("update-not-in-model", inputs=inputs, delta=0.5, actual=result["after"])
    verdicts.expect_graph_not_cut(result, inputs)
    expect_equal(field(result, "in_graph", int), field(result, "total", int),
                 quantity=said("quantity-leaves-of", code="parameters()", graph="the output"),
                 inputs=inputs)


def _expect_module(sandboxed, kind, args, shape, count, expected_of):
    """The module's parameter count, output shape, and outputs from its own parameters."""
    call = f"{kind}({', '.join(map(str, args))})"
    inputs = {"random.seed": SEED, "x": X}
    result = sandboxed(scenarios.module_forward, seed=SEED, kind=kind, args=args, kwargs={}, x=X)
    expect_equal(field(result, "count", int), count, quantity=f"len({call}.parameters())",
                 inputs=inputs)
    if "not_value" in result:
        fail("wrong-type", quantity=said("quantity-element-of", code=f"{call}.parameters()"), inputs=inputs,
             actual_type=field(result, "not_value", str), expected_type="Value")
    expect_equal(field(result, "shape", str), shape, quantity=said("quantity-type-of", code=f"{call}(x)"), inputs=inputs)
    outputs = field(result, "outputs", list)
    for index, (actual, expected) in enumerate(
            zip(outputs, expected_of(field(result, "params", list)), strict=True)):
        quantity = f"{call}(x)" if len(outputs) == 1 else f"{call}(x)[{index}]"
        expect_close(actual, expected, quantity=quantity + ".data", inputs=inputs,
                     source="own-parameters")


# -- TODO 1: Module.zero_grad ---------------------------------------------------------------------

@pytest.mark.check(id="example-module-zero-grad", todo=1, pitfall="missing-zero-grad", weight=1)
def test_example_zero_grad_resets_every_parameter(sandboxed):
    result = sandboxed(scenarios.zero_grad_module, grads=STALE)
    inputs = {"grads": said("input-every-grad", code="p.grad", value=STALE, node="p"),
              "called": "zero_grad()"}
    for index, grad in enumerate(field(result, "grads", list)):
        expect_close(grad, 0.0, quantity=f"parameters()[{index}].grad", inputs=inputs,
                     source="literal")


# -- TODOs 2 to 4: Neuron -------------------------------------------------------------------------

@pytest.mark.check(id="example-neuron-output", todo=(2, 3), pitfall="nn-structure", weight=1)
def test_example_neuron_output(sandboxed):
    for nonlin, expected, written in ((True, OUT, "Neuron(2)(x)"),
                                      (False, LINEAR, "Neuron(2, nonlin=False)(x)")):
        result = sandboxed(scenarios.neuron_output, seed=SEED, x=X, nonlin=nonlin)
        inputs = {"random.seed": SEED, "x": X}
        expect_equal(field(result, "type", str), "Value", quantity=said("quantity-type-of", code=written),
                     inputs=inputs)
        expect_close(field(result, "out", float), expected, quantity=f"{written}.data",
                     inputs=inputs, source="literal")


@pytest.mark.check(id="example-neuron-parameters", todo=(2, 4), pitfall="nn-structure", weight=1)
def test_example_neuron_parameters(sandboxed):
    inputs = {"random.seed": SEED}
    params = field(sandboxed(scenarios.seeded_parameters, seed=SEED, kind="Neuron", args=[2]),
                   "params", list)
    expect_equal(len(params), 3, quantity="len(Neuron(2).parameters())", inputs=inputs)
    for index, expected in enumerate((W0, W1, 0.0)):
        expect_close(params[index], expected, quantity=f"Neuron(2).parameters()[{index}].data",
                     inputs=inputs, source="literal")


@pytest.mark.check(id="example-neuron-parameters-are-its-values", todo=4, pitfall="parameters-copy",
                   weight=1, requires=("example-neuron-output", "example-neuron-parameters"))
def test_example_neuron_parameters_are_its_own_values(sandboxed):
    _expect_parameters_are_own(sandboxed, "Neuron")


@pytest.mark.check(id="example-neuron-gradients", todo=3, pitfall="late-binding-closure", weight=1,
                   requires=("example-neuron-parameters-are-its-values",))
def test_example_neuron_gradients(sandboxed):
    result = sandboxed(scenarios.neuron_gradients, seed=SEED, x=X)
    inputs = {"random.seed": SEED, "out": "Neuron(2)(x)", "x": X}
    local = 1 - OUT ** 2  # d tanh(u) / du = 1 - tanh(u)**2
    grads = field(result, "grads", list)
    expect_equal(len(grads), 3, quantity="len(Neuron(2).parameters())", inputs=inputs)
    for index, expected in enumerate((local * X[0], local * X[1], local)):
        expect_close(grads[index], expected, quantity=f"Neuron(2).parameters()[{index}].grad",
                     inputs=inputs, source="literal")


# -- TODOs 5 to 7: Layer --------------------------------------------------------------------------

@pytest.mark.check(id="example-layer", todo=(5, 6), pitfall="nn-structure", weight=1,
                   requires=("example-neuron-output", "example-neuron-parameters"))
def test_example_layer(sandboxed):
    for nout, shape in ((4, "list of 4 Values"), (1, "Value")):
        _expect_module(sandboxed, "Layer", [2, nout], shape, 3 * nout,
                       lambda params, nout=nout: verdicts.layer_outputs(params, 2, nout, X, True))


@pytest.mark.check(id="example-layer-neurons-are-distinct", todo=5,
                   pitfall="nn-structure", weight=1,
                   requires=("example-layer",))
def test_example_layer_neurons_are_distinct(sandboxed):
    result = sandboxed(scenarios.module_forward, seed=SEED, kind="Layer", args=[2, 4], kwargs={},
                       x=X)
    verdicts.expect_distinct_parameters(result, "Layer(2, 4)", {"random.seed": SEED})


# -- TODOs 8 to 10: MLP ---------------------------------------------------------------------------

@pytest.mark.check(id="example-mlp", todo=(8, 9),
                   pitfall="nn-structure", weight=1, requires=("example-layer",))
def test_example_mlp(sandboxed):
    _expect_module(sandboxed, "MLP", [2, [4, 1]], "Value", 17,
                   lambda params: verdicts.mlp_outputs(params, verdicts.XOR_SIZES, X))


@pytest.mark.check(id="example-parameters-are-the-model-values", todo=(7, 10),
                   pitfall="parameters-copy",
                   weight=1, requires=("example-mlp",))
def test_example_parameters_are_the_model_values(sandboxed):
    _expect_parameters_are_own(sandboxed, "MLP")


# modules of two-digit sizes list their parameters by index; the lists a module is given stay
# as the caller passed them (a second MLP from the same sizes has the same shape)
WIDE_MODULES = (("Neuron", [12]), ("Layer", [2, 11]))


@pytest.mark.check(id="example-wide-modules-in-order", todo=(4, 7), pitfall="nn-structure",
                   weight=1, requires=("example-neuron-parameters", "example-layer",
                                       "example-layer-neurons-are-distinct"))
def test_example_wide_modules_list_their_parameters_in_order(sandboxed):
    for kind, args in WIDE_MODULES:
        params = field(sandboxed(scenarios.seeded_parameters, seed=SEED, kind=kind, args=args),
                       "params", list)
        call = verdicts.module_call(kind, args)
        expected = verdicts.seeded_draws(SEED, kind, args)
        expect_equal(len(params), len(expected), quantity=f"len({call}.parameters())",
                     inputs={"random.seed": SEED})
        for index, (actual, value) in enumerate(zip(params, expected, strict=True)):
            expect_close(actual, value, quantity=f"{call}.parameters()[{index}].data",
                         inputs={"random.seed": SEED}, source="literal")


@pytest.mark.check(id="example-arguments-kept", todo=(8, 9), pitfall="nn-structure", weight=1,
                   requires=("example-mlp",))
def test_example_modules_leave_their_arguments_as_given(sandboxed):
    result = sandboxed(scenarios.arguments_kept, seed=SEED, nin=2, nouts=[4, 1], x=X)
    verdicts.expect_arguments_kept(result, [4, 1], {"nin": 2, "nouts": [4, 1], "x": X})


# -- TODO 11: train_xor ---------------------------------------------------------------------------

LOOP = ("example-parameters-are-the-model-values",)
# A layer that repeats one neuron updates each shared Value several times per step: the loop
# checks defer to this one rather than blame the loop for it.
DISTINCT = ("example-layer-neurons-are-distinct",)


def _loop_inputs(steps):
    return {"model": verdicts.XOR_MODEL, "random.seed": SEED, "steps": steps,
            "lr": verdicts.LEARNING_RATE}


@pytest.mark.check(id="example-train-xor-losses", todo=11, pitfall="training-loop", weight=1,
                   requires=("example-mlp",))
def test_example_train_xor_returns_one_loss_per_step(sandboxed):
    result = sandboxed(scenarios.train_and_evaluate, seed=SEED, steps=LOOP_STEPS,
                       lr=verdicts.LEARNING_RATE)
    inputs = _loop_inputs(LOOP_STEPS)
    expect_equal(field(result, "type", str), "list", quantity=said("quantity-type-of", code="train_xor(...)"),
                 inputs=inputs)
    losses = field(result, "losses", list)
    expect_equal(len(losses), LOOP_STEPS, quantity="len(train_xor(...))", inputs=inputs)
    first = verdicts.mean_squared_error(field(result, "before", list), verdicts.XOR_TARGETS)
    expect_close(losses[0], first, quantity="train_xor(...)[0]", inputs=inputs,
                 source="own-model")


def _trace(sandboxed):
    result = sandboxed(scenarios.train_trace, seed=SEED, steps=LOOP_STEPS,
                       lr=verdicts.LEARNING_RATE)
    return result, _loop_inputs(LOOP_STEPS)


@pytest.mark.check(id="example-loop-zeroes-gradients", todo=11,
                   pitfall="missing-zero-grad", weight=1,
                   requires=LOOP,
                   defers_to=DISTINCT)
def test_example_loop_zeroes_gradients(sandboxed):
    result, inputs = _trace(sandboxed)
    for update in verdicts.trace_updates(result):
        if not close(update.grad, update.fresh):
            fail("stale-gradient", inputs=inputs, call=update.call, index=update.param,
                 expected=update.fresh, actual=update.grad)


@pytest.mark.check(id="example-loop-updates-after-backward", todo=11, pitfall="mid-flight-mutation",
                   weight=1, requires=LOOP,
                   defers_to=DISTINCT)
def test_example_loop_updates_after_backward(sandboxed):
    result, inputs = _trace(sandboxed)
    changed = verdicts.trace_changes(result)
    if changed:
        first = changed[0]
        fail("data-changed-before-backward", inputs=inputs, call=first.call, index=first.param,
             forward=first.forward, actual=first.now)


@pytest.mark.check(id="example-learns-xor", todo=11, pitfall="training-loop", weight=1,
                   requires=("example-neuron-gradients", "example-train-xor-losses",
                             "example-loop-zeroes-gradients",
                             "example-loop-updates-after-backward"),
                   defers_to=DISTINCT)
def test_example_learns_xor(sandboxed):
    result = sandboxed(scenarios.train_and_evaluate, seed=SEED, steps=verdicts.STEPS,
                       lr=verdicts.LEARNING_RATE)
    loss = verdicts.mean_squared_error(field(result, "after", list), verdicts.XOR_TARGETS)
    if not loss < verdicts.TARGET_LOSS:
        fail("xor-not-learned", inputs=_loop_inputs(verdicts.STEPS),
             actual=min(loss, sys.float_info.max), target=verdicts.TARGET_LOSS)


# -- whole-run promises: every step it is asked for, and no random numbers drawn while training --

@pytest.mark.check(id="example-train-xor-every-step", todo=11, pitfall="training-loop",
                   weight=1, requires=("example-train-xor-losses",))
def test_example_train_xor_runs_every_step(sandboxed):
    # seed 0 reaches the target loss long before step 150: a loop that stops there is short
    result = sandboxed(scenarios.train_and_evaluate, seed=SEED, steps=verdicts.STEPS,
                       lr=verdicts.LEARNING_RATE)
    inputs = _loop_inputs(verdicts.STEPS)
    expect_equal(len(field(result, "losses", list)), verdicts.STEPS,
                 quantity="len(train_xor(...))", inputs=inputs)
    # steps 0, 1, 2 and 3 from seed 0: k losses for k steps, and loss j of the 3-step run is
    # the loss of the model the j-step run left (to 1e-9: the loss itself, not a rounded one)
    runs = {steps: sandboxed(scenarios.train_and_evaluate, seed=SEED, steps=steps,
                             lr=verdicts.LEARNING_RATE, call=verdicts.CALLS[steps % 2])
            for steps in verdicts.SMALL_STEPS}
    verdicts.expect_whole_runs(runs, lambda steps: {**_loop_inputs(steps),
                                                   "calls": verdicts.CALL_TEXT[steps % 2]})


@pytest.mark.check(id="example-train-xor-leaves-random-alone", todo=11, pitfall="training-loop",
                   weight=1, requires=("example-train-xor-losses",))
def test_example_training_draws_no_random_numbers(sandboxed):
    result = sandboxed(scenarios.train_and_evaluate, seed=SEED, steps=LOOP_STEPS,
                       lr=verdicts.LEARNING_RATE)
    if field(result, "random_moved", bool):
        fail("random-drawn-in-training", inputs=_loop_inputs(LOOP_STEPS))
