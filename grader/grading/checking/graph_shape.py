"""The graph a check knows the shape of (`GraphShape`), as `detail["graph"]` (format: the score schema).

Side: trusted process. A check knows the shape of the graph its scenario builds; the scenario
reports the `[data, grad]` the student's engine left on each named node (`node_facts`); the
expected numbers come from evaluating the shape here, with the same leaf values. A failure
raised inside `graph_on_failure` carries the graph, and the renderers draw it from the stored
document, so `python -m grader render` can redraw any of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from grader.grading.checking.verdict import CheckFailed, close, expect_results_close
from grader.grading.child.graph import OPERATIONS
from grader.results.score_schema import GRAPH_CAPS

# Failures about the graph's numbers or its traversal: the ones a drawing explains.
GRAPH_KINDS = frozenset({"mismatch", "order-violation", "called-more-than-once", "not-called"})
# The operation (a row of OPERATIONS) a drawn '+' or '*' stands for.
LABELLED = {"+": "add", "*": "mul"}


@dataclass(frozen=True)
class GraphShape:
    """The graph a scenario builds: nodes (name, op) in the order they are built, leaves with
    op '', and one edge (parent, child) per use of a parent, in operand order. `operations`
    names the row of OPERATIONS (and the plain number) of each node whose drawn op is not '+'
    or '*' (lab02's `exp`, `**3`, `2-`, ...)."""

    nodes: tuple[tuple[str, str], ...]
    edges: tuple[tuple[str, str], ...]
    output: str
    operations: tuple[tuple[str, str, float | None], ...] = ()

    @property
    def names(self) -> frozenset[str]:
        """The names of the nodes."""
        return frozenset(name for name, _op in self.nodes)

    def evaluate(self, leaves: Mapping[str, float]) -> dict[str, tuple[float, float]]:
        """(data, grad) of every node by reverse mode on the shape itself, with the operation
        table's values and local derivatives, seeded at the output: what a correct engine
        leaves on the graph."""
        parents: dict[str, list[str]] = {name: [] for name, _op in self.nodes}
        for parent, child in self.edges:
            parents[child].append(parent)
        rows = {name: (operation, k) for name, operation, k in self.operations}
        data: dict[str, float] = {}
        operands: dict[str, tuple[float, float | None, float | None]] = {}
        for name, op in self.nodes:
            if not op:
                data[name] = leaves[name]
                continue
            operation, k = rows.get(name, (LABELLED.get(op, ""), None))
            values = [data[p] for p in parents[name]]
            operands[name] = (values[0], values[1] if len(values) > 1 else None, k)
            data[name] = OPERATIONS[operation].forward(*operands[name])
        grad = {name: 0.0 for name, _op in self.nodes}
        grad[self.output] = 1.0
        for name, op in reversed(self.nodes):
            if not op:
                continue
            operation, _k = rows.get(name, (LABELLED.get(op, ""), None))
            locals_ = OPERATIONS[operation].partials(*operands[name])
            for parent, local in zip(parents[name], locals_, strict=False):
                grad[parent] += local * grad[name]
        return {name: (data[name], grad[name]) for name, _op in self.nodes}


def _student_pair(facts: Any, name: str) -> tuple[float | None, float | None]:
    """(data, grad) the sandbox reported for a node: plain floats or None, never assumed."""
    pair = facts.get(name) if isinstance(facts, dict) else None
    if not (isinstance(pair, list) and len(pair) == 2):
        return None, None
    data, grad = (value if type(value) is float and math.isfinite(value) else None
                  for value in pair)
    return data, grad


def graph_detail(shape: GraphShape, result: Any, leaves: Mapping[str, float], *,
                 calls: Sequence[Any] | None = None, marked: frozenset[str] = frozenset()
                 ) -> dict[str, Any]:
    """`detail["graph"]`: the shape with the student's numbers (result["nodes"]) and the
    expected gradients; a node is wrong when its gradient is not the expected one, or when
    the check marked it (a node whose `_backward` ran out of order)."""
    facts = result.get("nodes") if isinstance(result, dict) else None
    expected = shape.evaluate(leaves)
    nodes = []
    for name, op in shape.nodes:
        data, grad = _student_pair(facts, name)
        expected_grad = expected[name][1]
        wrong = name in marked or (grad is not None and not close(grad, expected_grad))
        nodes.append({"name": name, "op": op, "data": data, "grad": grad,
                      "expected_grad": expected_grad, "wrong": wrong})
    graph: dict[str, Any] = {
        "nodes": nodes,
        "edges": [{"from": parent, "to": child} for parent, child in shape.edges],
        "output": shape.output,
    }
    if calls is not None:
        graph["calls"] = [name for name in calls
                          if isinstance(name, str) and name in shape.names][:GRAPH_CAPS.calls]
    return graph


@contextmanager
def graph_on_failure(shape: GraphShape, result: Any, leaves: Mapping[str, float], *,
                     calls: Sequence[Any] | None = None,
                     quantity_nodes: Mapping[str, str] | None = None) -> Iterator[None]:
    """Attach the drawn graph to a CheckFailed about the graph raised inside the block; the
    node a failure names (`params.node`, or the node `quantity_nodes` gives for the failure's
    `params.quantity`, such as lab02's `data`) is marked wrong."""
    try:
        yield
    except CheckFailed as exc:
        if exc.detail["kind"] in GRAPH_KINDS:
            params: Any = exc.detail["params"]
            named = params.get("node")
            quantity = params.get("quantity")
            if named is None and quantity_nodes and isinstance(quantity, str):
                named = quantity_nodes.get(quantity)
            marked = frozenset({named}) & shape.names if isinstance(named, str) else frozenset()
            exc.detail["graph"] = graph_detail(shape, result, leaves, calls=calls, marked=marked)
        raise


def expect_graph_results(result: Any, expected: Mapping[str, Any], *, shape: GraphShape,
                         leaves: Mapping[str, float], inputs: dict[str, Any], source: str,
                         quantity_nodes: Mapping[str, str] | None = None) -> None:
    """expect_results_close on the numbers of `expected` (a reference run's own `nodes` facts
    aside); a failure carries the graph of `shape` with the student's numbers and the expected
    ones."""
    wanted = {quantity: value for quantity, value in expected.items() if quantity != "nodes"}
    with graph_on_failure(shape, result, leaves, quantity_nodes=quantity_nodes):
        expect_results_close(result, wanted, inputs=inputs, source=source)
