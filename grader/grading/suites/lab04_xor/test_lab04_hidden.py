"""Hidden checks for lab 04 (training XOR): one pitfall per check, randomized seeds and inputs.

The structure checks work out what each module must output from the numbers of its own
parameters, so they hold for any initialisation; only `initialisation-follows-the-seed`
compares the weights with the reference, and only `learns-xor` depends on it. The checks of
the training loop watch the student's `train_xor` through the engine (see
`scenarios.train_trace`) and compare what the loop did with what it should have done at that
moment, so they do not depend on the weights either.

The random-network check (`random=True`) defers to the checks marked `random_defers=True`:
the modules' outputs, their parameters and the gradient of each. It sets every parameter
itself and never trains, so the initialisation, `zero_grad` and training checks are not
marked; nor is `layer-neurons-are-distinct`: a layer that repeats one neuron gives a random
network the wrong loss, which the random check names `nn-structure` itself.
"""

import math
import sys

import pytest

from grader.checking import close, distinct_values, expect_close, expect_equal, fail, field, said
from grader.checking.lab04_xor import scenarios, verdicts

STRUCTURE = ("neuron-computes-tanh-of-weighted-sum", "layer-returns-one-output-per-neuron",
             "mlp-chains-its-layers")
OWN_VALUES = ("parameters-returns-the-same-values", "parameters-are-the-models-own-values")
# A layer that repeats one neuron updates each shared Value several times per step: the training
# checks defer to this one rather than blame the loop for it.
DISTINCT = ("layer-neurons-are-distinct",)
TRACE_STEPS = 3
STALE_GRAD = 0.75  # what every parameter's grad holds when the model reaches train_xor
OTHER_RATE = 0.05  # a learning rate other than the default, so that lr must be the one used
# Central differences of the loss: h balances truncation (h**2) against rounding (1e-16 / h).
DIFFERENCE_STEP = 1e-5
DIFFERENCE_REL_TOL, DIFFERENCE_ABS_TOL = 1e-5, 1e-7


def _seed(rng):
    return rng.randrange(1, 10_000)


def _point(rng, names):
    values = distinct_values(rng, names)
    return [values[name] for name in names.split()]


def _expect_module(sandboxed, seed, kind, args, kwargs, x, shape, count, expected_of):
    """Run module_forward and compare count, shape and outputs with what its parameters give."""
    call = f"{kind}({', '.join(map(str, args))}{''.join(f', {k}={v}' for k, v in kwargs.items())})"
    inputs = {"x": x}
    result = sandboxed(scenarios.module_forward, seed=seed, kind=kind, args=args, kwargs=kwargs, x=x)
    expect_equal(field(result, "count", int), count, quantity=f"len({call}.parameters())",
                 inputs=inputs)
    if "not_value" in result:
        fail("wrong-type", quantity=said("quantity-element-of", code=f"{call}.parameters()"), inputs=inputs,
             actual_type=field(result, "not_value", str), expected_type="Value")
    expect_equal(field(result, "shape", str), shape, quantity=said("quantity-type-of", code=f"{call}(x)"), inputs=inputs)
    params = field(result, "params", list)
    outputs = field(result, "outputs", list)
    for index, (actual, expected) in enumerate(zip(outputs, expected_of(params), strict=True)):
        quantity = f"{call}(x)" if len(outputs) == 1 else f"{call}(x)[{index}]"
        expect_close(actual, expected, quantity=quantity + ".data", inputs=inputs,
                     source="own-parameters")


@pytest.mark.check(id="neuron-computes-tanh-of-weighted-sum", pitfall="nn-structure", weight=2,
                   random_defers=True, clause=("neuron-init", "neuron-call"))
def test_neuron_is_tanh_of_its_weighted_sum(sandboxed, rng):
    x = _point(rng, "a b c")
    for kwargs, nonlin in (({}, True), ({"nonlin": False}, False)):
        _expect_module(sandboxed, _seed(rng), "Neuron", [3], kwargs, x, "Value", 4,
                       lambda params, nonlin=nonlin: [verdicts.neuron_output(params, x, nonlin)])


@pytest.mark.check(id="layer-returns-one-output-per-neuron", pitfall="nn-structure", weight=2,
                   requires=STRUCTURE[:1], random_defers=True, clause="layer")
