"""Lab 01 verdicts: what the lab01 checks expect of the graphs the scenarios build.

Side: trusted process. Nothing here runs student code: these functions read the plain data a
scenario of `grader.child.scenarios.lab01_graph` returned and raise CheckFailed or NotRun.
"""

from __future__ import annotations

from grader.checking.verdict import (
    NotRun,
    expect_equal,
    fail,
    field,
)

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
