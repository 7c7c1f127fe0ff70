"""A small schema language for what a scenario may reply: types, lengths, counts, value ranges.

Side: sandbox child, by where it lives: each lab's scenario module declares its replies' schemas
beside its scenarios (`REPLIES`), and imports nothing beyond this folder; the checking itself
runs in the trusted process. Every reply a child sends is decoded (`protocol`) and then checked
against its scenario's schema (`grader.grading.sandbox.reply_schemas`) before any trusted code
reads it: a reply that does not match is a protocol breach on that check, the student's
failure, never the grader's.

Checking is linear in the reply: every value is visited once (a `OneOf` tries a fixed, small
number of alternatives on it), and every list and mapping has a length cap, so what a verdict
then does with the reply is bounded by the schema's caps, not by what the child chose to send.
A mismatch says where by the schema's own words (its keys), never by the child's text nor
by a position the child chose; what a student sees of it is less still (`protocol.BREACHES`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from grader.grading.child.graph import COUNTED_CAP, RECORD_CAP


class Mismatch(ValueError):
    """The reply does not have the shape its scenario's schema allows."""


class Schema:
    """One node of a schema: `check(value, where)` raises Mismatch or returns None."""

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value matches."""
        raise NotImplementedError


class Num(Schema):
    """An int or a float (exactly: not a bool), or None when nullable; within [low, high]."""

    def __init__(self, nullable: bool = False, low: float | None = None,
                 high: float | None = None) -> None:
        self.nullable, self.low, self.high = nullable, low, high

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is such a number."""
        if value is None and self.nullable:
            return
        if type(value) is not float and type(value) is not int:
            raise Mismatch(f"{where}: not a number")
        if self.low is not None and not value >= self.low:
            raise Mismatch(f"{where}: below its range")
        if self.high is not None and not value <= self.high:
            raise Mismatch(f"{where}: above its range")


class Int(Schema):
    """An int (not a bool) within [low, high]."""

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is such an int."""
        if type(value) is not int:
            raise Mismatch(f"{where}: not an integer")
        if not self.low <= value <= self.high:
            raise Mismatch(f"{where}: out of its range")


class Bool(Schema):
    """True or False (None too when nullable)."""

    def __init__(self, nullable: bool = False) -> None:
        self.nullable = nullable

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is a bool."""
        if type(value) is not bool and not (value is None and self.nullable):
            raise Mismatch(f"{where}: not a boolean")


class Str(Schema):
    """A str of at most `longest` characters (None too when nullable)."""

    def __init__(self, longest: int = 4096, nullable: bool = False) -> None:
        self.longest, self.nullable = longest, nullable

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is such a str."""
        if value is None and self.nullable:
            return
        if type(value) is not str:
            raise Mismatch(f"{where}: not a string")
        if len(value) > self.longest:
            raise Mismatch(f"{where}: a string too long")


class ListOf(Schema):
    """A list of `item`, of `shortest` to `longest` items."""

    def __init__(self, item: Schema, longest: int, shortest: int = 0) -> None:
        self.item, self.longest, self.shortest = item, longest, shortest

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is such a list (its length is checked first)."""
        if type(value) is not list:
            raise Mismatch(f"{where}: not a list")
        if not self.shortest <= len(value) <= self.longest:
            raise Mismatch(f"{where}: a list of a length out of its range")
        for item in value:
            self.item.check(item, f"{where}[]")


class Row(Schema):
    """A list of exactly these items, in this order."""

    def __init__(self, *items: Schema) -> None:
        self.items = items

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is such a row."""
        if type(value) is not list or len(value) != len(self.items):
            raise Mismatch(f"{where}: not a row of {len(self.items)}")
        for position, (item, schema) in enumerate(zip(value, self.items, strict=True)):
            schema.check(item, f"{where}[{position}]")


class Obj(Schema):
    """A dict with exactly the `required` keys and any of the `optional` ones, each matching its
    schema; no other key."""

    def __init__(self, required: Mapping[str, Schema],
                 optional: Mapping[str, Schema] | None = None) -> None:
        self.required, self.optional = dict(required), dict(optional or {})

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is such a dict."""
        if type(value) is not dict:
            raise Mismatch(f"{where}: not an object")
        if len(value) > len(self.required) + len(self.optional):
            raise Mismatch(f"{where}: an object with keys it may not have")
        for key, schema in self.required.items():
            if key not in value:
                raise Mismatch(f"{where}: an object without {key!r}")
            schema.check(value[key], f"{where}.{key}")
        for key, item in value.items():
            if key in self.required:
                continue
            known = self.optional.get(key) if type(key) is str else None
            if known is None:
                raise Mismatch(f"{where}: an object with a key it may not have")
            known.check(item, f"{where}.{key}")


