"""Lab 04 verdicts: the XOR task, and the arithmetic that says what a network must output.

Side: trusted process. Nothing here runs student code: these functions read the plain data a
scenario of `grader.grading.child.scenarios.lab04_xor` returned and raise CheckFailed or NotRun.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any, NamedTuple

from grader.grading.checking.verdict import expect_close, expect_equal, fail, field, said

# The targets of nn.py's four examples (-1, -1), (-1, 1), (1, -1), (1, 1): -1 for false, 1 for
# true. Scenarios cannot read module globals, so the ones that need the examples spell them out.
XOR_TARGETS = [-1.0, 1.0, 1.0, -1.0]

# The stated loss: train_xor(MLP(2, [4, 1]), steps=STEPS, lr=LEARNING_RATE) after
# random.seed(s) leaves the mean squared error below TARGET_LOSS. The reference does so within
# 112 steps for every seed from 0 to 1999 (a median of 27), so 150 steps leave a margin.
XOR_MODEL = "MLP(2, [4, 1])"


class TraceChange(NamedTuple):
    """A parameter whose data changed between a forward pass and its backward (train_trace's
    `changed`): the backward call, the parameter's index, its data in the forward pass, now."""

    call: int
    param: int
    forward: float
    now: float


class TraceUpdate(NamedTuple):
    """One update of a parameter's data in train_xor (train_trace's `updates`): the backward
    calls before it, the parameter's index, the grad it held, the grad the latest backward
    gave it (fresh), its data before and after."""

    call: int
    param: int
    grad: float
    fresh: float
    old: float
    new: float


def trace_changes(result: Mapping[str, Any]) -> list[TraceChange]:
    """train_trace's `changed`, its named columns read back as records."""
    columns = field(result, "changed", dict)
    return [TraceChange(*row)
            for row in zip(*(columns[name] for name in TraceChange._fields), strict=True)]


def trace_updates(result: Mapping[str, Any]) -> list[TraceUpdate]:
    """train_trace's `updates`, its named columns read back as records."""
    columns = field(result, "updates", dict)
    return [TraceUpdate(*row)
            for row in zip(*(columns[name] for name in TraceUpdate._fields), strict=True)]

XOR_SIZES = [2, 4, 1]

STEPS = 150

LEARNING_RATE = 0.2

TARGET_LOSS = 0.05

def neuron_output(params: list[float], x: list[float], nonlin: bool) -> float:
    """tanh(w · x + b) (or w · x + b) for one neuron whose parameters are w..., b."""
    *weights, bias = params
    act = sum(w * xi for w, xi in zip(weights, x, strict=True)) + bias
    return math.tanh(act) if nonlin else act

def layer_outputs(params: list[float], nin: int, nout: int, x: list[float],
                  nonlin: bool) -> list[float]:
    """The outputs of a layer of nout neurons of nin inputs each."""
    size = nin + 1
    return [neuron_output(params[j * size:(j + 1) * size], x, nonlin) for j in range(nout)]

def mlp_outputs(params: list[float], sizes: list[int], x: list[float]) -> list[float]:
    """The outputs of an MLP with layer sizes `sizes` (inputs first); the last layer is linear."""
    offset = 0
    values = list(x)
    last = len(sizes) - 2
    for i in range(len(sizes) - 1):
        count = (sizes[i] + 1) * sizes[i + 1]
        values = layer_outputs(params[offset:offset + count], sizes[i], sizes[i + 1], values,
                               nonlin=i != last)
        offset += count
    return values

def expect_distinct_parameters(result: Any, call: str, inputs: dict[str, Any]) -> None:
    """Every entry of `call`.parameters() is a Value of its own: `[Neuron(...)] * nout` lists
    one neuron's Values nout times (module_forward's "distinct" against its "count")."""
    count = field(result, "count", int)
    distinct = field(result, "distinct", int)
    if distinct != count:
        fail("repeated-parameters", quantity=f"{call}.parameters()", inputs=inputs,
             count=count, distinct=distinct)


def expect_graph_not_cut(result: Any, inputs: dict[str, Any]) -> None:
    """`parameters_reach_model`: every parameter that is not a leaf of the output's graph but
    still moves the output when changed alone is the model's own Value read through `.data`
    (a neuron that reads the numbers of its inputs): a cut graph, named `nn-structure`, not
    a copy."""
    cut = field(result, "cut", int)
    missing = field(result, "total", int) - field(result, "in_graph", int)
    if cut and cut == missing:
        fail("graph-cut", pitfall="nn-structure", inputs=inputs, count=cut,
             total=field(result, "total", int))


