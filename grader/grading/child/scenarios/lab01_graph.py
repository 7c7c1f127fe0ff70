"""Lab 01 scenarios: build small graphs with the student's Value and report plain numbers.

Side: sandbox child. Each function's source is shipped to the child and run there against the
student's code (and, for hidden checks, in the trusted process against the reference solution).
A scenario may use only its parameters and the helpers of `grader.grading.child.graph`: module
globals do not travel with it. This module imports nothing of the trusted side.
"""

from grader.grading.child.graph import (
    RECORD_CAP,
    WrongType,
    data_of,
    grad_of,
    label_of,
    label_type_of,
    node_facts,
    parents_or_none,
    record_calls,
    run_expressions,
    run_sessions,
)
from grader.grading.child.scenario import Scenario, scenario
from grader.grading.child.schema import (
    CALLS,
    COUNT,
    ERROR_TEXT,
    LABEL,
    NODES,
    NULL,
    PARENTS,
    SEEN,
    TYPE_NAME,
    Bool,
    Int,
    Num,
    Obj,
    OneOf,
    ReplySchema,
    Row,
    Str,
    expressions,
    grads,
    ladder_nodes,
    sessions,
)


@scenario
def hash_nodes(Value, x, y, ops="+*"):
    a, b = Value(x), Value(y)
    try:
        hash(a)
        hash(b)
    except TypeError as exc:
        return {"hashable": False, "stage": "leaf", "error": str(exc)[:200]}
    try:
        nodes = [a + b if op == "+" else a * b for op in ops]
    except TypeError as exc:
        if "unhashable" in str(exc):
            return {"hashable": False, "stage": "build", "error": str(exc)[:200]}
        raise
    except NotImplementedError:
        raise  # code not written yet: the grader reports it as such
    except Exception as exc:
        return {"hashable": None, "stage": "build", "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    try:
        size = len({a, b, *nodes})
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
    parents = parents_or_none(c, {"a": a, "b": b})  # None: no `_prev` (its own check)
    return {
        "data": data_of(c, "c"),
        "parents": parents,
        "op": label_of(c),
        "leaf_op": label_of(a),
        "op_type": label_type_of(c),
        "leaf_op_type": label_type_of(a),
        "leaf_parents": None if parents is None else len(list(a._prev)),
        "grads": [grad_of(a, "a"), grad_of(b, "b"), grad_of(c, "c")],
    }


@scenario
def keyword_constructor(Value, x, y, keyword):
    # the constructor given one of its arguments by keyword, as the README's table names it
    a, b = Value(x), Value(y)
    c = Value(x + y, _children=(a, b)) if keyword == "_children" else Value(x + y, (a, b), _op="+")
    return {"data": data_of(c, "c"), "grad": grad_of(c, "c")}


@scenario
def direct_backward(Value, op, x, y, upstream, same=False, preset=0.0):
    # One operation's _backward called by hand, without backward(): out.grad is set to
    # `upstream` and the parents' grads to `preset` (a contribution from another use) first.
    a = Value(x)
    b = a if same else Value(y)
    out = a + b if op == "+" else a * b
    a.grad = preset
    b.grad = preset
    out.grad = upstream
    out._backward()
    if same:
        return {"a.grad": grad_of(a, "a")}
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b")}


@scenario
def seed(Value, x, y, stale=None):
    # stale: a gradient the output already holds (out.grad set by hand before backward())
    a, b = Value(x), Value(y)
    out = a * b
    if stale is not None:
        out.grad = stale
    seen: list = []
    original = out._backward

    def watching():  # the gradient the output holds when its own _backward runs
        if len(seen) < RECORD_CAP:
            seen.append(grad_of(out, "out"))
        return original() if callable(original) else None
    out._backward = watching
    out.backward()
    return {"out.grad": grad_of(out, "out"), "nodes": node_facts({"a": a, "b": b, "out": out}),
            "seen": seen}


@scenario
def one_op(Value, op, x, y):
    a, b = Value(x), Value(y)
    out = a + b if op == "+" else a * b
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"),
            "nodes": node_facts({"a": a, "b": b, "out": out})}


@scenario
def sibling_calls(Value, x, y, z, w):
    a, b, c, d = Value(x), Value(y), Value(z), Value(w)
    ab = a * b
    abc, abd = ab * c, ab * d
    out = abc + abd
    calls = record_calls({"out": out, "x*c": abc, "x*d": abd, "x": ab})
    out.backward()
    return {"calls": list(calls), "nodes": node_facts(
        {"a": a, "b": b, "c": c, "d": d, "x": ab, "x*c": abc, "x*d": abd, "out": out})}


@scenario
def two_ops(Value, inner, x, y, z):
    a, b, c = Value(x), Value(y), Value(z)
    inner_node = a + b if inner == "+" else a * b
    out = inner_node * c
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
            "nodes": node_facts({"a": a, "b": b, "c": c, f"a{inner}b": inner_node, "out": out})}


