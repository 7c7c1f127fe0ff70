"""The schema of every scenario's reply: what each lab's scenarios may send back, and its caps.

Side: trusted process. `Sandbox.run` (and the debug runner) checks a scenario's reply against
its schema here before any verdict reads it (`sandbox.checked_reply`): a reply of another
shape (an empty list where an int belongs, 164,000 recorded calls padded through a closure, a
trace row of the wrong length) is a protocol breach on that check, never the grader's error.
A scenario with no schema here (one a test defines) gets PLAIN: any plain data, within the
caps of a generous but bounded shape.

Caps are generous where the student's code decides a length honestly (a network with too many
parameters, a gradient list of the wrong length: the verdicts judge those and say so), and
tight where only tampering exceeds them (a recorder keeps at most RECORD_CAP entries).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grader.grading.child import scenario as scenario_module
from grader.grading.child.graph import COUNTED_CAP, RECORD_CAP
from grader.grading.child.scenarios import lab01_graph, lab02_ops, lab03_backprop, lab04_xor
from grader.grading.sandbox.schema import (
    Bool,
    Int,
    ListOf,
    MapOf,
    Num,
    Obj,
    OneOf,
    ReplySchema,
    Row,
    Schema,
    Str,
)
from grader.grading.sandbox.schema import (
    mismatch as schema_mismatch,
)

COUNT = Int(0, 2 ** 53)  # a count the student's code makes (len of its _prev, of its parameters)
MANY = 100_000  # numbers a student's code may honestly return in one list (losses, parameters)
NUMBERS = ListOf(Num(), MANY)
NAME = Str(64)  # a node's name in a scenario, or the '?' parents_of gives a stranger
LABEL = Str(nullable=True)  # label_of: the node's _op, or None
TYPE_NAME = Str()  # type(x).__name__ of a student's object
PARENTS = ListOf(NAME, MANY)  # parents_of: one name per entry of the node's _prev
CALLS = ListOf(NAME, RECORD_CAP)
SEEN = ListOf(Num(), RECORD_CAP)
# node_facts: [data, grad] of each named node, None where not a plain finite number
NODES = MapOf(Row(Num(nullable=True), Num(nullable=True)), 256)
ERROR_TEXT = Str()


def grads(*names: str, **more: Schema) -> Obj:
    """An object of `<name>.grad` numbers for each name, and the other keys given."""
    return Obj({**{f"{name}.grad": Num() for name in names}, **more})


def _size(graph: Mapping[str, Any]) -> int:
    return len(graph.get("leaves") or []) + len(graph.get("nodes") or [])


def expressions(params: Mapping[str, Any]) -> Schema:
    """run_expressions: one entry per graph given, data and grad one per node of it (indices
    of the recorded calls below its size), or the error the student's code raised."""
    entries = []
    for graph in params.get("graphs") or []:
        size = _size(graph)
        values = ListOf(Num(nullable=True), size, size)
        entries.append(OneOf(
            Obj({"data": values, "grad": values},
                {"calls": ListOf(Int(0, max(size - 1, 0)), RECORD_CAP)}),
            Obj({"error": ERROR_TEXT, "stage": Str(16)})))
    return Obj({"results": Row(*entries)})


def ladder_nodes(params: Mapping[str, Any]) -> Schema:
    """ladder_calls: the calls and facts of a ladder of `depth` rungs (three nodes a rung)."""
    depth = int(params.get("depth") or 0)
    return Obj({"calls": CALLS,
                "nodes": MapOf(Row(Num(nullable=True), Num(nullable=True)), 3 + 3 * depth)})


def sibling_ladder(params: Mapping[str, Any]) -> Schema:
    """lab03's ladder: how often, and last when, each of its 3 x depth nodes' _backward ran."""
    names = 3 * int(params.get("depth") or 0)
    return Obj({"counts": MapOf(Int(1, COUNTED_CAP), names),
                "last": MapOf(Int(0, COUNTED_CAP - 1), names)})


def exactly(key: str, item: Schema, default: int = 0) -> Any:
    """A list as long as the parameter `key` (a list) of the scenario, `default` long when the
    scenario is run without it."""
    def schema(params: Mapping[str, Any]) -> Schema:
        count = len(params[key] or ()) if key in params else default
        return ListOf(item, count, count)
    return schema