def parameter_count(sizes: list[int]) -> int:
    """How many parameters micrograd's MLP with these layer sizes has."""
    return sum((sizes[i] + 1) * sizes[i + 1] for i in range(len(sizes) - 1))

def mean_squared_error(outputs: list[float], targets: list[float]) -> float:
    """The mean of (output - target) ** 2; inf, never OverflowError, for a model that diverged."""
    return sum((o - t) * (o - t) for o, t in zip(outputs, targets, strict=True)) / len(targets)

# -- whole runs: steps 0 and a few, every loss as computed --------------------------------------

# train_xor(model, steps=k) for each k from one seed: the loop's ends (0 steps, 1 step) and a
# few more. The losses are compared to 1e-9: what a loss is, not what it prints as.
SMALL_STEPS = (0, 1, 2, 3)
# How those runs call MLP(nin, nouts) and train_xor(model, steps, lr): every argument by its
# README name (even k) or in the README's order (odd k), the signature's dimension.
CALLS = ("keyword", "positional")
CALL_TEXT = ("model = MLP(nin=2, nouts=[4, 1]); train_xor(model=model, steps=steps, lr=lr)",
             "model = MLP(2, [4, 1]); train_xor(model, steps, lr)")
EXACT_REL_TOL, EXACT_ABS_TOL = 1e-9, 1e-12


def expect_whole_runs(runs: dict[int, Any], inputs_of: Any) -> None:
    """`runs[k]`: train_and_evaluate of one seed with steps=k, for every k of SMALL_STEPS. Each
    returns a list of k losses, and loss j of the longest run is the loss of the model after
    j steps (the mean squared error of the outputs the run of j steps left), to 1e-9: the
    loss as computed, whatever the initialisation or the update (other checks judge those)."""
    for k in sorted(runs):
        inputs = inputs_of(k)
        expect_equal(field(runs[k], "type", str), "list",
                     quantity=said("quantity-type-of", code="train_xor(...)"), inputs=inputs)
        expect_equal(len(field(runs[k], "losses", list)), k, quantity="len(train_xor(...))",
                     inputs=inputs)
    longest = max(runs)
    for j, loss in enumerate(runs[longest]["losses"]):
        own = mean_squared_error(field(runs[j], "after", list), XOR_TARGETS)
        if not math.isclose(loss, own, rel_tol=EXACT_REL_TOL, abs_tol=EXACT_ABS_TOL):
            fail("mismatch", quantity=f"train_xor(...)[{j}]", inputs=inputs_of(longest),
                 expected=own, actual=loss, source="own-model")

# -- random networks ----------------------------------------------------------------------------

# Networks drawn under every seed: (kind, args, kwargs). The XOR model, the smallest of each
# module, a layer of one neuron (a Value, not a list), linear ones, and a deep, wide MLP. An
# MLP's hidden layers have two neurons or more: a layer of one returns a Value (as in
# micrograd), which the next layer cannot take as its inputs.
NETWORK_SHAPES: list[tuple[str, list, dict]] = [
    ("MLP", [2, [4, 1]], {}), ("Neuron", [1], {}), ("Neuron", [3], {"nonlin": False}),
    ("Layer", [2, 1], {}), ("Layer", [3, 2], {"nonlin": False}), ("MLP", [1, [2, 1]], {}),
    ("MLP", [3, [4, 4, 2]], {}), ("MLP", [2, [3, 3, 1]], {}),
]


def _network_parameters(kind: str, args: list) -> int:
    if kind == "Neuron":
        return args[0] + 1
    if kind == "Layer":
        return (args[0] + 1) * args[1]
    return parameter_count([args[0], *args[1]])


def _network(rng: random.Random, kind: str, args: list, kwargs: dict,
             value_inputs: bool | None = None) -> dict:
    nin = args[0]
    examples = rng.randint(1, 2)
    return {
        "kind": kind, "args": args, "kwargs": kwargs,
        "params": [round(rng.uniform(-1, 1), 3) for _ in range(_network_parameters(kind, args))],
        "X": [[round(rng.uniform(-1.5, 1.5), 3) for _ in range(nin)] for _ in range(examples)],
        "Y": [rng.choice((-1.0, 1.0)) for _ in range(examples)],
        "value_inputs": rng.random() < 0.5 if value_inputs is None else value_inputs,
    }


