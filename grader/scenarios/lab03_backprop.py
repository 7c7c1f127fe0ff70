"""Lab 03 scenarios: drive the student's engine on larger graphs and report plain numbers.

Each function runs in the sandbox child (and, for hidden checks, on the reference solution
in the trusted process); it may use only its parameters and the helpers of grader.sandbox.kit.
Lab 03 exports the whole module, so the first parameter is the student's `value.py` itself:
scenarios reach `engine.Value`, `engine.zero_grad`, `engine.numerical_grad` and
`engine.check_grad` through it.
"""

from typing import Any

from grader.expect import CheckFailed, expect_equal, expect_results_close, fail, field
from grader.sandbox import scenario
from grader.sandbox.kit import WrongType, data_of, grad_of, number, record_calls

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
CHAIN_GRAPH = "out = a; for _ in range(n): out = out + b"
CYCLE_GRAPHS = {
    "below-output": "c = a*b; d = c + b; c._prev += (d,); out = d * a",
    "through-output": "out = a * b; a._prev = (out,)",
}
# How the functions the scenarios differentiate are shown to students, as {name: body}.
NUMERICAL_FUNCTIONS = {
    "cubic-mix": {"f(a, b, c)": "a**3 + b**3 + c**3 + a*b*c + tanh(a - c)"},
    "square-times": {"f(a, b)": "a**2 * b"},
}
CHECKED_FUNCTIONS = {
    "correct": {"f(a, b, c)": "tanh(a*b + c) * a"},
    "wrong": {"f(a, b, c)": "a*b + c", "(a*b)._backward": "a.grad += 2*b.data * (a*b).grad; "
              "b.grad += a.data * (a*b).grad"},
}


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


def run_explaining_timeout(run: Any, scen: Any, kind: str, detail: dict, **params: Any) -> Any:
    """run(scen, **params); on a timeout, fail with the detail `kind` (which says what a timeout
    means here) and its parameters `detail`, plus `seconds`."""
    try:
        return run(scen, **params)
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


def describe_dag(graph: dict) -> str:
    """A random DAG description as a short program: 'x0 = 0.5, x1 = -1; n2 = x0 * x1; ...'."""
    names = [f"x{k}" for k in range(len(graph["leaves"]))]
    lines = [", ".join(f"{name} = {value:g}" for name, value in zip(names, graph["leaves"],
                                                                    strict=True))]
    for op, i, j in graph["nodes"]:
        name = f"n{len(names)}"
        a = names[i]
        if op in ("+", "*", "-"):
            lines.append(f"{name} = {a} {op} {names[j]}")
        elif op == "scale":
            lines.append(f"{name} = {a} * {j:g}")
        elif op == "rsub":
            lines.append(f"{name} = {j:g} - {a}")
        elif op == "square":
            lines.append(f"{name} = {a}**2")
        else:
            lines.append(f"{name} = {op}({a})")
        names.append(name)
    lines.append(f"out = {names[-1]}")
    return "; ".join(lines)


# -- scenarios: they run in the sandbox child --------------------------------------------------


@scenario
def seed(engine, x, y):
    a, b = engine.Value(x), engine.Value(y)
    out = a * b
    out.backward()
    return {"out.grad": grad_of(out, "out")}


@scenario
def expression_tree(engine, x, y, z, w):
    Value = engine.Value
    a, b, c, d = Value(x), Value(y), Value(z), Value(w)
    out = (a * b - c) ** 2 + d.tanh() / 2
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
            "d.grad": grad_of(d, "d")}


@scenario
def sibling_ladder(engine, depth, x, y, z):
    Value = engine.Value
    a, c, d = Value(x), Value(y), Value(z)
    named = {}
    node = a
    for k in range(depth):
        p, q = node * c, node * d
        node = p + q
        named[f"x[{k}]*c"], named[f"x[{k}]*d"], named[f"x[{k + 1}]"] = p, q, node
    calls = record_calls(named)
    node.backward()
    counts: dict[str, int] = {}
    last: dict[str, int] = {}
    for position, name in enumerate(calls):
        counts[name] = counts.get(name, 0) + 1
        last[name] = position
    return {"counts": counts, "last": last}


@scenario
def wide_shared_graph(engine, depth, weights, x, y, z):
    Value = engine.Value
    a, c, d = Value(x), Value(y), Value(z)
    node = a
    for _ in range(depth):
        node = node * c + node * d
    out = node * weights[0]
    for weight in weights[1:]:
        out = out + node * weight
    out.backward()
    return {"a.grad": grad_of(a, "a"), "c.grad": grad_of(c, "c"), "d.grad": grad_of(d, "d")}


@scenario
def backward_twice(engine, x, y):
    a, b = engine.Value(x), engine.Value(y)
    out = a * b
    out.backward()
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "out.grad": grad_of(out, "out")}


