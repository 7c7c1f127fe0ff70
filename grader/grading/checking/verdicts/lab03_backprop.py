"""Lab 03 verdicts: the graphs lab03 describes, and how its checks judge order, zero_grad, cycles.

Side: trusted process. Nothing here runs student code: these functions read the plain data a
scenario of `grader.grading.child.scenarios.lab03_backprop` returned and raise CheckFailed or NotRun.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from grader.grading.checking.graph_shape import (
    GraphShape,
    expect_graph_results,
    graph_on_failure,
)
from grader.grading.checking.inputs import distinct_values
from grader.grading.checking.verdict import (
    CheckFailed,
    NotRun,
    close,
    expect_close,
    expect_equal,
    expect_results_close,
    fail,
    field,
    said,
)
from grader.grading.checking.verdicts.lab01_graph import expect_a_walk, run_backward
from grader.grading.checking.verdicts.lab01_graph import ladder_shape as lab01_ladder_shape
from grader.grading.child.scenarios.lab03_backprop import (
    chain_comparisons,
    deep_chain,
    numerical_cases,
)

# The expression of `expression_tree`: every leaf is used once, so any traversal that starts
# at the output and seeds it reaches each node after its only consumer.
TREE_GRAPH = "out = (a*b - c)**2 + tanh(d) / 2"
# Its drawing, with the node names of `expression_tree`'s `nodes` facts.
TREE_SHAPE = GraphShape(
    nodes=(("a", ""), ("b", ""), ("c", ""), ("d", ""), ("a*b", "*"), ("a*b - c", "-"),
           ("(a*b - c)**2", "**2"), ("tanh(d)", "tanh"), ("tanh(d) / 2", "/2"), ("out", "+")),
    edges=(("a", "a*b"), ("b", "a*b"), ("a*b", "a*b - c"), ("c", "a*b - c"),
           ("a*b - c", "(a*b - c)**2"), ("d", "tanh(d)"), ("tanh(d)", "tanh(d) / 2"),
           ("(a*b - c)**2", "out"), ("tanh(d) / 2", "out")),
    output="out",
    operations=(("a*b - c", "sub", None), ("(a*b - c)**2", "pow", 2), ("tanh(d)", "tanh", None),
                ("tanh(d) / 2", "truediv-number-on-right", 2)))


def expect_tree_gradients(result: Any, expected: dict[str, Any], leaves: dict[str, float],
                          inputs: dict[str, Any], source: str) -> None:
    """The leaves' gradients on `TREE_GRAPH` close to `expected` (a reference run's `nodes`
    facts aside); a failure draws the tree with the student's numbers and the expected ones."""
    expect_graph_results(result, expected, shape=TREE_SHAPE, leaves=leaves, inputs=inputs,
                         source=source)

# `sibling_ladder`: x[0] = a, then per level k: x[k+1] = x[k]*c + x[k]*d. Every x[k] below
# the top has two consumers, x[k]*c and x[k]*d, neither of which consumes the other, so a walk
# that runs a _backward on its way down reaches x[k] through one before the other has run
# (whatever order it visits parents in), and a walk without a visited set reaches x[k] along
# 2**(depth - k) paths.
LADDER_GRAPH = "x[0] = a; x[k+1] = x[k]*c + x[k]*d; out = x[depth]"

WIDE_GRAPH = "x[0] = a; x[k+1] = x[k]*c + x[k]*d; out = sum(x[depth] * w[i] for i in range(width))"

ZERO_GRAD_GRAPH = "p = a*b; q = tanh(p); r = q + c; out = r * p"

ZERO_GRAD_NODES = ("a", "b", "c", "p", "q", "r", "out")

STALE_GRAD = 2.5  # what every gradient holds before zero_grad, as an earlier pass leaves them

STALE_CHECK_GRAD = 7.5  # what the inputs of check_grad hold before it is called

# "just-outside": (a*b)._backward passes b + JUST_OUTSIDE to a. The checks draw |b| below 1, so
# the difference is beyond tol * max(1, |numeric|) = 1e-4 but within twice that: it is rejected
# only under the README's tolerance, not a looser one.
JUST_OUTSIDE = 1.5e-4


# Inputs that arithmetic does not put back at h = 1e-3: (x - h) + h misses -1.0, (x + h) - h
# misses 1.0, ((x + h) - 2h) + h and (((x + h) - h) - h) + h miss both. Near most other
# numbers those sums land exactly on x again, so a restore by arithmetic would pass unseen.
RESTORE_TRAPS = (1.0, -1.0)

