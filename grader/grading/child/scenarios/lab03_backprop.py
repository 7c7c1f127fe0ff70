"""Lab 03 scenarios: drive the student's engine on larger graphs and report plain numbers.

Side: sandbox child. Each function's source is shipped to the child and run there against the
student's code (and, for hidden checks, in the trusted process against the reference solution).
A scenario may use only its parameters and the helpers of `grader.grading.child.graph`: module
globals do not travel with it. This module imports nothing of the trusted side.
"""

from grader.grading.child.graph import (
    COUNTED_CAP,
    RECORD_CAP,
    WrongType,
    data_of,
    grad_of,
    number,
    record_calls,
    run_expressions,
)
from grader.grading.child.scenario import Scenario, scenario
from grader.grading.child.schema import (
    COUNT,
    ERROR_TEXT,
    NUMBERS,
    SEEN,
    TYPE_NAME,
    Bool,
    Int,
    Num,
    Obj,
    OneOf,
    ReplySchema,
    Row,
    exactly,
    expressions,
    grads,
    ladder_counts,
    with_lists,
)


@scenario
def seed(engine, x, y, stale=None):
    a, b = engine.Value(x), engine.Value(y)
    out = a * b
    if stale is not None:
        out.grad = stale  # as a graph the output was part of before leaves it
    seen: list = []
    original = out._backward

    def watching():  # the gradient the output holds when its own _backward runs
        if len(seen) < RECORD_CAP:
            seen.append(grad_of(out, "out"))
        return original() if callable(original) else None
    out._backward = watching
    out.backward()
    return {"out.grad": grad_of(out, "out"), "a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"),
            "seen": seen}


@scenario
def equal_data(engine, x, y, z):
    # p = a*c; q = b*c; out = p*q + a + p, built twice: a and b holding different numbers,
    # then the same one (so p and q hold equal numbers too). For each: the gradients after
    # out.backward() and after zero_grad(out), or the error either raised.
    Value = engine.Value
    graphs: list[dict] = []
    for first, second in ((x, y), (x, x)):
        a, b, c = Value(first), Value(second), Value(z)
        p = a * c
        q = b * c
        out = p * q + a + p
        nodes = {"a": a, "b": b, "c": c, "p": p, "q": q}
        try:
            out.backward()
            grads = {f"{name}.grad": grad_of(node, name) for name, node in nodes.items()}
            engine.zero_grad(out)
            zeroed = {f"{name}.grad": grad_of(node, name) for name, node in nodes.items()}
        except NotImplementedError:
            raise  # a TODO not written yet: said as such, not judged here
        except Exception as error:  # noqa: BLE001 - reported, and judged on the trusted side
            graphs.append({"error": f"{type(error).__name__}: {error}"})
            continue
        graphs.append({"grads": grads, "zeroed": zeroed})
    return {"distinct": graphs[0], "equal": graphs[1]}


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
    calls = record_calls(named, COUNTED_CAP)
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
def wide_shared_zero_grad(engine, depth, x, y, z):
    Value = engine.Value
    a, c, d = Value(x), Value(y), Value(z)
    nodes = [a, c, d]
    node = a
    for _ in range(depth):
        p, q = node * c, node * d
        node = p + q
        nodes += [p, q, node]
    for v in nodes:
        v.grad = 1.0
    engine.zero_grad(node)
    return {"not_reset": sum(1 for v in nodes if number(v.grad, "grad") != 0.0)}


