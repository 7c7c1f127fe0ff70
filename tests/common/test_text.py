"""Tests for grader.common.text: student text comes out valid, visible and capped, whatever it claims."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from grader.common.text import CUT_MARK, clean_text, clean_value

HIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")  # controls, format characters, separators


def test_every_control_format_and_separator_character_is_made_visible() -> None:
    hidden = [chr(code) for code in range(sys.maxunicode + 1)
              if unicodedata.category(chr(code)) in HIDDEN_CATEGORIES and chr(code) not in "\n\t"]
    left = [hex(ord(c)) for c in hidden if clean_text(c, 20) == c]
    assert not left, f"left as they are: {left}"
    assert all(clean_text(c, 20).isascii() and clean_text(c, 20).isprintable() for c in hidden)


@pytest.mark.parametrize(("text", "shown"), [
    ("\x1b[2J", "\\x1b[2J"), ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07"),
    ("abc\u202edef", "abc\\u202edef"), ("a\u200bb", "a\\u200bb"), ("\U000e0041", "\\U000e0041"),
    ("line\nnext\ttab", "line\nnext\ttab"), ("ñandú", "ñandú")])
def test_invisible_characters_show_as_escapes_and_the_rest_is_kept(text: str, shown: str) -> None:
    assert clean_text(text, 100) == shown


def test_lone_surrogates_become_replacement_characters() -> None:
    cleaned = clean_text("x \ud800 y \udfff", 100)
    assert cleaned == "x \ufffd y \ufffd"
    cleaned.encode("utf-8")


def test_the_length_is_counted_on_a_real_str_whatever_len_says() -> None:
    class Liar(str):
        def __len__(self) -> int:
            return 1

        def __getitem__(self, index: object) -> str:
            return self

    cleaned = clean_text(Liar("x" * 100_000), 500)
    assert type(cleaned) is str and cleaned == "x" * 500 + CUT_MARK, len(cleaned)


def test_escapes_that_lengthen_a_text_are_cut_too() -> None:
    cleaned = clean_text("\x1b" * 100, 50)
    assert cleaned.endswith(CUT_MARK) and len(cleaned) == 50 + len(CUT_MARK), cleaned


def test_cleaning_twice_changes_nothing() -> None:
    once = clean_value({"k\x1b": ["\ud800\u202e", {"n": 1.5}], "t": ("a\x00",)}, 100)
    assert once == {"k\\x1b": ["\ufffd\\u202e", {"n": 1.5}], "t": ["a\\x00"]}
    assert clean_value(once, 100) == once