def test_layer_returns_its_neurons_outputs(sandboxed, rng):
    x = _point(rng, "a b c")
    for nout, kwargs, shape in ((2, {}, "list of 2 Values"), (1, {}, "Value"),
                                (2, {"nonlin": False}, "list of 2 Values")):
        nonlin = kwargs.get("nonlin", True)
        _expect_module(sandboxed, _seed(rng), "Layer", [3, nout], kwargs, x, shape, 4 * nout,
                       lambda params, nout=nout, nonlin=nonlin:
                       verdicts.layer_outputs(params, 3, nout, x, nonlin))


@pytest.mark.check(id="mlp-chains-its-layers", pitfall="nn-structure", weight=2,
                   requires=STRUCTURE[:2], random_defers=True, clause="mlp")
def test_mlp_feeds_each_layer_into_the_next(sandboxed, rng):
    for sizes, shape in (([2, 4, 1], "Value"), ([3, 4, 4, 2], "list of 2 Values")):
        x = _point(rng, " ".join("abc"[:sizes[0]]))
        _expect_module(sandboxed, _seed(rng), "MLP", [sizes[0], sizes[1:]], {}, x, shape,
                       verdicts.parameter_count(sizes),
                       lambda params, sizes=sizes, x=x: verdicts.mlp_outputs(params, sizes, x))


@pytest.mark.check(id="layer-neurons-are-distinct", pitfall="nn-structure", weight=2,
                   requires=STRUCTURE, clause="layer")
def test_every_parameter_is_a_value_of_its_own(sandboxed, rng):
    for kind, args, names in (("Layer", [3, 4], "a b c"), ("MLP", [2, [4, 1]], "a b")):
        seed = _seed(rng)
        result = sandboxed(scenarios.module_forward, seed=seed, kind=kind, args=args, kwargs={},
                           x=_point(rng, names))
        call = f"{kind}({', '.join(map(str, args))})"
        verdicts.expect_distinct_parameters(result, call, {"random.seed": seed})


@pytest.mark.check(id="initialisation-follows-the-seed", pitfall="nn-structure", weight=1,
                   requires=STRUCTURE, clause=("neuron-init", "parameters"))
def test_weights_are_drawn_in_order_and_biases_start_at_zero(sandboxed, reference, rng):
    seed = _seed(rng)
    params = {"seed": seed, "kind": "MLP", "args": [2, [4, 1]]}
    actual = field(sandboxed(scenarios.seeded_parameters, **params), "params", list)
    expected = reference(scenarios.seeded_parameters, **params)["params"]
    inputs = {"random.seed": seed, "model": verdicts.XOR_MODEL}
    verdicts.expect_parameters_as_reference(actual, expected, "model", inputs)


@pytest.mark.check(id="parameters-returns-the-same-values", pitfall="parameters-copy", weight=2,
                   requires=STRUCTURE, random_defers=True, clause="parameters")
def test_parameters_gives_back_the_same_objects(sandboxed, rng):
    result = sandboxed(scenarios.parameters_identity, seed=_seed(rng))
    for module in field(result, "modules", list):
        name = field(module, "module", str)
        total = field(module, "total", int)
        same = field(module, "same", int)
        if field(module, "second", int) != total or same != total:
            fail("parameters-not-identical", call=f"{name}.parameters()", same=same, total=total)


@pytest.mark.check(id="parameters-are-the-models-own-values", pitfall="parameters-copy", weight=2,
                   requires=STRUCTURE, random_defers=True, clause="parameters")
def test_changing_parameters_changes_the_model(sandboxed, rng):
    x, delta = _point(rng, "a b"), 0.5
    result = sandboxed(scenarios.parameters_reach_model, seed=_seed(rng), x=x, delta=delta)
    inputs = {"model": verdicts.XOR_MODEL, "x": x}
    before, after = field(result, "before", float), field(result, "after", float)
    if close(before, after):
        fail("update-not-in-model", inputs=inputs, delta=delta, actual=after)
    verdicts.expect_graph_not_cut(result, inputs)
    expect_equal(field(result, "in_graph", int), field(result, "total", int),
                 quantity=said("quantity-leaves-of", code="model.parameters()", graph="model(x)"),
                 inputs=inputs)


@pytest.mark.check(id="zero-grad-resets-every-parameter", pitfall="missing-zero-grad", weight=2,
                   requires=OWN_VALUES, clause="zero-grad")
def test_zero_grad_sets_every_grad_to_zero(sandboxed, rng):
    x, y = _point(rng, "a b"), 1.0
    result = sandboxed(scenarios.zero_grad_resets, seed=_seed(rng), x=x, y=y)
    inputs = {"model": verdicts.XOR_MODEL, "loss": "(model(x) - 1) ** 2", "x": x}
    for index, grad in enumerate(field(result, "grads", list)):
        expect_close(grad, 0.0, quantity=said("quantity-after-call", code=f"model.parameters()[{index}].grad",
                                   call="zero_grad()"),
                     inputs=inputs, source="literal")


