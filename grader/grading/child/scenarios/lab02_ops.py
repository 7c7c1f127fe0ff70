"""Lab 02 scenarios: apply one operation to the student's Values and report plain numbers.

Side: sandbox child. Each function's source is shipped to the child and run there against the
student's code (and, for hidden checks, in the trusted process against the reference solution).
A scenario may use only its parameters and the helpers of `grader.grading.child.graph`: module
globals do not travel with it. This module imports nothing of the trusted side.
"""

from grader.grading.child.graph import (
    OPERATIONS,
    data_of,
    grad_of,
    node_facts,
    run_expressions,
    run_sessions,
)
from grader.grading.child.scenario import Scenario, scenario
from grader.grading.child.schema import (
    ERROR_TEXT,
    NODES,
    NULL,
    TYPE_NAME,
    Bool,
    ListOf,
    Num,
    Obj,
    OneOf,
    ReplySchema,
    Str,
    expressions,
    sessions,
)


@scenario
def apply_op(Value, op, x, y=None, k=None, around="alone", z=None):
    a = Value(x)
    b = Value(y) if y is not None else None
    node = OPERATIONS[op].build(a, b, k)
    result: dict = {"data": data_of(node, "out")}
    if around == "forward":
        # which operands the node was built from, through _prev (a node the operation builds
        # as a new leaf is not connected to them, and no gradient can reach them); None when
        # the engine keeps the parents under another name: lab 02 judges numbers, not names
        if not hasattr(node, "_prev"):
            result["reaches"] = None
            return result
        seen: set = set()
        stack, reached = [node], []
        while stack and len(seen) < 1000:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            for name, operand in (("a", a), ("b", b)):
                if current is operand and name not in reached:
                    reached.append(name)
            stack.extend(list(current._prev))
        result["reaches"] = sorted(reached)
        return result
    # every node by its role, for the feedback's drawing (verdicts.lab02_ops.op_shape names them)
    named = {"a": a} if b is None else {"a": a, "b": b}
    if around == "scaled":
        c = Value(z)
        named["c"] = c
        out = node * c
    elif around == "reused":
        out = node + a
    elif around == "reused-both":
        named["op + a"] = node + a
        out = named["op + a"] + b
    else:
        out = node
    if out is not node:
        named["op"] = node
    named["out"] = out
    out.backward()
    result["a.grad"] = grad_of(a, "a")
    if b is not None:
        result["b.grad"] = grad_of(b, "b")
    result["nodes"] = node_facts(named)
    return result


@scenario
def pow_value_exponent(Value, x, k):
    a = Value(x)
    try:
        out = a ** Value(k)
    except Exception as exc:
        accepted = isinstance(exc, (TypeError, AssertionError, NotImplementedError, ValueError))
        return {"raised": True, "accepted": accepted, "type": type(exc).__name__,
                "message": str(exc)[:200]}
    return {"raised": False, "returned": type(out).__name__}


@scenario
def random_graphs(Value, graphs, record):
    return {"results": run_expressions(Value, graphs, record)}


@scenario
def state_sessions(Value, sessions):
    # programs built and walked in the orders the contract allows (graph.run_sessions)
    return {"sessions": run_sessions(Value, sessions)}


# What each scenario may reply (checked at the boundary before any verdict reads it:
# grader.grading.sandbox.reply_schemas).
REPLIES: dict[Scenario, ReplySchema] = {
    apply_op: Obj({"data": Num()}, {"reaches": OneOf(ListOf(Str(1), 2), NULL), "a.grad": Num(),
                                             "b.grad": Num(), "nodes": NODES}),
    pow_value_exponent: OneOf(
        Obj({"raised": Bool(), "accepted": Bool(), "type": TYPE_NAME, "message": ERROR_TEXT}),
        Obj({"raised": Bool(), "returned": TYPE_NAME})),
    random_graphs: expressions,
    state_sessions: sessions,
}