@scenario
def backward_twice(engine, x, y):
    a, b = engine.Value(x), engine.Value(y)
    out = a * b
    calls = record_calls({"out": out})  # how often each walk reaches the output's _backward
    out.backward()
    first = len(calls)
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "out.grad": grad_of(out, "out"),
            "walks": [first, len(calls) - first]}


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
def check_grad_verdict(engine, kind, stale, x, y, z, offset=0.0):
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

    def wrong_last(a, b, c):
        bc = b * c

        def wrong_backward():  # d(b*c)/dc is b; this passes 2b
            b.grad += c.data * bc.grad
            c.grad += 2 * b.data * bc.grad
        bc._backward = wrong_backward
        return a + bc

    def large(a, b, c):  # gradients near 1e11: only a relative tolerance judges them
        return ((a + b + c) * 5).exp()

    def just_outside(a, b, c):  # d(a*b)/da is b; this passes b + offset
        ab = a * b

        def off_backward():
            a.grad += (b.data + offset) * ab.grad
            b.grad += a.data * ab.grad
        ab._backward = off_backward
        return ab + c

    f = {"correct": correct, "wrong": wrong, "wrong-last": wrong_last, "large": large,
         "just-outside": just_outside}[kind]
    if stale is not None:
        for v in xs:
            v.grad = stale  # left over from an earlier backward()
    verdicts = [engine.check_grad(f, xs) for _ in range(1 if stale is None else 2)]
    for verdict in verdicts:
        if type(verdict) is not bool:
            raise WrongType("check_grad(f, xs)", type(verdict).__name__, "bool")
    return {"first": verdicts[0], "second": verdicts[-1]}


@scenario
def random_graphs(engine, graphs, record):
    return {"results": run_expressions(engine.Value, graphs, record)}


@scenario
def chain_timings(engine, sizes, x, y):
    # seconds backward() takes on chains of each size: a visited list makes it grow like n**2
    import time
    Value = engine.Value
    timings = []
    for n in sizes:
        a, b = Value(x), Value(y)
        out = a
        for _ in range(n):
            out = out + b
        best = None
        for _ in range(3):  # the fastest of three: a busy machine only ever slows a run down
            started = time.perf_counter()
            out.backward()
            elapsed = time.perf_counter() - started
            best = elapsed if best is None else min(best, elapsed)
        timings.append(best)
    return {"seconds": timings}


@scenario
def second_backward(engine, x, y, z, w):
    # Two backward() calls on graphs that share nodes: y = tanh(a*b)*c first, then z = y*d,
    # whose walk must go through y's whole graph again (the output's own _backward is not
    # enough). Every gradient is set to 0 by hand in between: accumulation is not judged here.
    Value = engine.Value
    a, b, c, d = Value(x), Value(y), Value(z), Value(w)
    ab = a * b
    t = ab.tanh()
    first = t * c
    first.backward()
    for node in (a, b, c, d, ab, t, first):
        node.grad = 0.0
    out = first * d
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
            "d.grad": grad_of(d, "d"), "y.grad": grad_of(first, "y")}


# What each scenario may reply (checked at the boundary before any verdict reads it:
# grader.grading.sandbox.reply_schemas).
GRADS_OR_ERROR = OneOf(Obj({"grads": grads("a", "b", "c", "p", "q"),
                            "zeroed": grads("a", "b", "c", "p", "q")}),
                       Obj({"error": ERROR_TEXT}))

REPLIES: dict[Scenario, ReplySchema] = {
    seed: grads("out", "a", "b", seen=SEEN),
    equal_data: Obj({"distinct": GRADS_OR_ERROR, "equal": GRADS_OR_ERROR}),
    expression_tree: grads("a", "b", "c", "d"),
    sibling_ladder: ladder_counts,
    wide_shared_graph: grads("a", "c", "d"),
    wide_shared_zero_grad: Obj({"not_reset": COUNT}),
    backward_twice: grads("a", "b", "out", walks=Row(Int(0, RECORD_CAP),
                                                                     Int(0, RECORD_CAP))),
    zero_grad_graph: grads("a", "b", "c", "p", "q", "r", "out"),
    zero_grad_then_backward: grads("a", "b", "c", "p"),
    deep_chain: grads("out", "a", "b"),
    deep_chain_zero_grad: Obj({"not_reset": COUNT, "first": Int(-1, 2 ** 53)}),
    cycle: OneOf(
        Obj({"raised": Bool(), "clear_type": Bool(), "type": TYPE_NAME, "message": ERROR_TEXT}),
        Obj({"raised": Bool()})),
    numerical: with_lists({"grads": NUMBERS, "data": exactly("point", Num())}),
    check_grad_verdict: Obj({"first": Bool(), "second": Bool()}),
    random_graphs: expressions,
    chain_timings: with_lists({"seconds": exactly("sizes", Num())}),
    second_backward: grads("a", "b", "c", "d", "y"),
}
