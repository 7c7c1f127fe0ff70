"""Tests for grader.grading.sandbox.protocol: framing, caps, and what decode lets across the boundary."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import pytest

from grader.grading.sandbox.protocol import (
    FrameReader,
    ProtocolError,
    check_plain,
    decode,
    encode_frame,
)


def frame(payload: bytes) -> bytes:
    """A payload with its length header, as the child writes it."""
    return b"%d\n" % len(payload) + payload


def nested_lists(levels: int) -> Any:
    """`levels` lists nested in each other around the number 1."""
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


# --- FrameReader -----------------------------------------------------------------------------


def test_frames_fed_byte_by_byte_come_out_whole_and_in_order() -> None:
    stream = frame(b'{"status": "ok"}') + frame(b"[1, 2]") + frame(b"")
    reader = FrameReader(max_bytes=100)
    frames = []
    for byte in stream:
        reader.feed(bytes([byte]))
        while (payload := reader.next_frame()) is not None:
            frames.append(payload)
    assert frames == [b'{"status": "ok"}', b"[1, 2]", b""], frames


def test_incomplete_frame_waits_for_more_bytes() -> None:
    reader = FrameReader(max_bytes=100)
    reader.feed(b"10\n01234")
    assert reader.next_frame() is None, "a frame was returned before its last byte arrived"
    reader.feed(b"56789extra")
    assert reader.next_frame() == b"0123456789"
    assert reader.buffer == b"extra", f"bytes after the frame were lost: {reader.buffer!r}"


def test_several_frames_in_one_feed_are_split() -> None:
    reader = FrameReader(max_bytes=100)
    reader.feed(frame(b"a") + frame(b"bc") + frame(b"def"))
    assert [reader.next_frame() for _ in range(4)] == [b"a", b"bc", b"def", None]


def test_frame_of_exactly_the_cap_is_accepted() -> None:
    reader = FrameReader(max_bytes=8)
    reader.feed(frame(b"12345678"))
    assert reader.next_frame() == b"12345678"


def test_oversize_frame_is_refused_from_its_header_alone() -> None:
    reader = FrameReader(max_bytes=8)
    reader.feed(b"9\n")  # no payload yet: the header alone is enough to refuse
    with pytest.raises(ProtocolError, match="larger than the grader accepts"):
        reader.next_frame()


@pytest.mark.parametrize("header", [b"abc", b"-5", b"+5", b" 5", b"5 ", b"0x10", b"", b"1e3"])
def test_non_numeric_header_is_refused(header: bytes) -> None:
    reader = FrameReader(max_bytes=100)
    reader.feed(header + b"\n{}")
    with pytest.raises(ProtocolError, match="frame without a length"):
        reader.next_frame()


def test_header_without_newline_is_refused_after_twenty_bytes() -> None:
    reader = FrameReader(max_bytes=100)
    reader.feed(b"1" * 20)
    assert reader.next_frame() is None, "a 20-digit header may still be completed"
    reader.feed(b"1")
    with pytest.raises(ProtocolError, match="frame without a length"):
        reader.next_frame()


def test_encode_frame_round_trips_through_reader_and_decode() -> None:
    message = {"name": "diamond", "params": {"x": 1.5, "y": -2}, "flags": [True, None, "é"]}
    reader = FrameReader(max_bytes=1000)
    reader.feed(encode_frame(message))
    payload = reader.next_frame()
    assert payload is not None
    assert decode(payload) == message


# --- decode ----------------------------------------------------------------------------------


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_constants_are_refused_by_default(token: str) -> None:
    with pytest.raises(ProtocolError, match="not finite"):
        decode(f'{{"value": {token}}}'.encode())


@pytest.mark.parametrize(("token", "expected"), [
    ("Infinity", math.inf), ("-Infinity", -math.inf)])
def test_infinities_are_decoded_when_allowed(token: str, expected: float) -> None:
    assert decode(f"[{token}]".encode(), allow_nonfinite=True) == [expected]


def test_nan_is_decoded_when_allowed() -> None:
    value = decode(b"[NaN]", allow_nonfinite=True)
    assert math.isnan(value[0]), value


@pytest.mark.parametrize("literal", ["1e999", "-1e999"])
def test_overflowing_float_literal_is_refused_as_non_finite(literal: str) -> None:
    # json turns 1e999 into inf without calling parse_constant: a way around the NaN/Infinity
    # refusal for code that writes to the result pipe itself.
    with pytest.raises(ProtocolError):
        decode(f'{{"value": {literal}}}'.encode())


def test_overflowing_float_literal_is_infinity_when_allowed() -> None:
    assert decode(b"[1e999, -1e999]", allow_nonfinite=True) == [math.inf, -math.inf]


def test_invalid_utf8_is_refused() -> None:
    with pytest.raises(ProtocolError, match="not valid JSON"):
        decode(b'"\xff\xfe"')


@pytest.mark.parametrize("payload", [b"", b"{", b"{'a': 1}", b"[1, 2", b"ok"])
def test_malformed_json_is_refused(payload: bytes) -> None:
    with pytest.raises(ProtocolError, match="not valid JSON"):
        decode(payload)


def test_nesting_up_to_the_cap_is_accepted_and_one_deeper_refused() -> None:
    assert decode(json.dumps(nested_lists(16)).encode()) == nested_lists(16)
    with pytest.raises(ProtocolError, match="nested too deep"):
        decode(json.dumps(nested_lists(17)).encode())


def test_depth_cap_is_configurable() -> None:
    assert decode(b'{"a": {"b": 1}}', max_depth=2) == {"a": {"b": 1}}
    with pytest.raises(ProtocolError, match="nested too deep"):
        decode(b'{"a": {"b": 1}}', max_depth=1)


def test_nesting_too_deep_for_the_json_parser_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        decode(b"[" * 100_000 + b"]" * 100_000)


@pytest.mark.parametrize(("payload", "expected"), [
    (b"[1, 2.5]", [1, 2.5]), (b'"text"', "text"), (b"3", 3), (b"null", None),
    (b"true", True)])
def test_top_level_values_other_than_objects_decode(payload: bytes, expected: Any) -> None:
    assert decode(payload) == expected


def test_integer_too_long_to_convert_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="not valid JSON"):
        decode(b"1" * 10_000)


# --- check_plain -----------------------------------------------------------------------------


class Color(enum.IntEnum):
    RED = 1


class Ratio(float):
    pass


@pytest.mark.parametrize("value", [
    {"a": [1, 2.5, "x", True, None, {"b": []}]}, [], {}, "", 0, -0.0, False])
def test_plain_data_passes(value: Any) -> None:
    check_plain(value, max_depth=16)


@pytest.mark.parametrize("key", [1, 1.5, None, True, ("a",)])
def test_non_string_keys_are_refused(key: Any) -> None:
    with pytest.raises(ProtocolError, match="key that is not a string"):
        check_plain({key: 1}, max_depth=16)


@pytest.mark.parametrize(("value", "type_name"), [
    ((1, 2), "tuple"), ({1, 2}, "set"), (b"x", "bytes"), (Color.RED, "Color"),
    (Ratio(0.5), "Ratio"), (1j, "complex"), (object(), "object")])
def test_values_other_than_plain_json_types_are_refused(value: Any, type_name: str) -> None:
    with pytest.raises(ProtocolError, match="other than plain data"):
        check_plain({"value": [value]}, max_depth=16)


# --- what decode lets into the trusted process -----------------------------------------------


def test_an_integer_past_a_floats_range_is_refused() -> None:
    with pytest.raises(ProtocolError, match="integer too large"):
        decode(b'{"status": "ok", "value": {"a.grad": ' + b"9" * 4000 + b"}}")


def test_an_integer_in_a_floats_range_is_kept() -> None:
    assert decode(b"[" + b"9" * 300 + b"]") == [int("9" * 300)]


def test_strings_come_out_valid_visible_and_capped() -> None:
    payload = json.dumps({"message\x1b": "x \ud800 \x1b]52;c;aGk=\x07", "long": "y" * 10**5})
    message = decode(payload.encode("utf-8"))
    assert message["message\\x1b"] == "x \ufffd \\x1b]52;c;aGk=\\x07", message
    assert len(message["long"]) < 5000, len(message["long"])
