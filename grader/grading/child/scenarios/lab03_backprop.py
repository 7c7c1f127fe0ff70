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
    build_expression,
    called,
    data_of,
    grad_of,
    node_facts,
    number,
    parents_attribute,
    record_calls,
    run_expressions,
)
from grader.grading.child.scenario import Scenario, scenario
from grader.grading.child.schema import (
    CALLS,
    COUNT,
    ERROR_TEXT,
    NAME,
    NODES,
    NULL,
    NUMBERS,
    SEEN,
    TYPE_NAME,
    Bool,
    Int,
    ListOf,
    Num,
    Obj,
    OneOf,
    ReplySchema,
    Row,
    exactly,
    expression_values,
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
    ab = a * b
    difference = ab - c
    square = difference ** 2
    tanh_d = d.tanh()
    half = tanh_d / 2
    out = square + half
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
            "d.grad": grad_of(d, "d"),
            "nodes": node_facts({"a": a, "b": b, "c": c, "d": d, "a*b": ab, "a*b - c": difference,
                                 "(a*b - c)**2": square, "tanh(d)": tanh_d, "tanh(d) / 2": half,
                                 "out": out})}


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
    return {"counts": counts, "last": last, "nodes": node_facts({"a": a, "c": c, "d": d, **named})}


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
    recorder = out._backward
    out.backward()
    first = len(calls)
    # a walk that swaps the _backward it ran for another leaves no way to pass a gradient on again
    replaced = [] if out._backward is recorder else ["out"]
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "out.grad": grad_of(out, "out"),
            "walks": [first, len(calls) - first], "replaced": replaced}


@scenario
def zero_grad_graph(engine, form, stale, x, y, z):
    Value = engine.Value
    a, b, c = Value(x), Value(y), Value(z)
    p = a * b
    q = p.tanh()
    r = q + c
    out = r * p
    nodes = {"a": a, "b": b, "c": c, "p": p, "q": q, "r": r, "out": out}
    # form "list": one list [a, b, c] passed twice, by position then by the README's name
    # (zero_grad leaves the caller's list as it was), the stale gradients put back between;
    # each node's grad is the first one of the calls left that is not 0 (else 0)
    calls = ["output"] if form == "output" else ["positional", "keyword"]
    roots = [a, b, c]
    left: dict = {}
    for call in calls:
        for node in nodes.values():
            node.grad = stale  # as an earlier backward() pass leaves them
        if call == "output":
            engine.zero_grad(out)
        else:
            called(engine.zero_grad, call, nodes=roots)
        for name, node in nodes.items():
            if left.get(name + ".grad", 0.0) == 0.0:
                left[name + ".grad"] = grad_of(node, name)
    return left


@scenario
def zero_grad_then_backward(engine, x, y, z):
    Value = engine.Value
    a, b, c = Value(x), Value(y), Value(z)
    p = a * b
    t = p.tanh()
    s = t + c
    out = s * p
    named = {"p": p, "tanh(p)": t, "tanh(p) + c": s, "out": out}
    calls = record_calls(named)
    recorders = {name: node._backward for name, node in named.items()}
    out.backward()
    first_calls = list(calls)
    first = {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
             "p.grad": grad_of(p, "p")}
    replaced = [name for name, node in named.items() if node._backward is not recorders[name]]
    engine.zero_grad(out)
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
            "p.grad": grad_of(p, "p"), "first": first, "first_calls": first_calls,
            "replaced": replaced}


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
def cycle(engine, shape, x, y, after_backward=False):
    # after_backward: the graph is walked once before the cycle is made (by hand, in _prev):
    # the next backward() must see the graph as it is now
    Value = engine.Value
    a, b = Value(x), Value(y)
    # the cycle goes through the collection the engine keeps the parents in: `_prev`, or the
    # attribute it keeps them under otherwise (a name is structure, judged in lab 01)
    if shape == "below-output":
        c = a * b
        d = c + b
        held = parents_attribute(c, [a, b])
        if held is None:
            return {"parents": None}
        if after_backward:
            out = d * a
            out.backward()
        setattr(c, held, type(getattr(c, held))(list(getattr(c, held)) + [d]))
        if not after_backward:
            out = d * a
    else:
        out = a * b
        held = parents_attribute(out, [a, b])
        if held is None:
            return {"parents": None}
        if after_backward:
            out.backward()
        setattr(a, held, type(getattr(a, held))([out]))
    try:
        out.backward()
    except Exception as exc:
        clear = isinstance(exc, (ValueError, RuntimeError)) and not isinstance(exc, RecursionError)
        return {"raised": True, "clear_type": clear, "type": type(exc).__name__,
                "message": str(exc)[:300]}
    return {"raised": False}


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
def backward_twice_graphs(engine, graphs, record):
    # each graph's output walked twice, nothing reset between: every node's data and grad after
    return {"results": run_expressions(engine.Value, graphs, record, passes=2)}


