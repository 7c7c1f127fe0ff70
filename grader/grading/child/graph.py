"""Helpers scenarios use to read a student's graph as plain data (stdlib only).

Side: sandbox child (and the trusted process's reference runs, with the same source).

This module's source is executed inside the sandbox child as well as imported by the trusted
process for reference runs, so it must not import anything outside the standard library.
"""

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


def record_calls(named: dict[str, Any]) -> list[str]:
    """Wrap each node's _backward so that every call appends the node's name to the returned list."""
    calls: list[str] = []

    def wrap(name: str, original: Any) -> Any:
        def recording_backward() -> Any:
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



def build_expression(Value, graph: dict) -> list:
    """Build a drawn expression graph with `Value`: its values, leaves first, output last.

    `graph` is plain data: {"leaves": [floats], "nodes": [[op, i, j, k]]}, where i and j index
    earlier values and k is a plain number (see grader.grading.checking.random_graphs for the ops).
    """
    values = [Value(v) for v in graph["leaves"]]
    for op, i, j, k in graph["nodes"]:
        a = values[i]
        b = values[j] if j is not None else None
        if op == "add":
            out = a + b
        elif op == "mul":
            out = a * b
        elif op == "sub":
            out = a - b
        elif op == "div":
            out = a / b
        elif op == "add_k":
            out = a + k
        elif op == "radd_k":
            out = k + a
        elif op == "mul_k":
            out = a * k
        elif op == "rmul_k":
            out = k * a
        elif op == "sub_k":
            out = a - k
        elif op == "rsub_k":
            out = k - a
        elif op == "div_k":
            out = a / k
        elif op == "rdiv_k":
            out = k / a
        elif op == "neg":
            out = -a
        elif op == "pow_k":
            out = a ** k
        else:  # exp, log, tanh, relu, sigmoid: methods
            out = getattr(a, op)()
        values.append(out)
    return values


def finite_or_none(value: Any, quantity: str) -> Any:
    """number(value), or None when it is not finite (NaN and infinities cannot be sent)."""
    result = number(value, quantity)
    return result if result - result == 0.0 else None


def run_expressions(Value, graphs: list, record: bool = False) -> list:
    """Build each graph, call backward() on its output, and read every node's data and grad.

    One entry per graph: {"data": [...], "grad": [...]} (None for a number that is not
    finite), plus "calls" (the order of the `_backward` calls, by node index) when `record`;
    or {"error": ..., "stage": "build" | "backward"} when the student's code raised.
    """
    results: list = []
    for graph in graphs:
        stage = "build"
        try:
            values = build_expression(Value, graph)
            data = [finite_or_none(v.data, f"[{k}].data") for k, v in enumerate(values)]
            calls = record_calls({str(k): v for k, v in enumerate(values)}) if record else None
            stage = "backward"
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


HELPER_NAMES = ("WrongType", "number", "text", "grad_of", "data_of", "parents_of", "record_calls",
                "node_facts", "build_expression", "finite_or_none", "run_expressions")