# Inputs at the edges of the README's range (finite floats, 0 through tiny to large, where the
# results are finite), fed to a neuron and to the XOR model after the drawn networks: a tanh
# written as (e^2a - 1) / (e^2a + 1) overflows there, the engine's tanh does not.
EDGE_INPUTS = [[0.0, 1e-300], [1e100, 1e100], [-1e100, -1e100]]  # one of the two sums is large
EDGE_SHAPES: list[tuple[str, list, dict]] = [("Neuron", [2], {}), ("MLP", [2, [4, 1]], {})]


def draw_networks(rng: random.Random, count: int) -> list[dict]:
    """The fixed shapes, then `count` random MLPs, Layers and Neurons, with parameter values,
    then the edge networks (EDGE_SHAPES on EDGE_INPUTS), drawn last so the others stay as
    they were for a seed."""
    shapes = list(NETWORK_SHAPES)
    for _ in range(count):
        nin = rng.randint(1, 3)
        kind = rng.choice(("MLP", "MLP", "Layer", "Neuron"))
        if kind == "MLP":
            # a hidden layer of one neuron returns a Value, not a list: not an MLP's layer
            hidden = [rng.randint(2, 4) for _ in range(rng.randint(0, 2))]
            args: list = [nin, [*hidden, rng.randint(1, 2)]]
        elif kind == "Layer":
            args = [nin, rng.randint(1, 3)]
        else:
            args = [nin]
        kwargs = {} if kind == "MLP" or rng.random() < 0.5 else {"nonlin": False}
        shapes.append((kind, args, kwargs))
    # the fixed shapes take numbers and Values as inputs in turn, whatever the seed
    networks = [_network(rng, kind, args, kwargs, index % 2 == 0 if index < len(NETWORK_SHAPES)
                         else None) for index, (kind, args, kwargs) in enumerate(shapes)]
    for value_inputs, (kind, args, kwargs) in zip((False, True), EDGE_SHAPES, strict=True):
        edge = _network(rng, kind, args, kwargs, value_inputs)
        edge["X"] = [list(x) for x in EDGE_INPUTS]
        edge["Y"] = [1.0, -1.0, 1.0]
        networks.append(edge)
    return networks


def network_program(net: dict) -> str:
    """The network as a few lines of Python the student can paste after their nn.py."""
    call = ", ".join([*map(repr, net["args"]), *(f"{k}={v!r}" for k, v in net["kwargs"].items())])
    xs = (f"[[Value(v) for v in x] for x in {net['X']!r}]" if net["value_inputs"]
          else repr(net["X"]))
    single = net["kind"] == "Neuron" or (net["kind"] == "Layer" and net["args"][1] == 1) or (
        net["kind"] == "MLP" and net["args"][1][-1] == 1)
    outs = "[model(x)]" if single else "model(x)"
    return (f"model = {net['kind']}({call}); "
            f"[setattr(p, 'data', v) for p, v in zip(model.parameters(), {net['params']!r})]; "
            f"X = {xs}; Y = {net['Y']!r}; "
            f"loss = sum(((o - y) ** 2 for x, y in zip(X, Y) for o in {outs}), Value(0.0)); "
            "loss.backward()")


def _network_differences(got: Any, want: dict, nin: int) -> list[dict] | None:
    """The numbers that differ (None when the parameter count itself differs)."""
    if not isinstance(got, dict) or got.get("count") != want["count"]:
        return None
    if "error" in got:
        return [{"quantity": "error", "actual": None, "expected": None}]
    found = []
    pairs = [("loss.data", got.get("loss"), want["loss"])]
    for key in ("grads", "input_grads"):
        values = got.get(key)
        if not isinstance(values, list) or len(values) != len(want[key]):
            return None
        for i, (a, e) in enumerate(zip(values, want[key], strict=True)):
            label = (f"model.parameters()[{i}].grad" if key == "grads"
                     else "X[{}][{}].grad".format(*divmod(i, nin)))
            pairs.append((label, a, e))
    scale = max([1.0, *(abs(g) for g in want["grads"])]) * 10
    for quantity, actual, expected in pairs:
        if actual is not None and type(actual) not in (int, float):
            fail("bad-result", reason=f"{quantity} is not a number")
        if actual is None or not math.isclose(actual, expected, rel_tol=1e-6,
                                              abs_tol=1e-9 * scale):
            found.append({"quantity": quantity, "actual": actual, "expected": expected})
    return found