@scenario
def chain_comparisons(engine, sizes, x, y):
    # How many times backward() compares two nodes with == on chains of each size: a walk that
    # looks each node up in a list (a visited list, a path list) compares it with the nodes
    # before it, about n**2 / 2 times in all; one that uses sets compares none. A count, not a
    # time: the same on an idle machine and a busy one.
    Value = engine.Value
    own = Value.__dict__.get("__eq__")
    counted = [0]

    def counting_eq(self, other):
        counted[0] += 1
        return own(self, other) if own is not None else NotImplemented

    counts = []
    Value.__eq__ = counting_eq
    try:
        for n in sizes:
            a, b = Value(x), Value(y)
            out = a
            for _ in range(n):
                out = out + b
            counted[0] = 0
            out.backward()
            counts.append(counted[0])
    finally:
        if own is None:
            del Value.__eq__
        else:
            Value.__eq__ = own
    return {"comparisons": counts}


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
    named = {"a*b": ab, "tanh(a*b)": t, "y": first}
    before = {name: node._backward for name, node in named.items()}
    first.backward()
    replaced = [name for name, node in named.items() if node._backward is not before[name]]
    for node in (a, b, c, d, ab, t, first):
        node.grad = 0.0
    out = first * d
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
            "d.grad": grad_of(d, "d"), "y.grad": grad_of(first, "y"), "replaced": replaced}


@scenario
def numerical_cases(engine, cases):
    # numerical_grad on each case {"function", "point", "h"} (h None: its default), judged
    # against the reference on the trusted side: the returned type and length, every estimate,
    # and every input's data afterwards (which must be exactly what it was). A case's "inputs"
    # (if any) lists which Value of the point each position of xs is: [0, 0, 1] passes the same
    # Value twice, f(a, a, b).
    def square_times(a, b):
        return a ** 2 * b

    def cubic_mix(a, b, c):
        return a ** 3 + b ** 3 + c ** 3 + a * b * c + (a - c).tanh()

    results = []
    for case in cases:
        values = [engine.Value(v) for v in case["point"]]
        xs = [values[k] for k in case.get("inputs", range(len(values)))]
        f = cubic_mix if case["function"] == "cubic-mix" else square_times
        grads = called(engine.numerical_grad, case.get("call"), f=f, xs=xs, h=case["h"])
        entry: dict = {"data": [data_of(x, f"xs[{k}]") for k, x in enumerate(xs)]}
        if type(grads) is not list:
            entry["returned"] = type(grads).__name__
        else:
            entry["returned"] = "list"
            odd = [type(g).__name__ for g in grads if type(g) is not float and type(g) is not int]
            if odd:
                entry["element"] = odd[0]
            else:
                entry["grads"] = [float(g) for g in grads]
        results.append(entry)
    return {"results": results}


@scenario
def check_grad_cases(engine, cases):
    # check_grad's answer on each case {"function", "point", "tol"} (tol None: its default):
    # correct gradients of functions steep enough that the step matters, and gradients off by a
    # known amount that only the tolerance of the contract tells apart. "inputs" as in
    # numerical_cases: the same Value at several positions of xs.
    Value = engine.Value

    def steep(a):  # d/da = 1000 e^(1000a): a central difference with a step of 1e-4 is off by
        return (a * 1000).exp()  # 1000**2 * 1e-8 / 6 of it, beyond 1e-4; with 1e-6, by 2e-7

    def off_by(a, b, offset):  # d(a*b)/da passed as b + offset
        ab = a * b

        def off_backward():
            a.grad += (b.data + offset) * ab.grad
            b.grad += a.data * ab.grad
        ab._backward = off_backward
        return ab

    def sign_flipped(a, b):  # d(a*b)/da is b; this passes -b: right in size, wrong in sign
        ab = a * b

        def flipped_backward():
            a.grad += -b.data * ab.grad
            b.grad += a.data * ab.grad
        ab._backward = flipped_backward
        return ab

    def off_by_second(a, b, offset):  # d(a*b)/db passed as a + offset, beside d/da = b, large
        ab = a * b

        def off_backward():
            a.grad += b.data * ab.grad
            b.grad += (a.data + offset) * ab.grad
        ab._backward = off_backward
        return ab

    def exp_of_multiple(a, scale, relative):  # exp(a * scale); d/da passed (1 + relative) times
        product = a * scale

        def scaled_backward():
            a.grad += scale * (1 + relative) * product.grad
        if relative:
            product._backward = scaled_backward
        return product.exp()

    def cubic_mix(a, b, c):
        return a ** 3 + b ** 3 + c ** 3 + a * b * c + (a - c).tanh()

    def square_times(a, b):
        return a ** 2 * b

    answers = []
    for case in cases:
        values = [Value(v) for v in case["point"]]
        xs = [values[k] for k in case.get("inputs", range(len(values)))]
        name, offset, scale = case["function"], case.get("offset", 0.0), case.get("scale")
        f = {"steep": steep, "sign-flipped": sign_flipped, "cubic-mix": cubic_mix,
             "square-times": square_times,
             "off-by": lambda a, b, offset=offset: off_by(a, b, offset),
             "off-by-second": lambda a, b, offset=offset: off_by_second(a, b, offset),
             "exp-of-multiple": lambda a, scale=scale, offset=offset:
             exp_of_multiple(a, scale, offset)}[name]
        answer = called(engine.check_grad, case.get("call"), f=f, xs=xs, tol=case["tol"])
        if type(answer) is not bool:
            raise WrongType("check_grad(f, xs)", type(answer).__name__, "bool")
        answers.append(answer)
    return {"answers": answers}