CHAIN_GRAPH = "out = a; for _ in range(n): out = out + b"

CYCLE_GRAPHS = {
    "below-output": "c = a*b; d = c + b; c._prev += (d,); out = d * a",
    "through-output": "out = a * b; a._prev = (out,)",
}
# The same cycles made after a first backward() on the graph (scenario cycle, after_backward).
CYCLES_AFTER_BACKWARD = {
    "below-output": "c = a*b; d = c + b; out = d * a; out.backward(); c._prev += (d,)",
    "through-output": "out = a * b; out.backward(); a._prev = (out,)",
}

# `equal_data`: a and b hold different numbers, then the same one (so do p and q).
EQUAL_DATA_GRAPH = "p = a*c; q = b*c; out = p*q + a + p"


def equal_data_gradients(a: float, b: float, c: float) -> dict[str, float]:
    """The gradients of EQUAL_DATA_GRAPH by the chain rule: d out/dp = q + 1, d out/dq = p."""
    p, q = a * c, b * c
    return {"a.grad": c * (q + 1) + 1, "b.grad": c * p, "c.grad": a * (q + 1) + b * p,
            "p.grad": q + 1, "q.grad": p}


def _equal_data_fault(graph: Any, expected: dict[str, float]) -> tuple[Any, Any, Any] | None:
    """What went wrong on one graph of `equal_data`: (what, actual, expected), or None."""
    if "error" in graph:
        return "error", field(graph, "error", str), None
    grads, zeroed = field(graph, "grads", dict), field(graph, "zeroed", dict)
    for name, value in expected.items():
        actual = field(grads, name, float)
        if not close(actual, value):
            return name, actual, value
    for name in expected:
        if field(zeroed, name, float) != 0.0:
            what = said("quantity-after-call", code=name, call="zero_grad(out)")
            return what, field(zeroed, name, float), 0.0
    return None


def expect_equal_data_told_apart(result: Any, x: float, y: float, z: float) -> None:
    """The verdict on `equal_data`: judged only if the graph works when a and b differ; then
    it must work as well when they hold the same number."""
    distinct = _equal_data_fault(field(result, "distinct", dict), equal_data_gradients(x, y, z))
    if distinct is not None:
        raise NotRun("distinct-data-fails", graph=EQUAL_DATA_GRAPH)
    fault = _equal_data_fault(field(result, "equal", dict), equal_data_gradients(x, x, z))
    if fault is None:
        return
    inputs = {"graph": EQUAL_DATA_GRAPH, "a": x, "b": x, "c": z}
    what, actual, expected = fault
    if what == "error":
        fail("equal-data-raised", inputs=inputs, error=actual, other=y)
    fail("equal-data-merged", inputs=inputs, quantity=what, actual=actual, expected=expected,
         other=y)


# How the functions the scenarios differentiate are shown to students, as {name: body}.
NUMERICAL_FUNCTIONS = {
    "cubic-mix": {"f(a, b, c)": "a**3 + b**3 + c**3 + a*b*c + tanh(a - c)"},
    "square-times": {"f(a, b)": "a**2 * b"},
}

def _cubic_mix(a: float, b: float, c: float) -> float:
    """The scenarios' "cubic-mix" on plain floats, operation for operation as they build it."""
    return a ** 3 + b ** 3 + c ** 3 + a * b * c + math.tanh(a - c)


def _square_times(a: float, b: float) -> float:
    """The scenarios' "square-times" on plain floats."""
    return a ** 2 * b


FLOAT_FUNCTIONS: dict[str, Callable[..., float]] = {"cubic-mix": _cubic_mix,
                                                    "square-times": _square_times}


def central_differences(f: Callable[..., float], point: list[float], h: float) -> list[float]:
    """(f(x + h) - f(x - h)) / 2h for each coordinate of point, the others held fixed: the
    README's formula, on plain floats."""
    grads = []
    for k, x in enumerate(point):
        plus, minus = list(point), list(point)
        plus[k], minus[k] = x + h, x - h
        grads.append((f(*plus) - f(*minus)) / (2 * h))
    return grads


