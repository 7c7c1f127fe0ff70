"""Tests for grader.grading.checking.verdict.field: a result's shape is checked, never assumed."""

from __future__ import annotations

import pytest

from grader.grading.checking.verdict import CheckFailed, field


def test_an_integer_too_large_for_a_float_fails_the_check_with_a_reason() -> None:
    with pytest.raises(CheckFailed) as caught:
        field({"a.grad": 10**4000}, "a.grad", float)
    assert caught.value.detail == {
        "kind": "bad-result", "params": {"reason": "'a.grad' is an integer too large for a float"}}


def test_an_integer_where_a_float_is_asked_is_taken_as_one() -> None:
    value = field({"a.grad": 3}, "a.grad", float)
    assert value == 3.0 and type(value) is float