@pytest.mark.check(id="every-parameter-gets-its-own-gradient", pitfall="late-binding-closure",
                   weight=3, requires=OWN_VALUES, random_defers=True, clause="gradients")
def test_each_gradient_matches_a_central_difference(sandboxed, rng):
    seed = _seed(rng)
    result = sandboxed(scenarios.gradients_and_differences, seed=seed, h=DIFFERENCE_STEP)
    grads = field(result, "grads", list)
    plus, minus = field(result, "plus", list), field(result, "minus", list)
    inputs = {"model": verdicts.XOR_MODEL, "random.seed": seed,
              "loss": "sum((model(x) - y) ** 2 for x, y in XOR) / 4"}
    for index, (grad, up, down) in enumerate(zip(grads, plus, minus, strict=True)):
        expected = (up - down) / (2 * DIFFERENCE_STEP)
        if not math.isclose(grad, expected, rel_tol=DIFFERENCE_REL_TOL,
                            abs_tol=DIFFERENCE_ABS_TOL):
            fail("mismatch", quantity=f"model.parameters()[{index}].grad", inputs=inputs,
                 expected=expected, actual=grad, source="central-difference")


@pytest.mark.check(id="train-xor-returns-one-loss-per-step", pitfall="training-loop", weight=1,
                   requires=STRUCTURE, clause="losses")
def test_train_xor_returns_the_loss_of_each_step(sandboxed, rng):
    seed = _seed(rng)
    result = sandboxed(scenarios.train_and_evaluate, seed=seed, steps=TRACE_STEPS,
                 lr=verdicts.LEARNING_RATE)
    inputs = {"model": verdicts.XOR_MODEL, "random.seed": seed, "steps": TRACE_STEPS,
              "lr": verdicts.LEARNING_RATE}
    expect_equal(field(result, "type", str), "list", quantity=said("quantity-type-of", code="train_xor(...)"),
                 inputs=inputs)
    losses = field(result, "losses", list)
    expect_equal(len(losses), TRACE_STEPS, quantity="len(train_xor(...))", inputs=inputs)
    first = verdicts.mean_squared_error(field(result, "before", list), verdicts.XOR_TARGETS)
    expect_close(losses[0], first, quantity="train_xor(...)[0]", inputs=inputs,
                 source="own-model")


def _trace(sandboxed, rng, lr=verdicts.LEARNING_RATE, stale=None):
    seed = _seed(rng)
    result = sandboxed(scenarios.train_trace, seed=seed, steps=TRACE_STEPS, lr=lr, stale=stale)
    inputs = {"model": verdicts.XOR_MODEL, "random.seed": seed, "steps": TRACE_STEPS, "lr": lr}
    if stale is not None:
        inputs["every p.grad before train_xor"] = stale
    return result, inputs


@pytest.mark.check(id="train-xor-steps-against-the-gradient", pitfall="training-loop", weight=2,
                   requires=(*OWN_VALUES, "train-xor-returns-one-loss-per-step"),
                   defers_to=DISTINCT, clause="step")
def test_every_update_is_a_gradient_descent_step(sandboxed, rng):
    result, inputs = _trace(sandboxed, rng)
    if field(result, "passes", int) == 0:
        fail("train-no-backward", inputs=inputs)
    updates = verdicts.trace_updates(result)
    updated = {update.param for update in updates}
    for index in range(field(result, "parameters", int)):
        if index not in updated:
            fail("parameter-not-updated", inputs=inputs, index=index)
    lr = verdicts.LEARNING_RATE
    for update in updates:
        if not close(update.new, update.old - lr * update.grad):
            fail("not-a-gradient-step", inputs=inputs, call=update.call, index=update.param,
                 before=update.old, grad=update.grad, expected=update.old - lr * update.grad,
                 actual=update.new)


@pytest.mark.check(id="training-loop-updates-after-backward", pitfall="mid-flight-mutation",
                   weight=4, requires=("train-xor-steps-against-the-gradient",),
                   defers_to=DISTINCT, clause="step")
def test_no_parameter_changes_between_forward_and_backward(sandboxed, rng):
    result, inputs = _trace(sandboxed, rng)
    changed = verdicts.trace_changes(result)
    if changed:
        first = changed[0]
        fail("data-changed-before-backward", inputs=inputs, call=first.call, index=first.param,
             forward=first.forward, actual=first.now)


