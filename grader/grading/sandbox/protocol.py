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


class ProtocolError(ValueError):
    """The child sent something that is not one well-formed, plain-data message."""


def _reject_constant(token: str) -> Any:
    raise ProtocolError(f"non-finite number {token} in a message")


def _allow_constant(token: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[token]


def check_plain(value: Any, max_depth: int, depth: int = 0) -> None:
    """Raise ProtocolError unless value is plain JSON data nested at most max_depth deep."""
    if depth > max_depth:
        raise ProtocolError(f"message nested deeper than {max_depth}")
    if isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                raise ProtocolError("message has a non-string key")
            check_plain(item, max_depth, depth + 1)
    elif isinstance(value, list):
        for item in value:
            check_plain(item, max_depth, depth + 1)
    elif type(value) is int and value.bit_length() > MAX_INT_BITS:
        raise ProtocolError(f"message holds an integer of {value.bit_length()} bits")
    elif value is not None and type(value) not in (str, int, float, bool):
        raise ProtocolError(f"message holds a {type(value).__name__}")


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):  # a literal such as 1e999 overflows to infinity
        raise ProtocolError(f"number {token[:20]} overflows to infinity")
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
        raise ProtocolError(f"not valid JSON ({type(exc).__name__})") from exc
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
                raise ProtocolError("frame header is not a length")
            return None
        header = self.buffer[:newline]
        if not header.isdigit():
            raise ProtocolError("frame header is not a length")
        length = int(header)
        if length > self.max_bytes:
            raise ProtocolError(f"message of {length} bytes exceeds the {self.max_bytes}-byte cap")
        end = newline + 1 + length
        if len(self.buffer) < end:
            return None
        payload, self.buffer = self.buffer[newline + 1 : end], self.buffer[end:]
        return payload


def encode_frame(message: Any) -> bytes:
    """Frame a trusted message for the child's stdin."""
    payload = json.dumps(message).encode("utf-8")
    return b"%d\n" % len(payload) + payload
