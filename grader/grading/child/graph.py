"""Helpers scenarios use to read a student's graph as plain data (stdlib only).

Side: sandbox child (and the trusted process's reference runs, with the same source).

This module's source is executed inside the sandbox child as well as imported by the trusted
process for reference runs, so it must not import anything outside the standard library.
"""

import gc
import math
import operator
from typing import Any


class WrongType(Exception):
    """A value read from the student's graph has a type the contract does not allow."""

    def __init__(self, quantity: str, actual_type: str, expected_type: str = "float") -> None:
        super().__init__(f"{quantity} is a {actual_type}, not a {expected_type}")
        self.quantity = quantity
        self.actual_type = actual_type
        self.expected_type = expected_type


def number(value: Any, quantity: str) -> float:
    """Return value as a float if it is exactly an int or a float (not bool, not a subclass)."""
    if type(value) is float or type(value) is int:
        return float(value)
    raise WrongType(quantity, type(value).__name__)


def text(value: Any, quantity: str) -> str:
    """Return value if it is exactly a str."""
    if type(value) is str:
        return value
    raise WrongType(quantity, type(value).__name__, "str")


def grad_of(node: Any, name: str) -> float:
    """The node's .grad as a float."""
    return number(node.grad, name + ".grad")


def data_of(node: Any, name: str) -> float:
    """The node's .data as a float."""
    return number(node.data, name + ".data")


def parents_of(node: Any, named: dict[str, Any]) -> list[str]:
    """Names of node's parents (by identity) among `named`; '?' for a parent not in `named`."""
    names = []
    for parent in list(node._prev):
        found = [name for name, candidate in named.items() if candidate is parent]
        names.append(found[0] if found else "?")
    return sorted(names)


def parents_or_none(node: Any, named: dict[str, Any]) -> Any:
    """parents_of(node, named), or None when the node has no `_prev` at all: an engine that keeps
    its parents under another name (`_children`, `prevs`) costs the check of that name alone,
    never a check of its numbers."""
    if not hasattr(node, "_prev"):  # a property that raises another error is the student's
        return None
    return parents_of(node, named)


# The most entries a recorder keeps (calls past it still run, unrecorded): an engine that walks
# a graph along every path calls a node's _backward far more often than this on the labs'
# graphs, and the trusted side refuses a reply holding more (a recorder reached through a
# closure and padded), so what a verdict reads stays bounded.
RECORD_CAP = 1000
# The cap of a recorder whose calls the scenario itself reduces to counts (lab03's ladder, where a
# walk along every path makes thousands of calls): only the counts cross the boundary.
COUNTED_CAP = 1_000_000


def record_calls(named: dict[str, Any], cap: int = RECORD_CAP) -> list[str]:
    """Wrap each node's _backward so that every call appends the node's name to the returned list
    (the first `cap` calls)."""
    calls: list[str] = []

    def wrap(name: str, original: Any) -> Any:
        def recording_backward() -> Any:
            if len(calls) < cap:
                calls.append(name)
            return original() if callable(original) else None

        return recording_backward

    for name, node in named.items():
        node._backward = wrap(name, node._backward)
    return calls


def node_facts(named: dict[str, Any]) -> dict[str, list]:
    """[data, grad] of each named node, for the feedback's drawing of the graph.

    Never fails a scenario: a value that is not a finite plain number (or that raises when
    read) is None. Checks judge the numbers they need with grad_of and data_of.
    """

    def plain(node: Any, attribute: str) -> Any:
        try:
            value = getattr(node, attribute)
            if type(value) is float or type(value) is int:
                value = float(value)
                return value if value - value == 0 else None  # inf - inf and nan are nan
        except Exception:  # a property that raises, an int too large for a float
            pass
        return None

    return {name: [plain(node, "data"), plain(node, "grad")] for name, node in named.items()}



# -- the operations: one vocabulary for the scenarios, the expression builder and the reference --


class Operation:
    """One operation of the engine: how it is written, built, computed on floats, differentiated.

    `code` is the expression with {a} and {b} for the Values and {k} for the plain number;
    `build(a, b, k)` applies it to the student's Values (or to floats: the same Python);
    `forward(a, b, k)` is its value on floats; `partials(a, b, k)` is (d/da, d/db) there; `label`
    names its node in a drawn graph.
    """

    __slots__ = ("name", "code", "label", "build", "forward", "partials", "binary", "number")

    def __init__(self, name, code, label, build, partials, forward=None):
        self.name, self.code, self.label = name, code, label
        self.build, self.partials = build, partials
        self.forward = forward or build  # Python's operators compute floats as they do Values
        self.binary, self.number = "{b}" in code, "{k}" in code