@pytest.mark.check(id="training-loop-zeroes-gradients", pitfall="missing-zero-grad", weight=3,
                   requires=("zero-grad-resets-every-parameter",
                             "train-xor-steps-against-the-gradient"),
                   defers_to=(*DISTINCT, "training-loop-updates-after-backward"), clause="step")
def test_each_update_uses_only_the_latest_gradient(sandboxed, rng):
    # the model arrives holding gradients: a loop that zeroes after its update, not before
    # backward(), adds the first step's gradients to them
    result, inputs = _trace(sandboxed, rng, stale=STALE_GRAD)
    for update in verdicts.trace_updates(result):
        if not close(update.grad, update.fresh):
            fail("stale-gradient", inputs=inputs, call=update.call, index=update.param,
                 expected=update.fresh, actual=update.grad)


@pytest.mark.check(id="train-xor-defaults-to-the-stated-steps-and-rate", pitfall="training-loop",
                   weight=1, requires=("initialisation-follows-the-seed",
                                       "every-parameter-gets-its-own-gradient",
                                       "train-xor-steps-against-the-gradient",
                                       "training-loop-updates-after-backward"),
                   defers_to=DISTINCT, clause="defaults")
def test_train_xor_defaults_to_the_stated_steps_and_rate(sandboxed, reference, rng):
    seed = _seed(rng)  # MLP(2, [1]): a small model, so the default 150 steps cost little
    result = sandboxed(scenarios.train_and_evaluate, seed=seed, steps=None, lr=None, layers=[1])
    expected = reference(scenarios.train_and_evaluate, seed=seed, steps=verdicts.STEPS,
                         lr=verdicts.LEARNING_RATE, layers=[1])
    inputs = {"model": "MLP(2, [1])", "random.seed": seed, "call": "train_xor(model)"}
    expect_equal(field(result, "type", str), "list", quantity=said("quantity-type-of", code="train_xor(model)"),
                 inputs=inputs)
    losses = field(result, "losses", list)
    expect_equal(len(losses), verdicts.STEPS, quantity="len(train_xor(model))", inputs=inputs)
    # the second loss is the first one the learning rate moves
    expect_close(losses[1], expected["losses"][1], quantity="train_xor(model)[1]",
                 inputs=inputs, source="reference")


@pytest.mark.check(id="learns-xor", pitfall="training-loop", weight=4,
                   requires=("initialisation-follows-the-seed",
                             "every-parameter-gets-its-own-gradient",
                             "training-loop-zeroes-gradients",
                             "training-loop-updates-after-backward"),
                   defers_to=DISTINCT, clause="learns")
def test_training_brings_the_loss_below_the_stated_value(sandboxed, reference, rng):
    params = {"steps": verdicts.STEPS, "lr": verdicts.LEARNING_RATE}
    for _ in range(5):  # a seed from which the reference reaches the stated loss
        seed = _seed(rng)
        expected = reference(scenarios.train_and_evaluate, seed=seed, **params)
        if verdicts.mean_squared_error(expected["after"], verdicts.XOR_TARGETS) \
                < verdicts.TARGET_LOSS:
            break
    else:
        raise RuntimeError("the reference did not learn XOR from five seeds")
    result = sandboxed(scenarios.train_and_evaluate, seed=seed, **params)
    loss = verdicts.mean_squared_error(field(result, "after", list), verdicts.XOR_TARGETS)
    if not loss < verdicts.TARGET_LOSS:
        fail("xor-not-learned", inputs={"model": verdicts.XOR_MODEL, "random.seed": seed,
                                    "steps": verdicts.STEPS, "lr": verdicts.LEARNING_RATE},
             actual=min(loss, sys.float_info.max), target=verdicts.TARGET_LOSS)


RANDOM_NETWORKS = 2  # drawn after the fixed shapes of verdicts.NETWORK_SHAPES


@pytest.mark.check(id="random-networks-match-reference", pitfall="late-binding-closure",
                   weight=3, random=True, clause=("neuron-call", "mlp", "gradients"))
def test_random_networks_give_the_reference_loss_and_gradients(sandboxed, reference, rng):
    networks = verdicts.draw_networks(rng, RANDOM_NETWORKS)
    verdicts.judge_networks(sandboxed, reference, scenarios.random_networks, networks)


@pytest.mark.check(id="train-xor-steps-with-the-given-rate", pitfall="training-loop", weight=1,
                   requires=("train-xor-steps-against-the-gradient",), defers_to=DISTINCT,
                   clause="rate")