CHECKED_FUNCTIONS = {
    "correct": {"f(a, b, c)": "tanh(a*b + c) * a"},
    "wrong": {"f(a, b, c)": "a*b + c", "(a*b)._backward": "a.grad += 2*b.data * (a*b).grad; "
              "b.grad += a.data * (a*b).grad"},
    "wrong-last": {"f(a, b, c)": "a + b*c", "(b*c)._backward": "b.grad += c.data * (b*c).grad; "
                   "c.grad += 2*b.data * (b*c).grad"},
    "large": {"f(a, b, c)": "exp((a + b + c) * 5)"},
    "just-outside": {"f(a, b, c)": "a*b + c", "(a*b)._backward":
                     f"a.grad += (b.data + {JUST_OUTSIDE}) * (a*b).grad; "
                     "b.grad += a.data * (a*b).grad"},
}

# Chains on which `chain_comparisons` counts backward()'s == between nodes after the deep chain
# timed out: a walk that looks each node up in a list compares about n**2 / 2 times, one with
# sets none. More than COMPARISONS_PER_NODE per node of the longer chain is a list lookup.
COMPARED_SIZES = (200, 800)
COMPARISONS_PER_NODE = 10

def ladder_names(depth: int) -> list[str]:
    """Names of the internal nodes of a sibling ladder of this depth (the leaf x[0] excluded)."""
    names = []
    for k in range(depth):
        names += [f"x[{k}]*c", f"x[{k}]*d", f"x[{k + 1}]"]
    return names

def ladder_consumers(depth: int) -> dict[str, tuple[str, ...]]:
    """For each internal node of the ladder, the internal nodes that use it."""
    consumers: dict[str, tuple[str, ...]] = {}
    for k in range(depth):
        consumers[f"x[{k}]*c"] = consumers[f"x[{k}]*d"] = (f"x[{k + 1}]",)
        if k > 0:
            consumers[f"x[{k}]"] = (f"x[{k}]*c", f"x[{k}]*d")
    return consumers

def _per_node(result: Any, key: str, depth: int, inputs: dict) -> dict[str, int]:
    """result[key], a count or position per internal node of the ladder; a node missing from
    it never ran its `_backward`."""
    table = field(result, key, dict)
    for node in ladder_names(depth):
        if node not in table:
            fail("not-called", node=node, inputs=inputs)
        field(table, node, int)
    return table

def ladder_shape(depth: int) -> GraphShape:
    """The drawing of `sibling_ladder` with `depth` levels, under its node names (x[0] is a)."""
    return lab01_ladder_shape(depth, lambda k: (f"x[{k - 1}]*c", f"x[{k - 1}]*d", f"x[{k}]"))


def _ladder_drawn(result: Any, depth: int, inputs: dict) -> AbstractContextManager[None]:
    """graph_on_failure for the ladder: its shape, with a, c and d as the inputs show them."""
    leaves = {name: inputs[name] for name in "acd"}
    return graph_on_failure(ladder_shape(depth), result, leaves)


def expect_topological_calls(result: Any, depth: int, inputs: dict) -> None:
    """Fail unless every internal node ran, and each one last ran after all its consumers.

    `result["last"]` maps names to the position of each node's last `_backward` call; the
    last call is the one that counts (a node run twice is the visited-set check's business).
    A failure draws the ladder with the node that ran too early outlined.
    """
    last = _per_node(result, "last", depth, inputs)
    with _ladder_drawn(result, depth, inputs):
        for node, consumers in ladder_consumers(depth).items():
            for consumer in consumers:
                if last[node] < last[consumer]:
                    fail("order-violation", node=node, consumer=consumer, inputs=inputs)

def expect_each_called_once(result: Any, depth: int, inputs: dict) -> None:
    """Fail if some node's `_backward` never ran or ran more than once; name the worst one,
    outlined in the drawing of the ladder."""
    counts = _per_node(result, "counts", depth, inputs)
    worst = max(ladder_names(depth), key=lambda node: counts[node])
    if counts[worst] > 1:
        with _ladder_drawn(result, depth, inputs):
            fail("called-more-than-once", node=worst, count=counts[worst], inputs=inputs)

def run_explaining_timeout(sandboxed: Any, scen: Any, kind: str, detail: dict, **params: Any) -> Any:
    """run(scen, **params); on a timeout, fail with the detail `kind` (which says what a timeout
    means here) and its parameters `detail`, plus `seconds`."""
    try:
        return sandboxed(scen, **params)
    except CheckFailed as exc:
        if exc.detail["kind"] != "timeout":
            raise
        timeout: Any = exc.detail["params"]
        fail(kind, seconds=timeout["seconds"], output=exc.output, **detail)

