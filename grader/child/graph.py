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


HELPER_NAMES = ("WrongType", "number", "text", "grad_of", "data_of", "parents_of", "record_calls",
                "node_facts")