@scenario
def zero_grad_graph(engine, form, stale, x, y, z):
    Value = engine.Value
    a, b, c = Value(x), Value(y), Value(z)
    p = a * b
    q = p.tanh()
    r = q + c
    out = r * p
    nodes = {"a": a, "b": b, "c": c, "p": p, "q": q, "r": r, "out": out}
    for node in nodes.values():
        node.grad = stale  # as an earlier backward() pass leaves them
    if form == "output":
        engine.zero_grad(out)
    else:
        engine.zero_grad([a, b, c])
    return {name + ".grad": grad_of(node, name) for name, node in nodes.items()}


@scenario
def zero_grad_then_backward(engine, x, y, z):
    Value = engine.Value
    a, b, c = Value(x), Value(y), Value(z)
    p = a * b
    out = (p.tanh() + c) * p
    out.backward()
    engine.zero_grad(out)
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
            "p.grad": grad_of(p, "p")}


@scenario
def deep_chain(engine, n, x, y):
    a, b = engine.Value(x), engine.Value(y)
    out = a
    for _ in range(n):
        out = out + b
    out.backward()
    return {"out.grad": grad_of(out, "out"), "a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b")}


@scenario
def deep_chain_zero_grad(engine, n, x, y):
    Value = engine.Value
    a, b = Value(x), Value(y)
    nodes = [a, b]
    out = a
    for _ in range(n):
        # the nodes of out + b, built with the constructor: zero_grad needs only _prev
        out = Value(out.data + b.data, (out, b), '+')
        nodes.append(out)
    for node in nodes:
        node.grad = 1.0
    engine.zero_grad(out)
    not_reset = [k for k, node in enumerate(nodes) if number(node.grad, "grad") != 0.0]
    return {"not_reset": len(not_reset), "first": not_reset[0] if not_reset else -1}


@scenario
def cycle(engine, shape, x, y):
    Value = engine.Value
    a, b = Value(x), Value(y)
    if shape == "below-output":
        c = a * b
        d = c + b
        c._prev = type(c._prev)(list(c._prev) + [d])
        out = d * a
    else:
        out = a * b
        a._prev = type(a._prev)([out])
    try:
        out.backward()
    except Exception as exc:
        clear = isinstance(exc, (ValueError, RuntimeError)) and not isinstance(exc, RecursionError)
        return {"raised": True, "clear_type": clear, "type": type(exc).__name__,
                "message": str(exc)[:300]}
    return {"raised": False}


@scenario
def numerical(engine, function, h, point):
    xs = [engine.Value(v) for v in point]

    def cubic_mix(a, b, c):
        return a ** 3 + b ** 3 + c ** 3 + a * b * c + (a - c).tanh()

    def square_times(a, b):
        return a ** 2 * b

    f = cubic_mix if function == "cubic-mix" else square_times
    grads = engine.numerical_grad(f, xs, h)
    return {"grads": [number(g, f"numerical_grad(f, xs)[{k}]") for k, g in enumerate(grads)],
            "data": [data_of(x, f"xs[{k}]") for k, x in enumerate(xs)]}


@scenario
def check_grad_verdict(engine, kind, stale, x, y, z):
    Value = engine.Value
    xs = [Value(x), Value(y), Value(z)]

    def correct(a, b, c):
        return (a * b + c).tanh() * a

    def wrong(a, b, c):
        ab = a * b

        def wrong_backward():  # d(a*b)/da is b; this passes 2b
            a.grad += 2 * b.data * ab.grad
            b.grad += a.data * ab.grad
        ab._backward = wrong_backward
        return ab + c

    f = correct if kind == "correct" else wrong
    if stale is not None:
        for v in xs:
            v.grad = stale  # left over from an earlier backward()
    verdicts = [engine.check_grad(f, xs) for _ in range(1 if stale is None else 2)]
    for verdict in verdicts:
        if type(verdict) is not bool:
            raise WrongType("check_grad(f, xs)", type(verdict).__name__, "bool")
    return {"first": verdicts[0], "second": verdicts[-1]}


@scenario
def random_dags(engine, graphs):
    Value = engine.Value
    results = []
    for graph in graphs:
        leaves = [Value(v) for v in graph["leaves"]]
        built = list(leaves)
        for op, i, j in graph["nodes"]:
            a = built[i]
            if op == "+":
                out = a + built[j]
            elif op == "*":
                out = a * built[j]
            elif op == "-":
                out = a - built[j]
            elif op == "scale":
                out = a * j
            elif op == "rsub":
                out = j - a
            elif op == "square":
                out = a ** 2
            else:
                out = a.tanh()
            built.append(out)
        built[-1].backward()
        results.append([grad_of(leaf, f"x{k}") for k, leaf in enumerate(leaves)])
    return {"grads": results}