def floats(result: Any, key: str, quantity: str, count: int, inputs: dict) -> list[float]:
    """result[key] as a list of `count` floats (it is shown as `quantity`), or a failed check."""
    values = field(result, key, list)
    expect_equal(len(values), count, quantity=f"len({quantity})", inputs=inputs)
    return [field({quantity: value}, quantity, float) for value in values]

def run_numerical(sandboxed: Any, function: str, h: float | None, point: list[float]) -> Any:
    """What numerical_grad did with the function `function` at `point` (`numerical_cases`
    with one case): the inputs' data afterwards, then the type and the floats it returned."""
    results = field(sandboxed(numerical_cases,
                              cases=[{"function": function, "point": point, "h": h}]),
                    "results", list)
    if len(results) != 1:
        fail("bad-result", reason="the results do not have one entry per case")
    return results[0]


def numerical_grads(result: Any, quantity: str, count: int, inputs: dict) -> list[float]:
    """What `numerical_cases` says numerical_grad returned (shown as `quantity`): a list of `count`
    floats, or a failed check naming the wrong type or length it returned instead."""
    returned = field(result, "returned", str)
    if returned != "list":
        fail("wrong-type", quantity=quantity, inputs=inputs, actual_type=returned,
             expected_type="list")
    if "element" in result:
        fail("wrong-type", quantity=said("quantity-element-of", code=quantity), inputs=inputs,
             actual_type=field(result, "element", str), expected_type="float")
    return floats(result, "grads", quantity, count, inputs)


def expect_zero_grads(result: Any, form: str, inputs: dict) -> None:
    """Fail unless zero_grad (called on the output, or twice on one list [a, b, c]: by
    position, then by name) reset its nodes."""
    call = ("zero_grad(out)" if form == "output"
            else "nodes = [a, b, c]; zero_grad(nodes); zero_grad(nodes=nodes)")
    before = " = ".join(f"{name}.grad" for name in ZERO_GRAD_NODES)
    shown = {"graph": ZERO_GRAD_GRAPH, **inputs, before: STALE_GRAD, "calls": call}
    reset = ZERO_GRAD_NODES if form == "output" else ("a", "b", "c")
    expect_results_close(result, {f"{name}.grad": 0.0 for name in reset}, inputs=shown,
                         source="literal")

def expect_clear_cycle_error(result: Any, inputs: dict) -> None:
    """Fail unless backward() raised ValueError or RuntimeError with 'cycle' in the message;
    a node with no collection of its parents to close the cycle through is said as such."""
    if isinstance(result, dict) and "raised" not in result:
        fail("cycle-needs-parents", inputs=inputs)
    if not field(result, "raised", bool):
        fail("cycle-not-reported", inputs=inputs)
    message = field(result, "message", str)
    if not field(result, "clear_type", bool) or "cycle" not in message.lower():
        fail("cycle-unclear-error", type=field(result, "type", str), message=message,
             inputs=inputs)

def expect_seeded(result: Any, inputs: dict) -> None:
    """The verdict on `seed`: out.grad is 1 after backward(), and already was when the output's
    own `_backward` ran (a seed set after the walk, or added to a stale one, is not). A
    `backward()` that walks nothing is named as such (lab 01's finding)."""
    expect_a_walk(result, inputs)
    expect_results_close(result, {"out.grad": 1.0}, inputs=inputs, source="literal")
    seen = field(result, "seen", list)
    if seen:
        expect_close(field({"seen": seen[0]}, "seen", float), 1.0,
                     quantity=said("quantity-when-runs", code="out.grad", call="out._backward"), inputs=inputs,
                     source="literal")

# A chain walk that timed out but grows linearly on short chains is run once more with this
# multiple of the time limit: a machine busy with other work, not the code, took the time.
BUSY_MACHINE_PATIENCE = 3.0


