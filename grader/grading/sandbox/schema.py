"""A small schema language for what a scenario may reply: types, lengths, counts, value ranges.

Side: trusted process. Every reply a child sends is decoded (`protocol`) and then checked
against its scenario's schema (`reply_schemas`) before any trusted code reads it: a reply that
does not match is a protocol breach on that check, the student's failure, never the grader's.

Checking is linear in the reply: every value is visited once (a `OneOf` tries a fixed, small
number of alternatives on it), and every list and mapping has a length cap, so what a verdict
then does with the reply is bounded by the schema's caps, not by what the child chose to send.
A mismatch says where by the schema's own words (its keys), never by the child's text nor
by a position the child chose; what a student sees of it is less still (`protocol.BREACHES`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


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