def sigmoid(x: float) -> float:
    """The logistic function on a float, finite for every finite x (e**-x overflows below
    about -709: there it is written e**x / (1 + e**x))."""
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


# name, written, drawn label, built with Values, local derivatives (d/da, d/db)[, on floats]
OPERATIONS = {row[0]: Operation(*row) for row in (
    ("add", "{a} + {b}", "+", lambda a, b, k: a + b, lambda a, b, k: (1.0, 1.0)),
    ("mul", "{a} * {b}", "*", lambda a, b, k: a * b, lambda a, b, k: (b, a)),
    ("sub", "{a} - {b}", "-", lambda a, b, k: a - b, lambda a, b, k: (1.0, -1.0)),
    ("truediv", "{a} / {b}", "/", lambda a, b, k: a / b, lambda a, b, k: (1 / b, -a / b ** 2)),
    ("add-number-on-right", "{a} + {k}", "+{k}", lambda a, b, k: a + k,
     lambda a, b, k: (1.0, 0.0)),
    ("add-number-on-left", "{k} + {a}", "{k}+", lambda a, b, k: k + a,
     lambda a, b, k: (1.0, 0.0)),
    ("mul-number-on-right", "{a} * {k}", "*{k}", lambda a, b, k: a * k,
     lambda a, b, k: (k, 0.0)),
    ("mul-number-on-left", "{k} * {a}", "{k}*", lambda a, b, k: k * a,
     lambda a, b, k: (k, 0.0)),
    ("sub-number-on-right", "{a} - {k}", "-{k}", lambda a, b, k: a - k,
     lambda a, b, k: (1.0, 0.0)),
    ("sub-number-on-left", "{k} - {a}", "{k}-", lambda a, b, k: k - a,
     lambda a, b, k: (-1.0, 0.0)),
    ("truediv-number-on-right", "{a} / {k}", "/{k}", lambda a, b, k: a / k,
     lambda a, b, k: (1 / k, 0.0)),
    ("truediv-number-on-left", "{k} / {a}", "{k}/", lambda a, b, k: k / a,
     lambda a, b, k: (-k / a ** 2, 0.0)),
    ("neg", "-{a}", "neg", lambda a, b, k: -a, lambda a, b, k: (-1.0, 0.0)),
    ("pow", "{a} ** {k}", "**{k}", lambda a, b, k: a ** k,
     lambda a, b, k: (k * a ** (k - 1), 0.0)),
    ("exp", "{a}.exp()", "exp", lambda a, b, k: a.exp(), lambda a, b, k: (math.exp(a), 0.0),
     lambda a, b, k: math.exp(a)),
    ("log", "{a}.log()", "log", lambda a, b, k: a.log(), lambda a, b, k: (1 / a, 0.0),
     lambda a, b, k: math.log(a)),
    ("tanh", "{a}.tanh()", "tanh", lambda a, b, k: a.tanh(),
     lambda a, b, k: (1 - math.tanh(a) ** 2, 0.0), lambda a, b, k: math.tanh(a)),
    ("relu", "{a}.relu()", "relu", lambda a, b, k: a.relu(),
     lambda a, b, k: (1.0 if a > 0 else 0.0, 0.0), lambda a, b, k: max(a, 0.0)),
    ("sigmoid", "{a}.sigmoid()", "sigmoid", lambda a, b, k: a.sigmoid(),
     lambda a, b, k: (sigmoid(a) * (1 - sigmoid(a)), 0.0), lambda a, b, k: sigmoid(a)),
)}


def build_expression(Value, graph: dict) -> list:
    """Build a drawn expression graph with `Value`: its values, leaves first, output last.

    `graph` is plain data: {"leaves": [floats], "nodes": [[op, i, j, k]]}, where op names one
    of OPERATIONS, i and j index earlier values and k is a plain number.
    """
    values = [Value(v) for v in graph["leaves"]]
    for op, i, j, k in graph["nodes"]:
        values.append(OPERATIONS[op].build(values[i], values[j] if j is not None else None, k))
    return values


def finite_or_none(value: Any, quantity: str) -> Any:
    """number(value), or None when it is not finite (NaN and infinities cannot be sent)."""
    result = number(value, quantity)
    return result if result - result == 0.0 else None


