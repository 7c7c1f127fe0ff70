"""Tests for the size and text guarantees of grader.results.build: whatever a student prints or
raises, a score document stays under DOC_BYTES, each check under CHECK_BYTES, every string valid
UTF-8 with no invisible character, and its sentence still says what happened."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.results.build import (
    CHECK_BYTES,
    DOC_BYTES,
    FLAGS_BYTES,
    MAX_DOC_FLAGS,
    MORE_FLAGS,
    graded_document,
    json_bytes,
    ungradable_document,
)
from grader.results.render import one_line, render_feedback

ISOLATION = {"level": "jail", "how": "root", "memory": "cgroup"}
SUBMISSION = {"id": "ana", "source": "ana/", "digest": "sha256:0"}
# lab01's checks, the ones a document of the lab holds
CHECK_IDS = ("add-builds-node", "add-local-derivative", "add-passes-upstream-gradient",
             "backward-calls-each-node-once", "backward-runs-in-topological-order",
             "backward-seeds-output", "course-diamond-example", "course-example-graph",
             "diamond-accumulates", "equal-data-leaves-stay-distinct")
DATA = Path(__file__).resolve().parents[1] / "data"
HOSTILE = "\ud800 \x1b[2J\x1b]52;c;ZWNobyBoaQ==\x07 \u202eevil\u202c \u200b" * 20000


def invisible(text: str) -> list[str]:
    """The characters of text a reader cannot see (controls but newline and tab, format
    characters, separators) or no UTF-8 writer accepts (surrogates)."""
    return sorted({hex(ord(c)) for c in text if c not in "\n\t"
                   and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")})


def entry(check: str, detail: dict[str, Any] | None, output: str | None = None) -> dict[str, Any]:
    """One check's entry as the plugin records it, failed with `detail`."""
    return {"submission": "ana", "check": check, "pitfall": "grad-overwrite", "weight": 1.0,
            "visibility": "hidden", "status": "failed" if detail else "passed",
            "detail": detail, "output": output, "flags": [], "isolation": None, "problem": None,
            "duration_s": 0.01}


def exception_detail(message: str, type_name: str = "ValueError") -> dict[str, Any]:
    return {"kind": "exception", "params": {"type": type_name, "message": message, "where": ""}}


def hostile_document(checks: int = len(CHECK_IDS)) -> dict[str, Any]:
    entries = [entry(CHECK_IDS[i % len(CHECK_IDS)],
                     exception_detail(HOSTILE, "E" * 300000), output=HOSTILE)
               for i in range(checks)]
    flags = [{"id": "forbidden-import", "params": {"module": HOSTILE}}]
    return graded_document("lab01_graph", SUBMISSION, entries, flags, "en", ISOLATION)


def test_a_document_of_hostile_checks_stays_under_its_budgets() -> None:
    doc = hostile_document(checks=40)
    assert json_bytes(doc) <= DOC_BYTES, json_bytes(doc)
    for check in doc["checks"]:
        assert json_bytes(check) <= CHECK_BYTES, (check["id"], json_bytes(check))


def test_one_hostile_check_keeps_its_kind_and_says_what_happened() -> None:
    doc = hostile_document(checks=1)
    [check] = doc["checks"]
    assert json_bytes(check) <= CHECK_BYTES, json_bytes(check)
    assert check["detail"]["kind"] == "exception", check["detail"]
    assert check["message"].startswith("Your code raised EEE"), check["message"][:80]


def test_hostile_text_is_valid_and_visible_in_the_document_and_every_rendering() -> None:
    doc = hostile_document(checks=2)
    text = json.dumps(doc, ensure_ascii=False)
    text.encode("utf-8")  # a lone surrogate would raise here (and in write_reports)
    assert not invisible(text), invisible(text)
    assert "\\x1b[2J" in doc["checks"][0]["detail"]["params"]["message"], "made visible"
    for fmt in ("terminal", "markdown", "html"):
        rendered = render_feedback(doc, fmt)
        rendered.encode("utf-8")
        assert not invisible(rendered), (fmt, invisible(rendered))