class Columns(Schema):
    """Records of named fields, written as one list per field (each name once, however many
    records): a dict with exactly these keys, each a list of its schema, all of one length of
    at most `longest`."""

    def __init__(self, longest: int, **fields: Schema) -> None:
        self.longest = longest
        self.record = Obj({name: ListOf(item, longest) for name, item in fields.items()})

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is such a dict of lists of one length."""
        self.record.check(value, where)
        if len({len(column) for column in value.values()}) > 1:
            raise Mismatch(f"{where}: columns of different lengths")


class MapOf(Schema):
    """A dict of at most `longest` entries whose keys are strs of at most `key_longest`
    characters and whose values match `value`."""

    def __init__(self, value: Schema, longest: int, key_longest: int = 64) -> None:
        self.value, self.longest, self.key_longest = value, longest, key_longest

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is such a mapping (its size is checked first)."""
        if type(value) is not dict:
            raise Mismatch(f"{where}: not an object")
        if len(value) > self.longest:
            raise Mismatch(f"{where}: an object with too many keys")
        for key, item in value.items():
            if type(key) is not str or len(key) > self.key_longest:
                raise Mismatch(f"{where}: an object with a key too long")
            self.value.check(item, f"{where}[]")  # the key is the child's text: not said


class Null(Schema):
    """None, and nothing else."""

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless value is None."""
        if value is not None:
            raise Mismatch(f"{where}: not null")


NULL = Null()


class OneOf(Schema):
    """Any one of a few alternatives (tried in order; each is linear, so is the whole)."""

    def __init__(self, *alternatives: Schema) -> None:
        self.alternatives = alternatives

    def check(self, value: Any, where: str) -> None:
        """Raise Mismatch unless one alternative matches."""
        for alternative in self.alternatives:
            try:
                alternative.check(value, where)
                return
            except Mismatch:
                continue
        raise Mismatch(f"{where}: none of the shapes it may have")


# A scenario's schema: fixed, or made from the scenario's parameters (a list as long as the
# graphs it was given, indices below their sizes).
ReplySchema = Schema | Callable[[Mapping[str, Any]], Schema]


def schema_for(reply: ReplySchema, params: Mapping[str, Any]) -> Schema:
    """The schema a reply to a scenario run with `params` must match."""
    return reply if isinstance(reply, Schema) else reply(params)


def mismatch(value: Any, reply: ReplySchema, params: Mapping[str, Any]) -> str | None:
    """Where value departs from the schema (the schema's words only), or None when it matches."""
    try:
        schema_for(reply, params).check(value, "reply")
    except Mismatch as exc:
        return str(exc)
    return None


# -- shapes the labs' scenarios share (each lab's module declares its own REPLIES with them) --

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


def expression_values(params: Mapping[str, Any]) -> Schema:
    """One entry per graph given: the data and grad of each of its nodes (lab03's zero_grad
    over random graphs)."""
    entries = []
    for graph in params.get("graphs") or []:
        size = _size(graph)
        values = ListOf(Num(nullable=True), size, size)
        entries.append(Obj({"data": values, "grad": values}))
    return Obj({"results": Row(*entries)})


def sessions(params: Mapping[str, Any]) -> Schema:
    """run_sessions: one entry per session given: each program's data and grad (None for a
    program the session built but never walked), and the operations that returned an operand
    or not a Value; or the error the student's code raised, with its stage and program."""
    entries = []
    for session in params.get("sessions") or []:
        programs = session.get("programs") or []
        runs = []
        for program in programs:
            values = ListOf(Num(nullable=True), _size(program), _size(program))
            runs.append(OneOf(Obj({"data": values, "grad": values}), NULL))
        nodes = sum(len(program.get("nodes") or []) for program in programs)
        returned = Obj({"node": Int(0, nodes + 64), "at": Row(Int(0, len(programs)), Int(0, nodes)),
                        "returned": Str(256)})
        entries.append(OneOf(
            Obj({"results": Row(*runs), "returned": ListOf(returned, nodes)}),
            Obj({"error": ERROR_TEXT, "stage": Str(16), "program": Int(0, len(programs))})))
    return Obj({"sessions": Row(*entries)})


def ladder_nodes(params: Mapping[str, Any]) -> Schema:
    """ladder_calls: the calls and facts of a ladder of `depth` rungs (three nodes a rung)."""
    depth = int(params.get("depth") or 0)
    return Obj({"calls": CALLS,
                "nodes": MapOf(Row(Num(nullable=True), Num(nullable=True)), 3 + 3 * depth)})


def ladder_counts(params: Mapping[str, Any]) -> Schema:
    """lab03's ladder: how often, and last when, each of its 3 x depth nodes' _backward ran,
    and the [data, grad] of its nodes (node_facts) for the drawing."""
    names = 3 * int(params.get("depth") or 0)
    return Obj({"counts": MapOf(Int(1, COUNTED_CAP), names),
                "last": MapOf(Int(0, COUNTED_CAP - 1), names)}, {"nodes": NODES})


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