def run_expressions(Value, graphs: list, record: bool = False, passes: int = 1) -> list:
    """Build each graph, call backward() on its output (`passes` times, no reset between: a
    second call adds again), and read every node's data and grad.

    One entry per graph: {"data": [...], "grad": [...]} (None for a number that is not
    finite), plus "calls" (the order of the `_backward` calls, by node index) when `record`;
    or {"error": ..., "stage": "build" | "backward"} when the student's code raised.
    Every graph's nodes stay alive until the last graph is read, so no node here takes a dead
    one's address: what an engine keeps between instances (an id()-keyed cache) is the state
    sessions' question (run_sessions), never decided by where the allocator puts a node.
    """
    results: list = []
    alive: list = []
    for graph in graphs:
        stage = "build"
        try:
            values = build_expression(Value, graph)
            alive.append(values)
            data = [finite_or_none(v.data, f"[{k}].data") for k, v in enumerate(values)]
            calls = record_calls({str(k): v for k, v in enumerate(values)}) if record else None
            stage = "backward"
            for _ in range(passes):
                values[-1].backward()
            grads = [finite_or_none(v.grad, f"[{k}].grad") for k, v in enumerate(values)]
        except WrongType:
            raise
        except Exception as exc:
            results.append({"error": f"{type(exc).__name__}: {str(exc)[:200]}", "stage": stage})
            continue
        entry = {"data": data, "grad": grads}
        if calls is not None:
            entry["calls"] = [int(name) for name in calls]
        results.append(entry)
    return results


def _read_run(values: list, prefix: str) -> dict:
    """The data and grad of every value of a program after its backward()."""
    return {"data": [finite_or_none(v.data, f"{prefix}[{k}].data") for k, v in enumerate(values)],
            "grad": [finite_or_none(v.grad, f"{prefix}[{k}].grad") for k, v in enumerate(values)]}


# `a op= b` as Python runs it (the class's in-place method, else its operator): the written
# form an operation with a Value on its left also has (`_build_node`'s `augmented`).
AUGMENTED = {"add": operator.iadd, "mul": operator.imul, "sub": operator.isub,
             "truediv": operator.itruediv, "pow": operator.ipow}


def augmented_of(op: str) -> Any:
    """The in-place form of an operation whose left operand is the Value (`a + b`, `a * k`),
    or None (`k * a`, `a.exp()`: no `op=` writes them)."""
    return AUGMENTED.get(op.replace("-number-on-right", ""))


def _build_node(Value, values: list, node: list, where: list, found: list,
                augmented: bool = False) -> None:
    """Apply one program node to `values`; note in `found` a result that is one of its
    operands or not a Value (the contract: every operation returns a new Value). With
    `augmented`, a node whose operator gives a new Value is then also written in place
    (`t = a; t += b`): a `t` that is still `a`, or an `a` whose data moved, is noted as
    "operand-in-place" (and `a` given its data back)."""
    op, i, j, k = node
    first, second = values[i], values[j] if j is not None else None
    out = OPERATIONS[op].build(first, second, k)
    if out is first or out is second:
        found.append({"node": len(values), "at": list(where), "returned": "operand"})
    elif not isinstance(out, Value):
        found.append({"node": len(values), "at": list(where), "returned": type(out).__name__})
    elif augmented and (in_place := augmented_of(op)) is not None:  # and its `op=` form
        before = first.data
        kept = in_place(first, second if OPERATIONS[op].binary else k)
        if kept is first or first.data != before:
            found.append({"node": len(values), "at": list(where), "returned": "operand-in-place"})
            first.data = before
    values.append(out)


def _note_moved_results(built: list, results: list, leaves: int, found: list) -> None:
    """Note in `found` ("moved-with-operand") the first node of an earlier program of a
    data-changed session whose data is no longer what was read after its backward(), now that
    its leaves hold the later programs' numbers: an operation's result is fixed when it is
    called."""
    for n, values in enumerate(built[:-1]):
        for k in range(leaves, len(values)):
            now = finite_or_none(values[k].data, f"program {n + 1}: [{k}].data")
            if now != results[n]["data"][k]:
                found.append({"node": k, "at": [n, k - leaves], "returned": "moved-with-operand"})
                return


