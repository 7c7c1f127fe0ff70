"""Lab 01 verdicts: what the lab01 checks expect of the graphs the scenarios build.

Side: trusted process. Nothing here runs student code: these functions read the plain data a
scenario of `grader.grading.child.scenarios.lab01_graph` returned and raise CheckFailed or NotRun.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grader.grading.checking.graph_shape import (
    GraphShape,
    expect_graph_results,
    graph_on_failure,
)
from grader.grading.checking.verdict import (
    CheckFailed,
    NotRun,
    expect_close,
    expect_equal,
    expect_results_close,
    fail,
    field,
    said,
)

# The graph of `sibling_calls`: out = x*c + x*d with x = a*b. x has two consumers, neither of
# which consumes the other, so a depth-first walk that calls _backward on the way down
# reaches x through one of them before the other has run, whatever order it visits parents.
SIBLING_GRAPH = "x = a*b; out = x*c + x*d"

SIBLING_CONSUMERS = {"x": ("x*c", "x*d"), "x*c": ("out",), "x*d": ("out",)}

SIBLING_INTERNAL = ("out", "x*c", "x*d", "x")

# The shapes of the graphs the scenarios build, with the node names their `node_facts` use:
# what a failure draws (see grader.grading.checking.graph_shape).
SIBLING_SHAPE = GraphShape(
    nodes=(("a", ""), ("b", ""), ("c", ""), ("d", ""), ("x", "*"), ("x*c", "*"), ("x*d", "*"),
           ("out", "+")),
    edges=(("a", "x"), ("b", "x"), ("x", "x*c"), ("c", "x*c"), ("x", "x*d"), ("d", "x*d"),
           ("x*c", "out"), ("x*d", "out")),
    output="out")


@dataclass(frozen=True)
class Walk:
    """A graph whose `_backward` calls a scenario records: its shape, its internal nodes, and
    the consumers of each node used by others."""

    shape: GraphShape
    internal: tuple[str, ...]
    consumers: dict[str, tuple[str, ...]]


SIBLING_WALK = Walk(SIBLING_SHAPE, SIBLING_INTERNAL, SIBLING_CONSUMERS)

# The graph of `mixed_depth_calls`: x has a consumer at each of two depths (the output, and y
# two steps below it), so a breadth-first walk runs x before y has passed x its share.
MIXED_DEPTH_GRAPH = "x = a*b; y = x*c; out = y*d + x"
MIXED_DEPTH_WALK = Walk(
    shape=GraphShape(
        nodes=(("a", ""), ("b", ""), ("c", ""), ("d", ""), ("x", "*"), ("y", "*"), ("y*d", "*"),
               ("out", "+")),
        edges=(("a", "x"), ("b", "x"), ("x", "y"), ("c", "y"), ("y", "y*d"), ("d", "y*d"),
               ("y*d", "out"), ("x", "out")),
        output="out"),
    internal=("out", "y*d", "y", "x"),
    consumers={"x": ("y", "out"), "y": ("y*d",), "y*d": ("out",)})
DIAMOND_SHAPE = GraphShape(
    nodes=(("a", ""), ("b", ""), ("a*b", "*"), ("out", "+")),
    edges=(("a", "a*b"), ("b", "a*b"), ("a*b", "out"), ("a", "out")), output="out")
EQUAL_DATA_NODES_SHAPE = GraphShape(
    nodes=(("a", ""), ("b", ""), ("c", ""), ("d", ""), ("e", ""), ("a*b", "*"), ("c*d", "*"),
           ("(c*d)*e", "*"), ("out", "+")),
    edges=(("a", "a*b"), ("b", "a*b"), ("c", "c*d"), ("d", "c*d"), ("c*d", "(c*d)*e"),
           ("e", "(c*d)*e"), ("a*b", "out"), ("(c*d)*e", "out")),
    output="out")


def one_op_shape(op: str) -> GraphShape:
    """out = a op b."""
    return GraphShape(nodes=(("a", ""), ("b", ""), ("out", op)),
                      edges=(("a", "out"), ("b", "out")), output="out")


def two_ops_shape(inner: str) -> GraphShape:
    """out = (a inner b) * c."""
    name = f"a{inner}b"
    return GraphShape(nodes=(("a", ""), ("b", ""), ("c", ""), (name, inner), ("out", "*")),
                      edges=(("a", name), ("b", name), (name, "out"), ("c", "out")),
                      output="out")


def self_op_shape(op: str) -> GraphShape:
    """out = a op a: two edges from a."""
    return GraphShape(nodes=(("a", ""), ("out", op)), edges=(("a", "out"), ("a", "out")),
                      output="out")


def expect_gradients(result: Any, expected: dict[str, Any], *, shape: GraphShape,
                     leaves: dict[str, float], inputs: dict[str, Any], source: str) -> None:
    """The student's gradients close to `expected` (its `nodes` facts aside); a failure
    carries the graph of `shape`, with the student's numbers and the expected ones."""
    expect_graph_results(result, expected, shape=shape, leaves=leaves, inputs=inputs,
                         source=source)