def run_deep_chain(sandboxed: Any, n: int, inputs: dict, shown: dict) -> Any:
    """Run `deep_chain` of n nodes. After a timeout, a count of backward()'s == comparisons on
    short chains (`explain_slow_chain`) fails a walk that looks nodes up in a list at once, as
    `missing-visited-set` (its visited bookkeeping is a list, not a set: the work is not
    proportional to the number of nodes); any other walk gets a second run with
    BUSY_MACHINE_PATIENCE times the limit (a busy machine, not the code, may have taken the
    time), and a second timeout stands. A count, unlike a time, is the same whatever the
    machine's load, so neither the verdict nor its name depends on it; failing a quadratic walk
    before the longer run also keeps it within the submission's time budget on a busy machine."""
    try:
        return sandboxed(deep_chain, n=n, **inputs)
    except CheckFailed as exc:
        if exc.detail["kind"] != "timeout":
            raise
        explain_slow_chain(sandboxed, inputs, shown, exc)
    return sandboxed(deep_chain, n=n, patience=BUSY_MACHINE_PATIENCE, **inputs)


def run_patiently(sandboxed: Any, scen: Any, **params: Any) -> Any:
    """sandboxed(scen, **params), run once more with BUSY_MACHINE_PATIENCE times the limit after
    a timeout (for walks whose only way to time out is a busy machine or a walk that never ends:
    the second timeout stands)."""
    try:
        return sandboxed(scen, **params)
    except CheckFailed as exc:
        if exc.detail["kind"] != "timeout":
            raise
    return sandboxed(scen, patience=BUSY_MACHINE_PATIENCE, **params)


def explain_slow_chain(sandboxed: Any, inputs: dict, shown: dict, timeout: CheckFailed) -> None:
    """After the deep chain timed out: fail with `walk-compares-nodes` (`missing-visited-set`)
    if backward() compares nodes more than COMPARISONS_PER_NODE times per node on a short chain;
    otherwise return (the chain gets its longer run). A count, not a time: the same name on an
    idle machine and a busy one."""
    try:
        result = sandboxed(chain_comparisons, sizes=list(COMPARED_SIZES), **inputs)
    except CheckFailed:
        return
    counts = field(result, "comparisons", list)
    if len(counts) != len(COMPARED_SIZES) or not all(type(c) is int for c in counts):
        return
    if counts[-1] > COMPARISONS_PER_NODE * COMPARED_SIZES[-1]:
        params: Any = timeout.detail["params"]
        fail("walk-compares-nodes", pitfall="missing-visited-set", output=timeout.output,
             inputs=shown,
             seconds=params.get("seconds"), sizes=list(COMPARED_SIZES), comparisons=counts)


def expect_check_grad_verdict(result: Any, kind: str, stale: float | None,
                              point: dict[str, float]) -> None:
    """The verdict on `check_grad_verdict`: True for a correct f (and "large"), False for the
    others; with stale gradients on the inputs, the same answer twice in a row."""
    shown: dict[str, Any] = {**CHECKED_FUNCTIONS[kind], "a": point["x"], "b": point["y"],
                             "c": point["z"]}
    verdict = kind in ("correct", "large")
    if stale is None:
        expect_equal(field(result, "first", bool), verdict, quantity="check_grad(f, [a, b, c])",
                     inputs=shown)
        return
    shown["a.grad = b.grad = c.grad"] = stale
    answers = [field(result, "first", bool), field(result, "second", bool)]
    expect_equal(answers, [verdict, verdict],
                 quantity="[check_grad(f, [a, b, c]), check_grad(f, [a, b, c])]", inputs=shown)
SECOND_BACKWARD_GRAPH = ("y = tanh(a*b)*c; y.backward(); every grad set to 0; z = y*d; "
                         "z.backward()")


def expect_backward_kept(result: Any, inputs: dict) -> None:
    """The `_backward` of every node a walk ran is still in place afterwards: a `backward()`
    that swaps it for another (a no-op, so that it "runs once") passes nothing on at a second
    walk through the node. Named from what the scenario saw replaced, not from call counts."""
    replaced = field(result, "replaced", list)
    if replaced:
        fail("backward-replaced", pitfall="grad-overwrite", inputs=inputs,
             node=field({"node": replaced[0]}, "node", str))


def expect_each_run_once(calls: list[Any], inputs: dict) -> None:
    """Fail as `missing-visited-set` if one walk ran some node's `_backward` more than once."""
    counts: dict[str, int] = {}
    for name in calls:
        counts[str(name)] = counts.get(str(name), 0) + 1
    worst = max(counts, key=lambda name: counts[name], default=None)
    if worst is not None and counts[worst] > 1:
        fail("called-more-than-once", pitfall="missing-visited-set", node=worst,
             count=counts[worst], inputs=inputs)


