"""Cleaning text that came from a student: valid Unicode, visible, and capped, whatever it claims.

Side: trusted process. Text from a submission enters the trusted process in three places: the
replies and output of the sandbox (`grader.grading.sandbox`), the names inside a submission's files
(`grader.intake.collect`), and what the policy scan quotes; each cleans it here once, and the score
document, from which every output is rendered (terminal, Markdown, HTML, CSV, JSON, Gradescope,
PrairieLearn), is cleaned as a whole once more when it is built (`grader.results.build`).

- Lone surrogates (which no UTF-8 writer accepts) become U+FFFD.
- Control characters but newline and tab, and every invisible character that changes how a line
  reads (bidi overrides and isolates, zero-width characters, line and paragraph separators, tag
  characters) are shown as escapes, `\\x1b` or `\\u202e`: a student cannot drive a terminal, set a
  clipboard (OSC 52) or make a line read differently from what it says, and the reader sees that
  something was there.
- Every string is cut to a length counted here, on a real `str`: a subclass's `__len__` is
  never asked.
"""

from __future__ import annotations

import re
from typing import Any

CUT_MARK = " [...]"
# C0 and C1 controls (newline and tab kept), and the invisible format characters (Unicode
# categories Cf, Zl, Zp; tests/common/test_text.py proves the ranges hold every one of them).
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def clean_text(text: Any, limit: int) -> str:
    """`text` as a real str of valid, visible Unicode, cut to `limit` characters (plus a mark)."""
    plain = str.__str__(text) if isinstance(text, str) else str(text)
    cut = len(plain) > limit
    plain = plain[:limit]
    plain = _SURROGATE.sub("\ufffd", plain)
    plain = _INVISIBLE.sub(_visible, plain)
    if len(plain) > limit:  # the escapes lengthened it
        plain, cut = plain[:limit], True
    return plain + CUT_MARK if cut else plain


def clean_value(value: Any, limit: int) -> Any:
    """Plain data with every string (dictionary keys included) cleaned by clean_text."""
    if isinstance(value, str):
        return clean_text(value, limit)
    if isinstance(value, dict):
        return {clean_text(key, limit) if isinstance(key, str) else key: clean_value(item, limit)
                for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clean_value(item, limit) for item in value]
    return value