@pytest.mark.parametrize("field", ["source", "name"])
def test_names_from_an_lms_export_are_cleaned_in_an_ungradable_document(field: str) -> None:
    submission = {**SUBMISSION, field: "ana\x1b]52;c;aGk=\x07\u202e\ud800"}
    detail = {"kind": "missing-file", "params": {"file": "value.py"}}
    doc = ungradable_document("lab01_graph", submission, detail, "en", ISOLATION)
    value = doc["submission"][field]
    assert not invisible(value) and re.search(r"\\x1b\]52", value), value


# --- json_bytes: the indented size, counted without the pure-Python encoder -------------------

def _indented_size(value: Any) -> int:
    """What json_bytes stands for: the value as the report writes it, measured by writing it."""
    return len(json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8", "replace"))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
    | st.text(st.characters(codec=None), max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_json_bytes_is_the_size_of_the_indented_json(value: Any) -> None:
    assert json_bytes(value) == _indented_size(value)


@pytest.mark.parametrize("path", sorted(DATA.glob("score_*.json")), ids=lambda p: p.stem)
def test_json_bytes_of_a_real_document_is_its_indented_size(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert json_bytes(doc) == _indented_size(doc)


# --- flags and reasons go through the same budget --------------------------------------------

AMPLIFIED_NAME = "os.exec" + "A" * 16000  # issue 38: 1,000 such flags made a 33 MB scores.json


def amplified_flags(count: int) -> list[dict[str, Any]]:
    """`count` distinct forbidden-call flags, each quoting a 16 KB name."""
    return [{"id": "forbidden-call", "params": {"call": f"{AMPLIFIED_NAME}.c{n}"}}
            for n in range(count)]


@pytest.mark.parametrize("count", [1, MAX_DOC_FLAGS, 1000])
def test_flags_count_against_the_document_and_the_rest_are_counted(count: int) -> None:
    entries = [entry(CHECK_IDS[i], exception_detail(HOSTILE, "E" * 300000), output=HOSTILE)
               for i in range(len(CHECK_IDS))]
    doc = graded_document("lab01_graph", SUBMISSION, entries, amplified_flags(count), "en",
                          ISOLATION)
    assert json_bytes(doc) <= DOC_BYTES, json_bytes(doc)
    assert json_bytes(doc["flags"]) <= FLAGS_BYTES + 200, json_bytes(doc["flags"])
    listed = [f for f in doc["flags"] if f["id"] != MORE_FLAGS]
    counted = sum(f["params"]["count"] for f in doc["flags"] if f["id"] == MORE_FLAGS)
    assert len(listed) <= MAX_DOC_FLAGS and len(listed) + counted == count, (len(listed), counted)
    for fmt in ("terminal", "markdown", "html"):
        size = len(render_feedback(doc, fmt).encode("utf-8"))
        assert size <= DOC_BYTES, (fmt, size)


def test_a_reason_quoting_thousands_of_names_stays_under_the_budget() -> None:
    detail = {"kind": "ambiguous-file", "params": {
        "file": "value.py", "candidates": [f"{'d' * 250}{n}/value.py" for n in range(20000)]}}
    doc = ungradable_document("lab01_graph", SUBMISSION, detail, "en", ISOLATION)
    assert json_bytes(doc) <= DOC_BYTES, json_bytes(doc)
    assert doc["reason"]["kind"] == "ambiguous-file", doc["reason"]["kind"]
    assert doc["reason"]["text"].startswith("The submission holds more than one candidate"), \
        doc["reason"]["text"][:80]


LINE_BREAKS = "\r\n\u2028\u2029\x0b\x0c\x85"
# The expression render.py used before issue 38 (kept here as the oracle of what it meant).
OLD_LINE_BREAKS = re.compile(r"\s*[\r\n\u2028\u2029\x0b\x0c\x85]+\s*")


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from(" \t\x1cab" + LINE_BREAKS), max_size=30))
def test_one_line_joins_lines_as_the_backtracking_expression_did(text: str) -> None:
    assert one_line(text) == OLD_LINE_BREAKS.sub(" ", text)


def test_one_line_is_linear_in_a_run_of_spaces() -> None:
    """300,000 spaces and no line break: the old expression took minutes (quadratic)."""
    text = " " * 300_000 + "x"
    assert one_line(text) == text
    doc = hostile_document(checks=1)
    doc["checks"][0]["message"] = text[:DOC_BYTES // 4]
    assert render_feedback(doc, "markdown")  # within the test's own time: no hang