@scenario
def diamond(Value, x, y):
    a, b = Value(x), Value(y)
    ab = a * b
    out = ab + a
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"),
            "nodes": node_facts({"a": a, "b": b, "a*b": ab, "out": out})}


@scenario
def self_op(Value, op, x):
    a = Value(x)
    out = a + a if op == "+" else a * a
    out.backward()
    return {"a.grad": grad_of(a, "a"), "nodes": node_facts({"a": a, "out": out})}


@scenario
def shared_intermediate(Value, x, y, z, w):
    a, b, c, d = Value(x), Value(y), Value(z), Value(w)
    ab = a * b
    abc, abd = ab * c, ab * d
    out = abc + abd
    out.backward()
    return {"x.grad": grad_of(ab, "x"), "a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"),
            "nodes": node_facts({"a": a, "b": b, "c": c, "d": d, "x": ab, "x*c": abc,
                                 "x*d": abd, "out": out})}


@scenario
def equal_data_leaves(Value, v):
    a, b = Value(v), Value(v)
    out = a * b
    parents = parents_or_none(out, {"a": a, "b": b})
    out.backward()
    return {"parents": parents, "a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"),
            "nodes": node_facts({"a": a, "b": b, "out": out})}


@scenario
def equal_data_nodes(Value, x, y, z):
    a, b = Value(x), Value(y)
    c, d = Value(x), Value(y)
    e = Value(z)
    p = a * b
    q = c * d
    qe = q * e
    out = p + qe
    out.backward()
    grads = {name: grad_of(node, name) for name, node in
             (("a", a), ("b", b), ("c", c), ("d", d), ("e", e))}
    return {**grads, "nodes": node_facts({"a": a, "b": b, "c": c, "d": d, "e": e, "a*b": p,
                                          "c*d": q, "(c*d)*e": qe, "out": out})}


@scenario
def number_operand(Value, side, op, x, k, own_backward=False):
    # A plain number on one side of the operator; the gradient through backward(), or through
    # the result's own _backward alone (own_backward: out.grad set to 1 by hand).
    # With backward() (not own_backward), and when the engine keeps its parents in `_prev`
    # (a name is structure, judged by its own check), the number's leaf too: the README's
    # number operand becomes a leaf Value in `_prev`, a fresh one per operation, so the same
    # number in a graph built and backpropagated before shares neither node nor gradient.
    def build(a):
        if side == "right":
            return a + k if op == "+" else a * k
        return k + a if op == "+" else k * a

    if not own_backward:
        build(Value(x)).backward()  # an earlier graph with the same number
    a = Value(x)
    out = build(a)
    result = {"data": data_of(out, "out")}
    parents = None if own_backward else getattr(out, "_prev", None)
    leaf = None
    if parents is not None:
        leaf = next((p for p in list(parents) if p is not a), None)
        if not isinstance(leaf, Value):
            # said as code, in no language: the parent of out that is not a
            raise WrongType("next(p for p in out._prev if p is not a)", type(leaf).__name__,
                            "Value")
    if own_backward:
        out.grad = 1.0
        out._backward()
    else:
        out.backward()
    result["a.grad"] = grad_of(a, "a")
    if leaf is not None:
        result["k.data"] = data_of(leaf, "k")
        result["k.grad"] = grad_of(leaf, "k")
    return result


@scenario
def course_graph(Value, x, y, z):
    a, b, c = Value(x), Value(y), Value(z)
    ab = a * b
    out = ab + c
    return {"out.data": data_of(out, "d"), "ab.data": data_of(ab, "ab"),
            "out._op": label_of(out), "ab._op": label_of(ab),
            "out._prev": parents_or_none(out, {"ab": ab, "c": c}),
            "ab._prev": parents_or_none(ab, {"a": a, "b": b})}


@scenario
def random_graphs(Value, graphs, record):
    return {"results": run_expressions(Value, graphs, record)}


@scenario
def mixed_depth_calls(Value, x, y, z, w):
    # x is used at two depths: by the output itself and, two steps below it, by y = x*c; a
    # breadth-first walk from the output reaches x before y, whatever order it visits parents.
    a, b, c, d = Value(x), Value(y), Value(z), Value(w)
    ab = a * b
    abc = ab * c
    abcd = abc * d
    out = abcd + ab
    calls = record_calls({"out": out, "y*d": abcd, "y": abc, "x": ab})
    out.backward()
    return {"calls": list(calls), "nodes": node_facts(
        {"a": a, "b": b, "c": c, "d": d, "x": ab, "y": abc, "y*d": abcd, "out": out})}


@scenario
def leaf_output_seed(Value, x):
    # the output is a leaf: backward() has no _backward to call, and still seeds it
    a = Value(x)
    a.backward()
    return {"a.grad": grad_of(a, "a")}


