"""Lab 01 scenarios: build small graphs with the student's Value and report plain numbers.

Each function runs in the sandbox child (and, for hidden checks, on the reference solution
in the trusted process); it may use only its parameters and the helpers of grader.sandbox.kit.
"""

from grader.expect import NotRun, expect_equal, fail, field
from grader.sandbox import scenario
from grader.sandbox.kit import data_of, grad_of, parents_of, record_calls, text

# The graph of `sibling_calls`: out = x*c + x*d with x = a*b. x has two consumers, neither of
# which consumes the other, so a depth-first walk that calls _backward on the way down
# reaches x through one of them before the other has run, whatever order it visits parents.
SIBLING_GRAPH = "x = a*b; out = x*c + x*d"
SIBLING_CONSUMERS = {"x": ("x*c", "x*d"), "x*c": ("out",), "x*d": ("out",)}
SIBLING_INTERNAL = ("out", "x*c", "x*d", "x")


def expect_topological_calls(calls: list, inputs: dict) -> None:
    """Fail unless every internal node ran, and each node last ran after all its consumers.

    The last call is the one that counts: a node run twice (no visited set) is another check.
    """
    last = {name: position for position, name in enumerate(calls)}
    for node in SIBLING_INTERNAL:
        if node not in last:
            fail("not-called", node=node, inputs=inputs)
    for node, consumers in SIBLING_CONSUMERS.items():
        for consumer in consumers:
            if last[node] < last[consumer]:
                fail("order-violation", node=node, consumer=consumer, inputs=inputs)


def expect_hashable_nodes(result: dict, inputs: dict) -> None:
    """The verdict on `hash_nodes`: not run if a + b or a * b could not be built for another
    reason; failed if hashing raised; otherwise the four nodes must stay four set members."""
    hashable = field(result, "hashable", (bool, type(None)))
    if hashable is None:
        raise NotRun("not-built", what="a + b, a * b", error=field(result, "error", str))
    if not hashable:
        fail("not-hashable", type="TypeError", message=field(result, "error", str))
    expect_equal(field(result, "set_size", int), 4, quantity="len({a, b, a + b, a * b})",
                 inputs=inputs)


def expect_each_called_once(calls: list, inputs: dict) -> None:
    """Fail if any node's _backward ran more than once."""
    for node in dict.fromkeys(calls):
        if calls.count(node) > 1:
            fail("called-more-than-once", node=node, count=calls.count(node), inputs=inputs)


@scenario
def hash_nodes(Value, x, y):
    a, b = Value(x), Value(y)
    try:
        hash(a)
        hash(b)
    except TypeError as exc:
        return {"hashable": False, "stage": "leaf", "error": str(exc)[:200]}
    try:
        c, d = a + b, a * b
    except TypeError as exc:
        if "unhashable" in str(exc):
            return {"hashable": False, "stage": "build", "error": str(exc)[:200]}
        raise
    except Exception as exc:
        return {"hashable": None, "stage": "build", "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    try:
        size = len({a, b, c, d})
    except TypeError as exc:
        return {"hashable": False, "stage": "set", "error": str(exc)[:200]}
    return {"hashable": True, "set_size": size}


@scenario
def leaf_backward(Value, x):
    a = Value(x)
    before = grad_of(a, "a")
    callable_ = callable(a._backward)
    if callable_:
        a._backward()
    return {"callable": callable_, "grad_before": before, "grad_after": grad_of(a, "a")}


@scenario
def build_node(Value, op, x, y):
    a, b = Value(x), Value(y)
    c = a + b if op == "+" else a * b
    return {
        "data": data_of(c, "c"),
        "parents": parents_of(c, {"a": a, "b": b}),
        "op": text(c._op, "c._op"),
        "leaf_op": text(a._op, "a._op"),
        "leaf_parents": len(list(a._prev)),
        "grads": [grad_of(a, "a"), grad_of(b, "b"), grad_of(c, "c")],
    }


@scenario
def seed(Value, x, y):
    a, b = Value(x), Value(y)
    out = a * b
    out.backward()
    return {"out.grad": grad_of(out, "out")}


@scenario
def one_op(Value, op, x, y):
    a, b = Value(x), Value(y)
    out = a + b if op == "+" else a * b
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b")}


@scenario
def sibling_calls(Value, x, y, z, w):
    a, b, c, d = Value(x), Value(y), Value(z), Value(w)
    ab = a * b
    abc, abd = ab * c, ab * d
    out = abc + abd
    calls = record_calls({"out": out, "x*c": abc, "x*d": abd, "x": ab})
    out.backward()
    return {"calls": list(calls)}


@scenario
def two_ops(Value, inner, x, y, z):
    a, b, c = Value(x), Value(y), Value(z)
    out = (a + b) * c if inner == "+" else (a * b) * c
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c")}


@scenario
def diamond(Value, x, y):
    a, b = Value(x), Value(y)
    out = a * b + a
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b")}


@scenario
def self_op(Value, op, x):
    a = Value(x)
    out = a + a if op == "+" else a * a
    out.backward()
    return {"a.grad": grad_of(a, "a")}


@scenario
def shared_intermediate(Value, x, y, z, w):
    a, b, c, d = Value(x), Value(y), Value(z), Value(w)
    ab = a * b
    out = ab * c + ab * d
    out.backward()
    return {"x.grad": grad_of(ab, "x"), "a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b")}


@scenario
def equal_data_leaves(Value, v):
    a, b = Value(v), Value(v)
    out = a * b
    parents = parents_of(out, {"a": a, "b": b})
    out.backward()
    return {"parents": parents, "a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b")}


@scenario
def equal_data_nodes(Value, x, y, z):
    a, b = Value(x), Value(y)
    c, d = Value(x), Value(y)
    e = Value(z)
    p = a * b
    q = c * d
    out = p + q * e
    out.backward()
    return {name: grad_of(node, name) for name, node in
            (("a", a), ("b", b), ("c", c), ("d", d), ("e", e))}


@scenario
def number_operand(Value, side, op, x, k):
    a = Value(x)
    if side == "right":
        out = a + k if op == "+" else a * k
    else:
        out = k + a if op == "+" else k * a
    result = {"data": data_of(out, "out")}
    out.backward()
    result["a.grad"] = grad_of(a, "a")
    return result


@scenario
def course_graph(Value, x, y, z):
    a, b, c = Value(x), Value(y), Value(z)
    ab = a * b
    out = ab + c
    return {"out.data": data_of(out, "d"), "ab.data": data_of(ab, "ab"),
            "out._op": text(out._op, "d._op"), "ab._op": text(ab._op, "ab._op"),
            "out._prev": parents_of(out, {"ab": ab, "c": c}),
            "ab._prev": parents_of(ab, {"a": a, "b": b})}