def judge_networks(sandboxed: Any, reference: Any, scen: Any, networks: list[dict]) -> None:
    """Fail on the smallest network whose loss or gradients differ from the reference's: the
    loss is `nn-structure`'s, a gradient alone `late-binding-closure`'s."""
    got = field(sandboxed(scen, networks=networks), "results", list)
    want = reference(scen, networks=networks)["results"]
    if len(got) != len(networks):
        fail("bad-result", reason="the results do not have one entry per network")
    failing = []
    for net, g, w in zip(networks, got, want, strict=True):
        found = _network_differences(g, w, net["args"][0])
        if found is None or found:
            failing.append((len(w["grads"]), net, g, w, found))
    if not failing:
        return
    _, net, g, w, found = min(failing, key=lambda item: item[0])
    program = network_program(net)
    if found and found[0]["quantity"] == "error":  # how a module computes: nn-structure's
        fail("graph-raised", pitfall="nn-structure", program=program,
             error=field(g, "error", str))
    if found is None:
        fail("mismatch", pitfall="nn-structure", quantity="len(model.parameters())",
             inputs={"model": program.split(";")[0].removeprefix("model = ")},
             expected=w["count"], actual=g.get("count") if isinstance(g, dict) else None,
             source="reference")
    # a different loss: how a module computes; only the inputs' gradients: the graph does not
    # reach the inputs (a neuron that reads x.data); a parameter's gradient: a closure or a
    # parameter that is not the one in the graph
    params_wrong = any(d["quantity"].startswith("model.parameters()") for d in found)
    pitfall = ("nn-structure" if found[0]["quantity"] == "loss.data" or not params_wrong
               else "late-binding-closure")
    fail("graph-mismatch", pitfall=pitfall, program=program, differences=found[:6],
         source="reference")


# -- the contract's dimensions no check covered before (issue 32) -------------------------------

def wide_modules(rng: random.Random) -> list[tuple[str, list]]:
    """Modules of the sizes the contract allows beyond the small ones the other checks build:
    a neuron of 11 to 14 inputs, a layer of 11 to 14 neurons, an MLP with both (two-digit
    indices, where an order by name as text is not the order by index)."""
    return [("Neuron", [rng.randint(11, 14)]),
            ("Layer", [rng.randint(2, 3), rng.randint(11, 14)]),
            ("MLP", [rng.randint(11, 12), [rng.randint(11, 12), 1]])]


def module_call(kind: str, args: list) -> str:
    """How the feedback writes the module a check builds: `Layer(3, 12)`."""
    return f"{kind}({', '.join(map(repr, args))})"


def expect_parameters_as_reference(actual: list[Any], expected: list[float], call: str,
                                   inputs: dict[str, Any]) -> None:
    """`call`'s parameters() after a seed, value by value as the reference lists them."""
    expect_equal(len(actual), len(expected), quantity=f"len({call}.parameters())", inputs=inputs)
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        expect_close(got, want, quantity=f"{call}.parameters()[{index}].data", inputs=inputs,
                     source="reference")


def expect_arguments_kept(result: Any, nouts: list[int], inputs: dict[str, Any]) -> None:
    """Every list the caller passed (nouts, x) as it was after each call, and a second MLP from
    the same sizes as large as the first (`arguments_kept`)."""
    for entry in field(result, "calls", list):
        if not field(entry, "kept", bool):
            fail("argument-changed", inputs=inputs, call=field(entry, "call", str),
                 name=field(entry, "list", str), before=field(entry, "before", str),
                 after=field(entry, "after", str))
    first, second = field(result, "counts", list)
    expect_equal(second, first, quantity=said("quantity-after-call", code="len(MLP(nin, nouts)"
                                              ".parameters())", call="MLP(nin, nouts)"),
                 inputs=inputs)
    expect_equal(first, parameter_count([inputs["nin"], *nouts]),
                 quantity="len(MLP(nin, nouts).parameters())", inputs=inputs)


def seeded_draws(seed: int, kind: str, args: list) -> list[float]:
    """A Neuron's or a Layer's parameters after random.seed(seed), worked out from the README:
    each neuron's weights drawn one after another with random.uniform(-1, 1), then its bias 0."""
    draws = random.Random(seed)
    nin, nout = (args[0], 1) if kind == "Neuron" else (args[0], args[1])
    return [value for _ in range(nout)
            for value in [*(draws.uniform(-1, 1) for _ in range(nin)), 0.0]]