def with_lists(required: Mapping[str, Any], optional: Mapping[str, Any] | None = None) -> Any:
    """An Obj some of whose items depend on the parameters (callables of them)."""
    def schema(params: Mapping[str, Any]) -> Schema:
        def made(items: Mapping[str, Any]) -> dict[str, Schema]:
            return {key: item if isinstance(item, Schema) else item(params)
                    for key, item in items.items()}
        return Obj(made(required), made(optional or {}))
    return schema


LAB01: dict[scenario_module.Scenario, ReplySchema] = {
    lab01_graph.hash_nodes: OneOf(
        Obj({"hashable": Bool(nullable=True), "stage": Str(16), "error": ERROR_TEXT}),
        Obj({"hashable": Bool(), "set_size": Int(0, 16)})),
    lab01_graph.leaf_backward: Obj({"callable": Bool(), "grad_before": Num(),
                                    "grad_after": Num()}),
    lab01_graph.build_node: Obj({"data": Num(), "parents": PARENTS, "op": LABEL,
                                 "leaf_op": LABEL, "leaf_parents": COUNT,
                                 "grads": Row(Num(), Num(), Num())}),
    lab01_graph.direct_backward: Obj({"a.grad": Num()}, {"b.grad": Num()}),
    lab01_graph.seed: Obj({"out.grad": Num(), "nodes": NODES, "seen": SEEN}),
    lab01_graph.one_op: grads("a", "b", nodes=NODES),
    lab01_graph.sibling_calls: Obj({"calls": CALLS, "nodes": NODES}),
    lab01_graph.two_ops: grads("a", "b", "c", nodes=NODES),
    lab01_graph.diamond: grads("a", "b", nodes=NODES),
    lab01_graph.self_op: grads("a", nodes=NODES),
    lab01_graph.shared_intermediate: grads("x", "a", "b", nodes=NODES),
    lab01_graph.equal_data_leaves: grads("a", "b", parents=PARENTS, nodes=NODES),
    lab01_graph.equal_data_nodes: Obj({**{name: Num() for name in "abcde"}, "nodes": NODES}),
    lab01_graph.number_operand: grads("a", data=Num()),
    lab01_graph.course_graph: Obj({"out.data": Num(), "ab.data": Num(), "out._op": LABEL,
                                   "ab._op": LABEL, "out._prev": PARENTS, "ab._prev": PARENTS}),
    lab01_graph.random_graphs: expressions,
    lab01_graph.mixed_depth_calls: Obj({"calls": CALLS, "nodes": NODES}),
    lab01_graph.leaf_output_seed: grads("a"),
    lab01_graph.ladder_calls: ladder_nodes,
    lab01_graph.repeated_parent_calls: Obj({"calls": CALLS, "nodes": NODES}),
    lab01_graph.second_backward: grads("a", "b", "c", "d", "a*b", nodes=NODES),
}

LAB02: dict[scenario_module.Scenario, ReplySchema] = {
    lab02_ops.apply_op: Obj({"data": Num()}, {"reaches": ListOf(Str(1), 2), "a.grad": Num(),
                                             "b.grad": Num()}),
    lab02_ops.pow_value_exponent: OneOf(
        Obj({"raised": Bool(), "accepted": Bool(), "type": TYPE_NAME, "message": ERROR_TEXT}),
        Obj({"raised": Bool(), "returned": TYPE_NAME})),
    lab02_ops.random_graphs: expressions,
}

GRADS_OR_ERROR = OneOf(Obj({"grads": grads("a", "b", "c", "p", "q"),
                            "zeroed": grads("a", "b", "c", "p", "q")}),
                       Obj({"error": ERROR_TEXT}))

LAB03: dict[scenario_module.Scenario, ReplySchema] = {
    lab03_backprop.seed: grads("out", "a", "b", seen=SEEN),
    lab03_backprop.equal_data: Obj({"distinct": GRADS_OR_ERROR, "equal": GRADS_OR_ERROR}),
    lab03_backprop.expression_tree: grads("a", "b", "c", "d"),
    lab03_backprop.sibling_ladder: sibling_ladder,
    lab03_backprop.wide_shared_graph: grads("a", "c", "d"),
    lab03_backprop.wide_shared_zero_grad: Obj({"not_reset": COUNT}),
    lab03_backprop.backward_twice: grads("a", "b", "out", walks=Row(Int(0, RECORD_CAP),
                                                                     Int(0, RECORD_CAP))),
    lab03_backprop.zero_grad_graph: grads("a", "b", "c", "p", "q", "r", "out"),
    lab03_backprop.zero_grad_then_backward: grads("a", "b", "c", "p"),
    lab03_backprop.deep_chain: grads("out", "a", "b"),
    lab03_backprop.deep_chain_zero_grad: Obj({"not_reset": COUNT, "first": Int(-1, 2 ** 53)}),
    lab03_backprop.cycle: OneOf(
        Obj({"raised": Bool(), "clear_type": Bool(), "type": TYPE_NAME, "message": ERROR_TEXT}),
        Obj({"raised": Bool()})),
    lab03_backprop.numerical: with_lists({"grads": NUMBERS, "data": exactly("point", Num())}),
    lab03_backprop.check_grad_verdict: Obj({"first": Bool(), "second": Bool()}),
    lab03_backprop.random_graphs: expressions,
    lab03_backprop.chain_timings: with_lists({"seconds": exactly("sizes", Num())}),
    lab03_backprop.second_backward: grads("a", "b", "c", "d", "y"),
}