def expect_second_walk(result: Any, inputs: dict) -> None:
    """A second `backward()` on the same output reaches its `_backward` as the first did: a
    walk that skips it remembers the nodes of an earlier call (a visited set kept between
    calls), which is not an accumulation bug, so the failure names the visited set. A walk that
    replaced the `_backward` it ran is named for that first (`expect_backward_kept`)."""
    if "replaced" in result:
        expect_backward_kept(result, inputs)
    walks = field(result, "walks", list)
    if len(walks) == 2 and walks[0] > walks[1]:
        raise CheckFailed("second-walk-skips", pitfall="missing-visited-set", inputs=inputs,
                          node="out", first=walks[0], second=walks[1])


__all__ = ["run_backward"]  # the seed check runs its backward() through it, as lab 01's does


# -- the formulas of numerical_grad and check_grad over the contract's dimensions ----------------

# The README's domain: finite floats from 0 through tiny to large magnitudes. Steps: the
# default (None), the checks' usual one, and a coarse one that makes a step scaled by |x| show.
MAGNITUDES = (0.0, 1e-300, 1e-3, 1.5, 1e3, 1e100)
NUMERICAL_STEPS = (None, 1e-3, 0.1)
# Two estimates of the same formula differ by roundings: the last division's, and one unit in
# the last place of x moved through f when x +- h is computed in another order (f' * ulp / h).
NUMERICAL_REL_TOL = 1e-9
ROUNDING_ULPS = 16


def _numerical_tolerance(point: list[float], h: float | None) -> float:
    """The relative tolerance of a case: NUMERICAL_REL_TOL, and the rounding of x +- h."""
    step = 1e-6 if h is None else h
    return NUMERICAL_REL_TOL + ROUNDING_ULPS * 2.2e-16 * max(1.0, *map(abs, point)) / step


def case_inputs(case: dict[str, Any]) -> list[int]:
    """Which value of a case's point each position of xs is: its "inputs" ([0, 0, 1]: the same
    Value twice, then another), or each value once in order."""
    return list(case.get("inputs", range(len(case["point"]))))


def value_names(case: dict[str, Any]) -> str:
    """The names the feedback gives the Values of a case's point: a, b, c as f's own
    parameters; u, v, w when one of them is passed at several positions (f(u, u, v))."""
    return ("uvw" if "inputs" in case else "abc")[:len(case["point"])]


def call_text(function: str, case: dict[str, Any], optional: str) -> str:
    """How a case calls `function` (README's signature `function(f, xs, <optional>)`), as the
    feedback shows it: by position, or each argument by its name (`case["call"]` "keyword")."""
    xs = f"[{', '.join(value_names(case)[k] for k in case_inputs(case))}]"
    given = case[optional] is not None
    if case.get("call") == "keyword":
        return f"{function}(f=f, xs={xs}{f', {optional}={optional}' if given else ''})"
    return f"{function}(f, {xs}{f', {optional}' if given else ''})"


def by_name(cases: list[dict[str, Any]], optional: str) -> list[dict[str, Any]]:
    """The first case of each value of `optional` (given, or None: its default) again, every
    argument passed by its README name: the signature's names are part of the contract."""
    seen: set[Any] = set()
    found = []
    for case in cases:
        if case[optional] not in seen:
            seen.add(case[optional])
            found.append({**case, "call": "keyword"})
    return found


def _numerical_shown(case: dict[str, Any]) -> dict[str, Any]:
    names = value_names(case)
    call = call_text("numerical_grad", case, "h")
    shown = {**NUMERICAL_FUNCTIONS[case["function"]],
             **dict(zip(names, case["point"], strict=True))}
    if case["h"] is not None:
        shown["h"] = case["h"]
    return {**shown, "calls": call}