@scenario
def zero_grad_graphs(engine, graphs, record):
    # Each graph built, every node given a gradient as earlier passes leave them (0 on every
    # third node, so nodes that hold 0 sit above nodes that do not), then zero_grad(output);
    # the same again with zero_grad(nodes) and zero_grad(nodes=nodes), one list nodes = [output]
    # passed twice (the README: a Value or a list, by position or by name, the caller's list
    # left as it was). Every node's data, and per node the first gradient one of the three
    # calls left that is not 0 (else 0). `record` is the random checks' argument, unused.
    results = []
    for graph in graphs:
        values = build_expression(engine.Value, graph)
        nodes = [values[-1]]
        left = [0.0] * len(values)
        for call in ("value", "positional", "keyword"):
            for k, value in enumerate(values):
                value.grad = 0.0 if k % 3 == 1 else 0.5 + k
            if call == "value":
                engine.zero_grad(values[-1])
            else:
                called(engine.zero_grad, call, nodes=nodes)
            grads = [grad_of(v, f"[{k}]") for k, v in enumerate(values)]
            left = [old if old != 0 else new for old, new in zip(left, grads, strict=True)]
        results.append({"data": [data_of(v, f"[{k}]") for k, v in enumerate(values)],
                        "grad": left})
    return {"results": results}


# What each scenario may reply (checked at the boundary before any verdict reads it:
# grader.grading.sandbox.reply_schemas).
GRADS_OR_ERROR = OneOf(Obj({"grads": grads("a", "b", "c", "p", "q"),
                            "zeroed": grads("a", "b", "c", "p", "q")}),
                       Obj({"error": ERROR_TEXT}))

# numerical_cases: one entry a case: every input's data afterwards, the returned type, and the
# estimates (a list of numbers) or the type of the first element that is not a number.
NUMERICAL_CASE = Obj({"data": ListOf(Num(), 8), "returned": TYPE_NAME},
                     {"grads": NUMBERS, "element": TYPE_NAME})

REPLIES: dict[Scenario, ReplySchema] = {
    seed: grads("out", "a", "b", seen=SEEN),
    equal_data: Obj({"distinct": GRADS_OR_ERROR, "equal": GRADS_OR_ERROR}),
    expression_tree: grads("a", "b", "c", "d", nodes=NODES),
    sibling_ladder: ladder_counts,
    wide_shared_graph: grads("a", "c", "d"),
    wide_shared_zero_grad: Obj({"not_reset": COUNT}),
    backward_twice: grads("a", "b", "out", walks=Row(Int(0, RECORD_CAP), Int(0, RECORD_CAP)),
                          replaced=ListOf(NAME, 1)),
    zero_grad_graph: grads("a", "b", "c", "p", "q", "r", "out"),
    zero_grad_then_backward: grads("a", "b", "c", "p", first=grads("a", "b", "c", "p"),
                                   first_calls=CALLS, replaced=ListOf(NAME, 8)),
    deep_chain: grads("out", "a", "b"),
    deep_chain_zero_grad: Obj({"not_reset": COUNT, "first": Int(-1, 2 ** 53)}),
    cycle: OneOf(
        Obj({"raised": Bool(), "clear_type": Bool(), "type": TYPE_NAME, "message": ERROR_TEXT}),
        Obj({"raised": Bool()}), Obj({"parents": NULL})),
    numerical_cases: with_lists({"results": exactly("cases", NUMERICAL_CASE)}),
    check_grad_cases: with_lists({"answers": exactly("cases", Bool())}),
    zero_grad_graphs: expression_values,
    check_grad_verdict: Obj({"first": Bool(), "second": Bool()}),
    random_graphs: expressions,
    backward_twice_graphs: expressions,
    chain_comparisons: with_lists({"comparisons": exactly("sizes", COUNT)}),
    second_backward: grads("a", "b", "c", "d", "y", replaced=ListOf(NAME, 8)),
}