def run_sessions(Value, sessions: list) -> list:
    """Run programs in the orders the contract allows, one session after another.

    A session is {"programs": [...], "order": "sequential" | "data-changed" | "built-first" |
    "interleaved" | "build-only", "collect": bool}: sequential builds, walks and reads each
    program in turn (and, with `collect`, drops it and runs the garbage collector before the
    next: fresh nodes after others died); data-changed does the same on the first program's
    leaves, given each later program's numbers as their `data` (and `grad` 0.0), the programs
    having as many leaves (once the last is read, the earlier programs' results are read again:
    a node whose data moved with its leaves is noted in "returned" as "moved-with-operand");
    continued does it on the first program's leaves as they are (their data, and the gradients
    earlier programs left there), the programs having the same leaves; built-first builds them
    all before the first backward(); interleaved builds their nodes in turn, one of each;
    build-only builds them and walks none (with "augmented", each node with a Value on its left
    also written in place: `_build_node`). Otherwise each program has fresh leaves, even when
    its numbers repeat another's. One entry per session: "results" (as run_expressions', one per program,
    read right after that program's backward()) and "returned" (operations whose result was an
    operand or not a Value); or {"error", "stage", "program"} when the student's code raised.
    """
    entries: list = []
    for session in sessions:
        programs, order = session["programs"], session["order"]
        results: list = [None] * len(programs)
        returned: list = []
        stage, current = "build", 0
        try:
            built: list = [[] for _ in programs]
            leaves: list = []
            if order in ("sequential", "data-changed", "continued"):
                for n, program in enumerate(programs):
                    current, stage = n, "build"
                    if order == "data-changed" and leaves:  # the same leaves, new data
                        for leaf, v in zip(leaves, program["leaves"], strict=True):
                            leaf.data, leaf.grad = v, 0.0
                    elif not leaves:  # fresh leaves (continued keeps the first program's)
                        leaves = [Value(v) for v in program["leaves"]]
                    values = list(leaves)
                    for m, node in enumerate(program["nodes"]):
                        _build_node(Value, values, node, [n, m], returned)
                    stage = "backward"
                    values[-1].backward()
                    results[n] = _read_run(values, f"program {n + 1}: ")
                    built[n] = values if order != "sequential" else []  # read again later
                    values = []
                    if order == "sequential":
                        leaves = []
                    if session.get("collect"):
                        gc.collect(1)  # the young generations: the dead graph, cheaply
            else:
                for n, program in enumerate(programs):
                    built[n] = [Value(v) for v in program["leaves"]]
                if order == "interleaved":
                    longest = max(len(program["nodes"]) for program in programs)
                    steps = [(n, m) for m in range(longest) for n in range(len(programs))
                             if m < len(programs[n]["nodes"])]
                else:
                    steps = [(n, m) for n, program in enumerate(programs)
                             for m in range(len(program["nodes"]))]
                for n, m in steps:
                    current = n
                    _build_node(Value, built[n], programs[n]["nodes"][m], [n, m], returned,
                                augmented=bool(session.get("augmented")))
                stage = "backward"
                for n, values in enumerate(built if order != "build-only" else []):
                    current = n
                    values[-1].backward()
                    results[n] = _read_run(values, f"program {n + 1}: ")
            if order == "data-changed":  # the leaves moved on: each result holds what it got
                _note_moved_results(built, results, len(leaves), returned)
        except (WrongType, NotImplementedError):  # a wrong type; code not written yet
            raise
        except Exception as exc:
            entries.append({"error": f"{type(exc).__name__}: {str(exc)[:200]}", "stage": stage,
                            "program": current})
            continue
        entries.append({"results": results, "returned": returned})
    return entries


HELPER_NAMES = ("WrongType", "number", "text", "grad_of", "data_of", "parents_of", "parents_or_none",
                "RECORD_CAP", "COUNTED_CAP",
                "record_calls",
                "node_facts", "label_of", "label_type_of", "parents_attribute", "Operation", "sigmoid", "OPERATIONS", "build_expression",
                "finite_or_none", "run_expressions", "_read_run", "_note_moved_results", "AUGMENTED", "augmented_of", "_build_node",
                "run_sessions", "called")


def parents_attribute(node: Any, parents: list) -> Any:
    """The name of the node's attribute that holds its parents: `_prev` when it has one, else
    the attribute whose tuple, list, set or frozenset holds exactly `parents` (by identity:
    `_children`, `prevs`, ...), else None. A check that rewires the graph by hand goes through
    the collection the engine itself walks, whatever its name."""
    if hasattr(node, "_prev"):
        return "_prev"
    names = list(getattr(node, "__dict__", {}))
    for klass in type(node).__mro__:
        slots = getattr(klass, "__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    for name in names:
        held = getattr(node, name, None)
        if (isinstance(held, (tuple, list, set, frozenset)) and len(held) == len(parents)
                and all(any(entry is parent for entry in held) for parent in parents)):
            return name
    return None


def label_of(node: Any) -> Any:
    """The node's `_op` when it is text, else None (no such attribute, or a label of another
    type, which `label_type_of` tells apart): a label is optional to every check but the label
    check, which judges it there, so a label never stops a scenario."""
    label = getattr(node, "_op", None)
    return label if type(label) is str else None


def label_type_of(node: Any) -> Any:
    """The type name of the node's `_op` ('str' for a label as the contract writes it), or None
    when the node has no `_op` at all."""
    try:
        label = node._op
    except AttributeError:
        return None
    return type(label).__name__


def called(function: Any, call: Any, **arguments: Any) -> Any:
    """`function` called as the README writes its signature: the arguments in that order
    ("positional", the default) or each by its name ("keyword"); one given as None (an
    optional argument left to its default) is left out."""
    given = {name: value for name, value in arguments.items() if value is not None}
    return function(**given) if call == "keyword" else function(*given.values())