XOR_OUTPUTS = ListOf(Num(), 4, 4)
TRACE_ROWS = 10 * RECORD_CAP

LAB04: dict[scenario_module.Scenario, ReplySchema] = {
    lab04_xor.module_forward: Obj({"count": COUNT, "distinct": COUNT},
                                  {"not_value": TYPE_NAME, "params": NUMBERS, "shape": Str(),
                                   "outputs": NUMBERS}),
    lab04_xor.seeded_parameters: Obj({"params": NUMBERS}),
    lab04_xor.zero_grad_module: with_lists({"grads": exactly("grads", Num())}),
    lab04_xor.neuron_output: Obj({"type": TYPE_NAME}, {"out": Num()}),
    lab04_xor.parameters_identity: with_lists({"modules": exactly("kinds", Obj(
        {"module": Str(32), "total": COUNT, "second": COUNT, "same": COUNT}), default=3)}),
    lab04_xor.parameters_reach_model: Obj({"total": COUNT, "in_graph": COUNT, "before": Num(),
                                           "after": Num()}),
    lab04_xor.zero_grad_resets: Obj({"nonzero_before": COUNT, "grads": NUMBERS}),
    lab04_xor.gradients_and_differences: Obj({"grads": NUMBERS, "plus": NUMBERS,
                                              "minus": NUMBERS}),
    lab04_xor.neuron_gradients: Obj({"out": Num(), "grads": NUMBERS}),
    lab04_xor.train_and_evaluate: Obj({"type": TYPE_NAME, "before": XOR_OUTPUTS,
                                       "after": XOR_OUTPUTS}, {"losses": NUMBERS}),
    lab04_xor.train_trace: Obj({
        "parameters": COUNT, "passes": COUNT,
        "changed": ListOf(Row(Int(1, 2 ** 53), Int(0, MANY), Num(), Num()), 20),
        "updates": ListOf(Row(Int(0, 2 ** 53), Int(0, MANY), Num(), Num(), Num(), Num()),
                          TRACE_ROWS)}),
    lab04_xor.random_networks: with_lists({"results": exactly("networks", OneOf(
        Obj({"count": COUNT}),
        Obj({"count": COUNT, "loss": Num(nullable=True),
             "grads": ListOf(Num(nullable=True), MANY),
             "input_grads": ListOf(Num(nullable=True), MANY)})))}),
}

SCHEMAS: dict[scenario_module.Scenario, ReplySchema] = {**LAB01, **LAB02, **LAB03, **LAB04}

# Any plain data, bounded: the schema of a scenario this table does not know (tests' own).
_SCALAR = OneOf(Num(nullable=True), Bool(), Str())
_KEY = 4096
_INNER = OneOf(_SCALAR, ListOf(_SCALAR, 1000), MapOf(_SCALAR, 1000, _KEY))
_MIDDLE = OneOf(_INNER, ListOf(_INNER, 1000), MapOf(_INNER, 1000, _KEY))
PLAIN = OneOf(_MIDDLE, ListOf(_MIDDLE, 1000), MapOf(_MIDDLE, 1000, _KEY))


def schema_of(scen: scenario_module.Scenario) -> ReplySchema:
    """The schema of a scenario's reply (PLAIN for one no lab defines)."""
    return SCHEMAS.get(scen, PLAIN)


def mismatch(scen: scenario_module.Scenario, value: Any, params: Mapping[str, Any]) -> str | None:
    """Where a reply departs from its scenario's schema (in the schema's words), or None."""
    return schema_mismatch(value, schema_of(scen), params)