def test_every_update_uses_the_learning_rate_it_was_given(sandboxed, rng):
    result, inputs = _trace(sandboxed, rng, lr=OTHER_RATE)
    for update in verdicts.trace_updates(result):
        if not close(update.new, update.old - OTHER_RATE * update.grad):
            fail("not-a-gradient-step", inputs=inputs, call=update.call, index=update.param,
                 before=update.old, grad=update.grad,
                 expected=update.old - OTHER_RATE * update.grad, actual=update.new)


@pytest.mark.check(id="train-xor-runs-every-step", pitfall="training-loop", weight=2,
                   requires=("train-xor-returns-one-loss-per-step",), defers_to=DISTINCT,
                   clause="losses")
def test_train_xor_returns_a_float_loss_for_every_step_it_was_asked(sandboxed, rng):
    # the XOR model for the stated 150 steps: a correct loop is below the target loss within
    # about 27 of them, so a loop that stops there (or anywhere early) returns fewer losses
    seed = _seed(rng)
    result = sandboxed(scenarios.train_and_evaluate, seed=seed, steps=verdicts.STEPS,
                       lr=verdicts.LEARNING_RATE)
    inputs = {"model": verdicts.XOR_MODEL, "random.seed": seed, "steps": verdicts.STEPS,
              "lr": verdicts.LEARNING_RATE}
    expect_equal(field(result, "type", str), "list",
                 quantity=said("quantity-type-of", code="train_xor(...)"), inputs=inputs)
    expect_equal(len(field(result, "losses", list)), verdicts.STEPS,
                 quantity="len(train_xor(...))", inputs=inputs)
    # the loop's ends and the losses themselves (the contract's whole-run dimension): steps
    # 0 to 3 from one seed, each loss the loss of the model after that many steps, to 1e-9
    runs = {steps: sandboxed(scenarios.train_and_evaluate, seed=seed, steps=steps,
                             lr=verdicts.LEARNING_RATE, call=verdicts.CALLS[steps % 2])
            for steps in verdicts.SMALL_STEPS}
    verdicts.expect_whole_runs(runs, lambda steps: {**inputs, "steps": steps,
                                                   "calls": verdicts.CALL_TEXT[steps % 2]})


@pytest.mark.check(id="train-xor-leaves-random-alone", pitfall="training-loop", weight=2,
                   requires=("train-xor-returns-one-loss-per-step",), clause="step")
def test_training_draws_no_random_numbers(sandboxed, rng):
    seed = _seed(rng)
    result = sandboxed(scenarios.train_and_evaluate, seed=seed, steps=TRACE_STEPS,
                       lr=verdicts.LEARNING_RATE)
    if field(result, "random_moved", bool):
        fail("random-drawn-in-training", inputs={"model": verdicts.XOR_MODEL, "random.seed": seed,
                                                 "steps": TRACE_STEPS})


# -- the contract's dimensions no check covered before (issue 32) -------------------------------

@pytest.mark.check(id="parameters-in-order-at-every-size", pitfall="nn-structure", weight=1,
                   requires=("initialisation-follows-the-seed",), defers_to=DISTINCT,
                   clause="parameters")
def test_parameters_keep_their_order_in_wide_modules(sandboxed, reference, rng):
    # module sizes across the contract's domain: ten and more inputs or neurons, where an order
    # kept by name as text ("10" before "2") is not the README's order
    seed = _seed(rng)
    for kind, args in verdicts.wide_modules(rng):
        params = {"seed": seed, "kind": kind, "args": args}
        actual = field(sandboxed(scenarios.seeded_parameters, **params), "params", list)
        expected = reference(scenarios.seeded_parameters, **params)["params"]
        verdicts.expect_parameters_as_reference(actual, expected,
                                                verdicts.module_call(kind, args),
                                                {"random.seed": seed})


@pytest.mark.check(id="modules-leave-their-arguments-as-given", pitfall="nn-structure", weight=1,
                   requires=STRUCTURE, clause="arguments")
def test_the_lists_a_module_is_given_stay_as_they_were(sandboxed, rng):
    # instance state: nothing a module does changes the caller's lists, so the same sizes build
    # a second model of the same shape and the same inputs can be fed again
    nin = rng.randint(2, 3)
    nouts = [rng.randint(2, 4) for _ in range(rng.randint(1, 2))] + [1]
    x = _point(rng, " ".join("abc"[:nin]))
    result = sandboxed(scenarios.arguments_kept, seed=_seed(rng), nin=nin, nouts=nouts, x=x)
    verdicts.expect_arguments_kept(result, nouts, {"nin": nin, "nouts": nouts, "x": x})