def expect_topological_calls(result: Any, leaves: dict[str, float], inputs: dict,
                             walk: Walk | None = None) -> None:
    """Fail unless every internal node ran, and each node last ran after all its consumers.

    The last call is the one that counts: a node run twice (no visited set) is another check.
    A failure draws the graph with the order of the calls and the node that ran too early.
    `walk` is the graph the calls were recorded on (`sibling_calls`' by default).
    """
    walk = walk or SIBLING_WALK
    calls = field(result, "calls", list)
    with graph_on_failure(walk.shape, result, leaves, calls=calls):
        last = {name: position for position, name in enumerate(calls)}
        for node in walk.internal:
            if node not in last:
                fail("not-called", node=node, inputs=inputs)
        for node, consumers in walk.consumers.items():
            for consumer in consumers:
                if last[node] < last[consumer]:
                    fail("order-violation", node=node, consumer=consumer, inputs=inputs)

def expect_hashable_nodes(result: dict, inputs: dict,
                          quantity: str = "len({a, b, a + b, a * b})", size: int = 4) -> None:
    """The verdict on `hash_nodes`: not run if its nodes could not be built for another
    reason; failed if hashing raised; otherwise the nodes must stay `size` set members."""
    hashable = field(result, "hashable", (bool, type(None)))
    if hashable is None:
        raise NotRun("not-built", what="a + b, a * b", error=field(result, "error", str))
    if not hashable:
        fail("not-hashable", type="TypeError", message=field(result, "error", str))
    expect_equal(field(result, "set_size", int), size, quantity=quantity, inputs=inputs)

def expect_each_called_once(result: Any, leaves: dict[str, float], inputs: dict,
                            shape: GraphShape = SIBLING_SHAPE) -> None:
    """Fail if any node's _backward ran more than once; a failure draws the graph (`shape`)
    with the order of the calls."""
    calls = field(result, "calls", list)
    with graph_on_failure(shape, result, leaves, calls=calls):
        for node in dict.fromkeys(calls):
            if calls.count(node) > 1:
                fail("called-more-than-once", node=node, count=calls.count(node),
                     inputs=inputs)


def expect_built_node(result: dict, op: str, x: float, y: float) -> None:
    """The verdict on `build_node`: data, both parents, and gradients still at 0 (the labels
    are `expect_op_labels`'s, a check of their own: a label never gates behaviour)."""
    shown = {"a": x, "b": y}
    combined = x + y if op == "+" else x * y
    expect_results_close(result, {"data": combined}, inputs=shown, source="literal")
    parents = field(result, "parents", (list, type(None)))
    if parents is not None:  # no `_prev` at all: `expect_parents_in_prev`'s, a check of its own
        expect_equal(parents, ["a", "b"], quantity=f"(a {op} b)._prev", inputs=shown)
        expect_equal(field(result, "leaf_parents", int), 0, quantity="len(a._prev)",
                     inputs=shown)
    expect_equal(field(result, "grads", list), [0.0, 0.0, 0.0],
                 quantity=said("quantity-before-call", code=f"[a.grad, b.grad, (a {op} b).grad]",
                                     call="backward()"), inputs=shown)