@scenario
def ladder_calls(Value, depth, x, y, z):
    # x0 = a; x[k+1] = x[k]*c + x[k]*d: every x[k] has two consumers, and a is reached along
    # 2**depth paths, so a walk without a working visited set reaches some node twice.
    a, c, d = Value(x), Value(y), Value(z)
    named = {"a": a, "c": c, "d": d}
    node = a
    for k in range(1, depth + 1):
        p, q = node * c, node * d
        node = p + q
        named.update({f"p{k}": p, f"q{k}": q, f"x{k}": node})
    calls = record_calls({name: v for name, v in named.items() if name not in ("a", "c", "d")})
    node.backward()
    return {"calls": list(calls), "nodes": node_facts(named)}


@scenario
def repeated_parent_calls(Value, x, y, z):
    # x = a*b is both operands of one node: out = (x + x) * c
    a, b, c = Value(x), Value(y), Value(z)
    ab = a * b
    twice = ab + ab
    out = twice * c
    calls = record_calls({"out": out, "x + x": twice, "x": ab})
    out.backward()
    return {"calls": list(calls), "nodes": node_facts(
        {"a": a, "b": b, "c": c, "x": ab, "x + x": twice, "out": out})}


@scenario
def second_backward(Value, x, y, z, w):
    # Two backward() calls in one process on graphs that share nodes: y = (a*b)*c first, then
    # z = y*d, whose walk must go through y's whole graph again. Every gradient is set back to
    # 0 by hand in between, so whether backward() adds to or resets old gradients is not judged.
    a, b, c, d = Value(x), Value(y), Value(z), Value(w)
    ab = a * b
    first = ab * c
    first.backward()
    for node in (a, b, c, d, ab, first):
        node.grad = 0.0
    out = first * d
    out.backward()
    return {"a.grad": grad_of(a, "a"), "b.grad": grad_of(b, "b"), "c.grad": grad_of(c, "c"),
            "d.grad": grad_of(d, "d"), "a*b.grad": grad_of(ab, "a*b"),
            "nodes": node_facts({"a": a, "b": b, "c": c, "d": d, "a*b": ab, "y": first,
                                 "z": out})}


@scenario
def state_sessions(Value, sessions):
    # programs built and walked in the orders the contract allows (graph.run_sessions)
    return {"sessions": run_sessions(Value, sessions)}


# What each scenario may reply (checked at the boundary before any verdict reads it:
# grader.grading.sandbox.reply_schemas).
REPLIES: dict[Scenario, ReplySchema] = {
    hash_nodes: OneOf(
        Obj({"hashable": Bool(nullable=True), "stage": Str(16), "error": ERROR_TEXT}),
        Obj({"hashable": Bool(), "set_size": Int(0, 16)})),
    leaf_backward: Obj({"callable": Bool(), "grad_before": Num(),
                                    "grad_after": Num()}),
    build_node: Obj({"data": Num(), "parents": OneOf(PARENTS, NULL), "op": LABEL,
                     "leaf_op": LABEL, "op_type": OneOf(TYPE_NAME, NULL),
                     "leaf_op_type": OneOf(TYPE_NAME, NULL), "leaf_parents": OneOf(COUNT, NULL),
                                 "grads": Row(Num(), Num(), Num())}),
    keyword_constructor: Obj({"data": Num(), "grad": Num()}),
    direct_backward: Obj({"a.grad": Num()}, {"b.grad": Num()}),
    seed: Obj({"out.grad": Num(), "nodes": NODES, "seen": SEEN}),
    one_op: grads("a", "b", nodes=NODES),
    sibling_calls: Obj({"calls": CALLS, "nodes": NODES}),
    two_ops: grads("a", "b", "c", nodes=NODES),
    diamond: grads("a", "b", nodes=NODES),
    self_op: grads("a", nodes=NODES),
    shared_intermediate: grads("x", "a", "b", nodes=NODES),
    equal_data_leaves: grads("a", "b", parents=OneOf(PARENTS, NULL), nodes=NODES),
    equal_data_nodes: Obj({**{name: Num() for name in "abcde"}, "nodes": NODES}),
    number_operand: Obj({"a.grad": Num(), "data": Num()}, {"k.data": Num(), "k.grad": Num()}),
    course_graph: Obj({"out.data": Num(), "ab.data": Num(), "out._op": LABEL,
                                   "ab._op": LABEL, "out._prev": OneOf(PARENTS, NULL),
                       "ab._prev": OneOf(PARENTS, NULL)}),
    random_graphs: expressions,
    mixed_depth_calls: Obj({"calls": CALLS, "nodes": NODES}),
    leaf_output_seed: grads("a"),
    ladder_calls: ladder_nodes,
    repeated_parent_calls: Obj({"calls": CALLS, "nodes": NODES}),
    second_backward: grads("a", "b", "c", "d", "a*b", nodes=NODES),
    state_sessions: sessions,
}
