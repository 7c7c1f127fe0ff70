"""Decoding what crosses the boundary: framed, size- and depth-capped JSON of plain values only.

Side: trusted process (the framing the child's bootstrap writes by hand).
"""

from __future__ import annotations

import json
import math
from typing import Any

from grader.common.text import clean_value

# The longest string a message may carry into the trusted process (longer ones are cut there).
STRING_CAP = 4096
# Integers past a float's range: no check compares numbers that large, and converting one to a
# float (or formatting it) raises OverflowError in the trusted process.
MAX_INT_BITS = 1024


# Why a message was refused, in the grader's words only: a breach flag is shown to the student
# (at the top of Gradescope's output, in PrairieLearn's results) before any hidden check is, so
# it never quotes the child's text, nor a number, a length or a position the child chose.
BREACHES = {
    "not-json": "a message that is not valid JSON",
    "non-finite": "a message holding a number that is not finite",
    "too-deep": "a message nested too deep",
    "huge-integer": "a message holding an integer too large",
    "not-plain": "a message holding something other than plain data",
    "non-string-key": "a message with a key that is not a string",
    "bad-header": "a message frame without a length",
    "oversize": "a message larger than the grader accepts",
    "not-object": "a message that is not an object",
    "unknown-status": "a message of a kind the grader never asks for",
    "reply-shape": "a reply whose shape the check does not expect",
}


class ProtocolError(ValueError):
    """The child sent something that is not one well-formed, plain-data message; `kind` is
    one of BREACHES, and the message (str) is that fixed sentence only."""

    def __init__(self, kind: str) -> None:
        super().__init__(BREACHES[kind])
        self.kind = kind


def breach_flag(exc: ProtocolError) -> dict[str, Any]:
    """The protocol-breach flag of a refused message: its kind, which the catalogue says in
    every language (flags.protocol-breach.reason.<kind>)."""
    return {"id": "protocol-breach", "params": {"reason": exc.kind}}


def _reject_constant(token: str) -> Any:
    raise ProtocolError("non-finite")


def _allow_constant(token: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[token]


def check_plain(value: Any, max_depth: int, depth: int = 0) -> None:
    """Raise ProtocolError unless value is plain JSON data nested at most max_depth deep."""
    if depth > max_depth:
        raise ProtocolError("too-deep")
    if isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                raise ProtocolError("non-string-key")
            check_plain(item, max_depth, depth + 1)
    elif isinstance(value, list):
        for item in value:
            check_plain(item, max_depth, depth + 1)
    elif type(value) is int and value.bit_length() > MAX_INT_BITS:
        raise ProtocolError("huge-integer")
    elif value is not None and type(value) not in (str, int, float, bool):
        raise ProtocolError("not-plain")


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):  # a literal such as 1e999 overflows to infinity
        raise ProtocolError("non-finite")
    return value


def decode(payload: bytes, *, max_depth: int = 16, allow_nonfinite: bool = False) -> Any:
    """Parse one message payload; NaN and Infinity (also by overflow) only when allow_nonfinite.
    Its strings come back cleaned (`grader.common.text`: valid, visible, at most STRING_CAP long)."""
    try:
        text = payload.decode("utf-8")
        value = json.loads(
            text,
            parse_constant=_allow_constant if allow_nonfinite else _reject_constant,
            parse_float=float if allow_nonfinite else _finite_float,
        )
    except ProtocolError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError("not-json") from exc
    check_plain(value, max_depth)
    return clean_value(value, STRING_CAP)


class FrameReader:
    """Splits a byte stream into `<length>\\n<payload>` frames, refusing oversized ones."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.buffer = b""

    def feed(self, data: bytes) -> None:
        """Append bytes read from the stream."""
        self.buffer += data

    def next_frame(self) -> bytes | None:
        """The next complete payload, or None if more bytes are needed."""
        newline = self.buffer.find(b"\n", 0, 21)
        if newline < 0:
            if len(self.buffer) > 20:
                raise ProtocolError("bad-header")
            return None
        header = self.buffer[:newline]
        if not header.isdigit():
            raise ProtocolError("bad-header")
        length = int(header)
        if length > self.max_bytes:
            raise ProtocolError("oversize")
        end = newline + 1 + length
        if len(self.buffer) < end:
            return None
        payload, self.buffer = self.buffer[newline + 1 : end], self.buffer[end:]
        return payload


def encode_frame(message: Any) -> bytes:
    """Frame a trusted message for the child's stdin."""
    payload = json.dumps(message).encode("utf-8")
    return b"%d\n" % len(payload) + payload