# How `keyword_constructor` calls the constructor, by the keyword it gives.
KEYWORD_CALLS = {"_children": "Value({data}, _children=(a, b))",
                 "_op": "Value({data}, (a, b), _op='+')"}


def expect_keyword_node(result: dict[str, Any], x: float, y: float, keyword: str) -> None:
    """Fail when the constructor given `keyword` by name (KEYWORD_CALLS) does not hold x + y
    with a gradient of 0 (raising is the check's exception, told as such)."""
    data, grad = field(result, "data", float), field(result, "grad", float)
    if not math.isclose(data, x + y, rel_tol=1e-9) or grad != 0.0:
        fail("keyword-node-wrong", call=KEYWORD_CALLS[keyword].format(data=x + y), data=data,
             grad=grad)


def expect_parents_in_prev(results: dict[str, Any], inputs: dict) -> None:
    """Fail when a node `build_node` built has no `_prev` (its parents kept under another
    name): the contract's name, judged apart from every number, so that it costs this check
    alone."""
    for op, result in results.items():
        if field(result, "parents", (list, type(None))) is None:
            fail("prev-missing", expression=f"a {op} b", inputs=inputs)


def expect_op_labels(labels: dict, leaf_label: str | None, inputs: dict,
                     types: dict[str, str | None] | None = None) -> None:
    """Each operation's node carries a label that names it (any non-empty text: '*', '×' and
    'mul' all do), + and * are told apart, and a leaf's label is empty. A label that is None
    is an `_op` the node does not have, or one that is not text: `types` (the type name of each
    `_op` by expression, 'a' for the leaf, None when there is no `_op`) tells which."""
    types = types or {}
    written = {**{f"a {op} b": label for op, label in labels.items()}, "a": leaf_label}
    for expression, label in written.items():
        kind = types.get(expression)
        if label is None and kind not in (None, "str"):
            fail("op-label-not-text", expression=expression, actual_type=kind, inputs=inputs)
        if label is None:
            fail("op-label-missing", expression=expression, inputs=inputs)
    for op, label in labels.items():
        if not label.strip():
            fail("op-label-empty", expression=f"a {op} b", inputs=inputs)
    if labels["+"] == labels["*"]:
        fail("op-labels-equal", actual=labels["+"], inputs=inputs)
    expect_equal(leaf_label, "", quantity="a._op", inputs=inputs)


# The finding of a backward() that never walks the graph: it changes no gradient, it seeds the
# output and calls no _backward, or it never returns. Named as such, not as the first pitfall
# whose check it happens to fail.
NO_WALK = "backward-does-nothing"


def run_backward(sandboxed: Any, scen: Any, **params: Any) -> Any:
    """`sandboxed(scen, **params)` for a scenario whose only long step is one `backward()` on a
    graph of three nodes: a timeout there is a `backward()` that never returns."""
    try:
        return sandboxed(scen, **params)
    except CheckFailed as exc:
        if exc.detail["kind"] != "timeout":
            raise
        raise CheckFailed("backward-never-returns", exc.output, pitfall=NO_WALK,
                          **exc.detail["params"]) from None


