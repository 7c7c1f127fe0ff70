"""Lab 03 verdicts: the graphs lab03 describes, and how its checks judge order, zero_grad, cycles.

Side: trusted process. Nothing here runs student code: these functions read the plain data a
scenario of `grader.grading.child.scenarios.lab03_backprop` returned and raise CheckFailed or NotRun.
"""

from __future__ import annotations

from typing import Any

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
from grader.grading.child.scenarios.lab03_backprop import chain_timings, deep_chain

# The expression of `expression_tree`: every leaf is used once, so any traversal that starts
# at the output and seeds it reaches each node after its only consumer.
TREE_GRAPH = "out = (a*b - c)**2 + tanh(d) / 2"

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

# A chain backward() walks in linear time takes 4 times as long at 4 times the length; with a
# visited *list* (a linear lookup per node) it takes 16 times as long.
GROWTH_SIZES = (1000, 4000)
QUADRATIC_RATIO = 9.0

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

def expect_topological_calls(result: Any, depth: int, inputs: dict) -> None:
    """Fail unless every internal node ran, and each one last ran after all its consumers.

    `result["last"]` maps names to the position of each node's last `_backward` call; the
    last call is the one that counts (a node run twice is the visited-set check's business).
    """
    last = _per_node(result, "last", depth, inputs)
    for node, consumers in ladder_consumers(depth).items():
        for consumer in consumers:
            if last[node] < last[consumer]:
                fail("order-violation", node=node, consumer=consumer, inputs=inputs)

def expect_each_called_once(result: Any, depth: int, inputs: dict) -> None:
    """Fail if some node's `_backward` never ran or ran more than once; name the worst one."""
    counts = _per_node(result, "counts", depth, inputs)
    worst = max(ladder_names(depth), key=lambda node: counts[node])
    if counts[worst] > 1:
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

def expect_zero_grads(result: Any, form: str, inputs: dict) -> None:
    """Fail unless zero_grad (called on the output, or on the list [a, b, c]) reset its nodes."""
    call = "zero_grad(out)" if form == "output" else "zero_grad([a, b, c])"
    before = " = ".join(f"{name}.grad" for name in ZERO_GRAD_NODES)
    shown = {"graph": ZERO_GRAD_GRAPH, **inputs, before: STALE_GRAD, "calls": call}
    reset = ZERO_GRAD_NODES if form == "output" else ("a", "b", "c")
    expect_results_close(result, {f"{name}.grad": 0.0 for name in reset}, inputs=shown,
                         source="literal")

def expect_clear_cycle_error(result: Any, inputs: dict) -> None:
    """Fail unless backward() raised ValueError or RuntimeError with 'cycle' in the message."""
    if not field(result, "raised", bool):
        fail("cycle-not-reported", inputs=inputs)
    message = field(result, "message", str)
    if not field(result, "clear_type", bool) or "cycle" not in message.lower():
        fail("cycle-unclear-error", type=field(result, "type", str), message=message,
             inputs=inputs)

def expect_seeded(result: Any, inputs: dict) -> None:
    """The verdict on `seed`: out.grad is 1 after backward(), and already was when the output's
    own `_backward` ran (a seed set after the walk, or added to a stale one, is not)."""
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
    """Run `deep_chain` of n nodes. On a timeout: a cost that grows like n**2 on short chains is
    blamed on a quadratic walk (`blame_slow_chain`); a linear one gets a second run with
    BUSY_MACHINE_PATIENCE times the limit, whose timeout stands as deep recursion's."""
    try:
        return sandboxed(deep_chain, n=n, **inputs)
    except CheckFailed as exc:
        if exc.detail["kind"] != "timeout":
            raise
        blame_slow_chain(sandboxed, inputs, shown, exc)
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


def blame_slow_chain(sandboxed: Any, inputs: dict, shown: dict, timeout: CheckFailed) -> None:
    """After the deep chain timed out: fail as a quadratic walk (`missing-visited-set`) if
    backward() time grows like n**2 on short chains; otherwise return (the chain then gets a
    longer second run). A RecursionError is an exception, not a timeout: it never comes here."""
    try:
        result = sandboxed(chain_timings, sizes=list(GROWTH_SIZES), **inputs)
    except CheckFailed:
        return
    small, large = floats(result, "seconds", "seconds", len(GROWTH_SIZES), shown)
    if small > 0 and large / small > QUADRATIC_RATIO:
        params: Any = timeout.detail["params"]
        fail("quadratic-walk", pitfall="missing-visited-set", output=timeout.output,
             inputs=shown, seconds=params.get("seconds"), sizes=list(GROWTH_SIZES),
             times=[round(small, 4), round(large, 4)])



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