def expect_numerical_cases(cases: list[dict[str, Any]], got: list[Any], want: list[Any]) -> None:
    """Every case as the reference: the inputs' data exactly as given (`mid-flight-mutation`),
    a list of floats of one per input, each the reference's estimate within the rounding of
    x +- h. The first failing case is shown; cases go from the simplest magnitude up."""
    if len(got) != len(cases):
        fail("bad-result", reason="the results do not have one entry per case")
    for case, result, expected in zip(cases, got, want, strict=True):
        shown = _numerical_shown(case)
        positions = case_inputs(case)
        count = len(positions)
        data = floats(result, "data", "xs", count, shown)
        given = [case["point"][k] for k in positions]
        names = value_names(case)
        for name, actual, value in zip((names[k] for k in positions), data, given, strict=True):
            if actual != value:
                fail("mismatch", pitfall="mid-flight-mutation", quantity=f"{name}.data",
                     inputs=shown, expected=value, actual=actual, source="literal")
        grads = numerical_grads(result, shown["calls"], count, shown)
        tolerance = _numerical_tolerance(case["point"], case["h"])
        for k, (actual, value) in enumerate(zip(grads, expected["grads"], strict=True)):
            if not math.isclose(actual, value, rel_tol=tolerance, abs_tol=1e-300):
                fail("mismatch", quantity=f"{shown['calls']}[{k}]", inputs=shown,
                     expected=value, actual=actual, source="reference")


# check_grad's cases: a correct gradient of a function steep enough that the step of the
# estimate matters, and (a*b)'s gradient off by OFF_BY, judged at tolerances either side of it;
# the README's formula input by input: a gradient of the right size and the wrong sign (the
# derivative negative), and b's gradient off by OFF_BY beside a's large one (each input's own
# max(1, |numeric|), not the largest of all).
OFF_BY = 5e-3
CHECK_GRAD_TOLERANCES = (None, 1e-3, 1e-2)
CASE_FUNCTIONS = {
    "steep": {"f(a)": "exp(a * 1000)"},
    "off-by": {"f(a, b)": "a*b", "(a*b)._backward": f"a.grad += (b.data + {OFF_BY}) * (a*b).grad; "
               "b.grad += a.data * (a*b).grad"},
    "sign-flipped": {"f(a, b)": "a*b", "(a*b)._backward": "a.grad += -b.data * (a*b).grad; "
                     "b.grad += a.data * (a*b).grad"},
    "off-by-second": {"f(a, b)": "a*b", "(a*b)._backward": "a.grad += b.data * (a*b).grad; "
                      f"b.grad += (a.data + {OFF_BY}) * (a*b).grad"},
}


# The sign x magnitude of the compared numbers: exp(a * k) at a = k / |k| (|a| near 1), whose
# gradient k e^|k| is near 5e9 in size and of the sign of k; given right (its estimate is then a
# few units off in absolute terms, a part in 1e10), and RELATIVE_OFF times too large, judged at
# every tolerance: only tol * max(1, abs(numeric)) accepts the right one whatever its sign and
# the wrong one at a tolerance above RELATIVE_OFF.
EXP_SCALES = (20.0, -20.0)
RELATIVE_OFF = 5e-3


def _exp_of_multiple(case: dict[str, Any]) -> dict[str, str]:
    """How a case of exp-of-multiple shows its f (and its wrong _backward, if any)."""
    k, relative = case["scale"], case.get("offset", 0.0)
    shown = {"f(a)": f"exp(a * {k:g})"}
    if relative:
        shown[f"(a * {k:g})._backward"] = f"a.grad += {k:g} * (1 + {relative:g}) * (a * {k:g}).grad"
    return shown


def _signed_gradient_cases(rng: Any, tol: float | None) -> list[dict[str, Any]]:
    """exp(a * k) for each k of EXP_SCALES, its gradient given right and RELATIVE_OFF off."""
    cases = []
    for k in EXP_SCALES:
        a = round(math.copysign(rng.uniform(0.9, 1.1), k), 3)
        for relative in (0.0, RELATIVE_OFF):
            cases.append({"function": "exp-of-multiple", "point": [a], "scale": k,
                          "offset": relative, "tol": tol})
    return cases


def check_grad_cases(rng: Any) -> list[dict[str, Any]]:
    """The cases of `check_grad_cases`: each function at every tolerance, |b| below 1 (so
    max(1, |numeric|) is 1 and OFF_BY is judged against tol itself), a sign-flipped gradient
    (b of either sign), b's gradient off by OFF_BY beside a large gradient of a (b near 1000,
    |a| below 1); then each tolerance again with every argument passed by name."""
    cases = []
    for tol in CHECK_GRAD_TOLERANCES:
        cases.append({"function": "steep", "point": [round(rng.uniform(0.0005, 0.003), 5)],
                      "tol": tol})
        b = round(rng.uniform(0.3, 0.8), 3) * rng.choice((-1, 1))
        cases.append({"function": "off-by", "point": [round(rng.uniform(0.5, 2), 3), b],
                      "tol": tol, "offset": OFF_BY})
        cases.append({"function": "sign-flipped", "point": [round(rng.uniform(0.5, 2), 3),
                                                            -b], "tol": tol})
        cases.append({"function": "off-by-second",
                      "point": [b, round(rng.uniform(500, 2000), 1) * rng.choice((-1, 1))],
                      "tol": tol, "offset": OFF_BY})
        cases += _signed_gradient_cases(rng, tol)
    return cases + by_name(cases, "tol")