def expect_a_walk(result: dict, inputs: dict) -> None:
    """Fail, naming the defect, when `backward()` ran no `_backward` of the graph and no
    gradient reached the leaves: it changed nothing, or it seeded the output and stopped."""
    seen = field(result, "seen", list)
    nodes = result.get("nodes")
    nodes = nodes if isinstance(nodes, dict) else {}
    leaf_grads = [facts[1] for name, facts in nodes.items()
                  if name != "out" and isinstance(facts, list) and len(facts) == 2]
    leaf_grads += [result[key] for key in ("a.grad", "b.grad") if key in result]
    if seen or any(grad != 0.0 for grad in leaf_grads):
        return
    out_grad = field(result, "out.grad", float)
    raise CheckFailed("backward-changes-nothing" if out_grad == 0.0 else "backward-walks-nothing",
                      pitfall=NO_WALK, inputs=inputs, actual=out_grad)


def expect_seeded(result: dict, leaves: dict[str, float], inputs: dict) -> None:
    """The verdict on `seed`: out.grad is 1 after backward(), and already was when the output's
    own `_backward` ran (a seed set after the walk leaves every other gradient at 0)."""
    expect_a_walk(result, inputs)
    expect_gradients(result, {"out.grad": 1.0}, shape=one_op_shape("*"), leaves=leaves,
                     inputs=inputs, source="literal")
    seen = field(result, "seen", list)
    if seen:  # a seed set after the walk: the drawing shows the gradients it never passed on
        with graph_on_failure(one_op_shape("*"), result, leaves):
            expect_close(field({"seen": seen[0]}, "seen", float), 1.0,
                         quantity=said("quantity-when-runs", code="out.grad", call="out._backward"),
                         inputs=inputs, source="literal")


# The graph of `second_backward`'s second pass: z = y*d, with y = (a*b)*c walked once before.
SECOND_BACKWARD_GRAPH = "y = (a*b)*c; y.backward(); every grad set to 0; z = y*d; z.backward()"
SECOND_BACKWARD_SHAPE = GraphShape(
    nodes=(("a", ""), ("b", ""), ("c", ""), ("d", ""), ("a*b", "*"), ("y", "*"), ("z", "*")),
    edges=(("a", "a*b"), ("b", "a*b"), ("a*b", "y"), ("c", "y"), ("y", "z"), ("d", "z")),
    output="z")
# The graph of `ladder_calls`: x0 = a; x[k+1] = x[k]*c + x[k]*d; the output is x[depth].
LADDER_GRAPH = "x0 = a; x[k+1] = x[k]*c + x[k]*d; out = x[depth]"


def _ladder_names(k: int) -> tuple[str, str, str]:
    """`ladder_calls`' names of level k (1, 2, ...): x[k-1]*c, x[k-1]*d and x[k]."""
    return f"p{k}", f"q{k}", f"x{k}"


def ladder_shape(depth: int, names: Callable[[int], tuple[str, str, str]] = _ladder_names
                 ) -> GraphShape:
    """The drawing of `ladder_calls` with `depth` levels (`names`: the names of the products
    and the sum of level k, from 1; lab03's ladder names them otherwise)."""
    nodes: list[tuple[str, str]] = [("a", ""), ("c", ""), ("d", "")]
    edges: list[tuple[str, str]] = []
    below = "a"
    for k in range(1, depth + 1):
        p, q, x = names(k)
        nodes += [(p, "*"), (q, "*"), (x, "+")]
        edges += [(below, p), ("c", p), (below, q), ("d", q), (p, x), (q, x)]
        below = x
    return GraphShape(nodes=tuple(nodes), edges=tuple(edges), output=below)


# The graph of `repeated_parent_calls`: x is both operands of the sum.
REPEATED_PARENT_GRAPH = "x = a*b; out = (x + x) * c"
REPEATED_PARENT_SHAPE = GraphShape(
    nodes=(("a", ""), ("b", ""), ("c", ""), ("x", "*"), ("x + x", "+"), ("out", "*")),
    edges=(("a", "x"), ("b", "x"), ("x", "x + x"), ("x", "x + x"), ("x + x", "out"),
           ("c", "out")),
    output="out")