# The same Value at several positions of xs (the README: one estimate per input, each the
# central difference of f with that input nudged; nudging a Value nudges it at every position
# it is passed at): every way of passing one Value twice, or three times, to f(a, b, c), and
# twice to f(a, b).
SAME_VALUE_INPUTS = {"cubic-mix": ([0, 0, 1], [0, 1, 0], [0, 1, 1], [0, 0, 0]),
                     "square-times": ([0, 0],)}


def same_value_cases(rng: Any, optional: str) -> list[dict[str, Any]]:
    """Cases of `numerical_cases` (optional "h") or `check_grad_cases` ("tol") that pass one
    Value at several positions, at its default step or tolerance and at the checks' usual one,
    then the first again with every argument by name."""
    given = 1e-3  # h: a one-sided difference is visibly off; tol: the checks' usual one
    cases = []
    for function, patterns in SAME_VALUE_INPUTS.items():
        for inputs in patterns:
            point = list(distinct_values(rng, "x y z").values())[:max(inputs) + 1]
            for value in (None, given):
                cases.append({"function": function, "point": point, "inputs": list(inputs),
                              optional: value})
    return cases + by_name(cases, optional)


def expect_check_grad_cases(cases: list[dict[str, Any]], got: list[Any], want: list[Any]) -> None:
    """check_grad answers every case as the reference does; the first case that differs is shown."""
    if len(got) != len(cases):
        fail("bad-result", reason="the answers do not have one entry per case")
    for case, actual, expected in zip(cases, got, want, strict=True):
        names = value_names(case)
        call = call_text("check_grad", case, "tol")
        function = case["function"]
        shown = {**(_exp_of_multiple(case) if function == "exp-of-multiple"
                    else CASE_FUNCTIONS.get(function) or NUMERICAL_FUNCTIONS[function]),
                 **dict(zip(names, case["point"], strict=True))}
        if case["tol"] is not None:
            shown["tol"] = case["tol"]
        expect_equal(field({call: actual}, call, bool), expected, quantity=call, inputs=shown)


def numerical_model(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the reference returns for `numerical_cases`, computed on plain floats (for the
    public checks, which have no reference): the data as given and the README's formula. A
    Value at several positions of xs is nudged at all of them: its estimate is the derivative
    along that Value, the same at each of its positions."""
    model = []
    for case in cases:
        positions = case_inputs(case)
        function = FLOAT_FUNCTIONS[case["function"]]

        def along_values(*values: float, function: Callable[..., float] = function,
                         positions: list[int] = positions) -> float:
            return function(*(values[k] for k in positions))
        per_value = central_differences(along_values, case["point"],
                                        1e-6 if case["h"] is None else case["h"])
        model.append({"data": [case["point"][k] for k in positions], "returned": "list",
                      "grads": [per_value[k] for k in positions]})
    return model


def expect_every_grad_zero(entry: Any, nodes: list[str], inputs: dict[str, Any]) -> None:
    """After `zero_grad_graphs` on one program whose values are named `nodes`: every node's
    grad is 0 (the output's graph is every node of a program)."""
    grads = field(entry, "grad", list)
    expect_equal(len(grads), len(nodes), quantity="len(nodes)", inputs=inputs)
    for name, grad in zip(nodes, grads, strict=True):
        expect_equal(field({f"{name}.grad": grad}, f"{name}.grad", float), 0.0,
                     quantity=said("quantity-after-call", code=f"{name}.grad",
                                   call=ZERO_GRAD_CALLS), inputs=inputs)


# What `zero_grad_graphs` calls on each graph, the gradients reset before each call.
ZERO_GRAD_CALLS = "zero_grad(out), zero_grad(nodes), zero_grad(nodes=nodes) with nodes = [out]"
