"""Tests for grader.results.messages: every detail kind and flag renders as a sentence in both languages."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from language_rules import english_words

from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import (
    check_hint,
    check_title,
    describe_detail,
    describe_flag,
    format_value,
    localise_document,
    pitfall_section,
)

DATA = Path(__file__).parent / "data"

# One sample per detail kind, with every parameter the kind takes, and a fragment of
# each parameter as it must appear once formatted.
# A fragment is a string (shown with the language's decimal mark) or {lang: text}.
DETAIL_SAMPLES: dict[str, tuple[dict[str, Any], list[Any]]] = {
    "mismatch": (
        {"quantity": "a.grad", "inputs": {"a": 2.0, "b": -3.0}, "expected": -2.0,
         "actual": 1 / 3, "source": "central-difference"},
        ["a.grad", "a = 2, b = -3", "-2", "0.333333"],
    ),
    "wrong-type": (
        {"quantity": "a + b", "inputs": {"a": 1.5}, "expected_type": "Value",
         "actual_type": "float"},
        ["a + b", "a = 1.5", "Value", "float"],
    ),
    "exception": (
        {"type": "ZeroDivisionError", "message": "float division by zero",
         "where": [{"file": "value.py", "line": 12, "function": "__mul__"}]},
        ["ZeroDivisionError", "float division by zero", {"en": "value.py, line 12, in `__mul__`",
                                                             "es": "value.py, línea 12, en `__mul__`"}],
    ),
    "not-written": (
        {"todo": 3, "file": "value.py", "next": 1,
         "where": [{"file": "value.py", "line": 35, "function": "_backward"}]},
        ["TODO 3", "value.py", "NotImplementedError", {"en": "value.py, line 35, in `_backward`",
                                                             "es": "value.py, línea 35, en `_backward`"}],
    ),
    "not-implemented": (
        {"message": "later", "where": [{"file": "value.py", "line": 9, "function": "exp"}],
         "file": "value.py"},
        ["NotImplementedError", "later", {"en": "value.py, line 9, in `exp`", "es": "value.py, línea 9, en `exp`"}],
    ),
    "timeout": ({"seconds": 2}, ["2 s"]),
    "over-budget": ({"seconds": 60}, ["60 s"]),
    "crash": ({"how": {"kind": "how-killed", "params": {"signal": "SIGKILL"}}},
              [{"en": "killed by SIGKILL", "es": "la señal SIGKILL"}]),
    "import-error": (
        {"file": "value.py", "type": "SyntaxError", "message": "invalid syntax",
         "where": [{"file": "value.py", "line": 3}]},
        ["value.py", "SyntaxError", "invalid syntax",
         {"en": "value.py, line 3", "es": "value.py, línea 3"}],
    ),
    "bad-result": ({"reason": "NaN"}, ["NaN"]),
    "order-violation": (
        {"node": "x", "consumer": "z", "inputs": {"a": 1.0, "b": 2.0, "c": 3.0}},
        [" x ", " z", "a = 1, b = 2, c = 3"],
    ),
    "called-more-than-once": (
        {"node": "x", "count": 2, "inputs": {"a": 1.0}}, [" x ", " 2 ", "a = 1"],
    ),
    "not-called": ({"node": "ab", "inputs": {"a": 1.0, "b": 4.5}}, [" ab ", "a = 1, b = 4.5"]),
    "not-hashable": (
        {"type": "TypeError", "message": "unhashable type: 'Value'"},
        ["TypeError", "unhashable type: 'Value'"],
    ),
    "prerequisite": ({"checks": ["add-builds-node", "mul-builds-node"]}, []),
    "not-built": ({"what": "a + b, a * b", "error": "AttributeError: no data"}, ["AttributeError"]),
    "grader-error": ({"reference": {"kind": "reference-pytest-exited",
                                    "params": {"code": 3, "output": "ModuleNotFoundError"}}},
                     [{"en": "pytest ended with exit code 3: ModuleNotFoundError",
                       "es": "pytest terminó con el código de salida 3: ModuleNotFoundError"}]),
    "reference-pytest-exited": ({"code": 3, "output": "E   ImportError"}, ["3", "E   ImportError"]),
    "reference-shard-timeout": ({"seconds": 300}, ["300 s"]),
    "reference-preparing": ({"error": "OSError: disk"}, ["OSError: disk"]),
    "reference-ended-early": ({}, []),
    "reference-check-raised": ({"type": "KeyError", "check": "add-builds-node", "stage": "call"},
                               ["`KeyError`", "add-builds-node", "`call`"]),
    "reference-exception": ({"type": "OSError", "message": "disk full"}, ["`OSError`", "disk full"]),
    "how-killed": ({"signal": "SIGKILL"}, ["SIGKILL"]),
    "how-exit-code": ({"code": "3"}, ["3"]),
    "how-already-ended": ({}, []),
    "how-ended": ({}, []),
    "how-kept-ending": ({}, []),
    "how-ended-importing": ({}, []),
    "quantity-before-call": ({"code": "[a.grad, b.grad]", "call": "backward()"},
                             ["`[a.grad, b.grad]`", "`backward()`"]),
    "quantity-after-call": ({"code": "q.grad", "call": "zero_grad(out)"},
                            ["`q.grad`", "`zero_grad(out)`"]),
    "quantity-when-runs": ({"code": "out.grad", "call": "out._backward"},
                           ["`out.grad`", "`out._backward`"]),
    "quantity-element-of": ({"code": "MLP(2, [1]).parameters()"}, ["`MLP(2, [1]).parameters()`"]),
    "quantity-type-of": ({"code": "train_xor(model)"}, ["`train_xor(model)`"]),
    "quantity-leaves-of": ({"code": "model.parameters()", "graph": "model(x)"},
                           ["`model.parameters()`", "`model(x)`"]),
    "quantity-operands-reached": ({"node": "out", "attribute": "_prev"}, ["`out`", "`_prev`"]),
    "input-every-grad": ({"code": "v.grad", "value": 1.5, "node": "v"}, ["`v.grad`", "1.5", "`v`"]),
    "missing-file": ({"file": "value.py"}, ["value.py"]),
    "ambiguous-file": ({"file": "value.py", "candidates": ["value.py", "old/value.py"]},
                       ["value.py", "old/value.py"]),
    "unreadable-submission": ({"reason": {"kind": "why-bad-zip", "params": {"error": "CRC"}}},
                              [{"en": "not a readable zip (CRC)", "es": "no es un zip legible (CRC)"}]),
    "why-symlink": ({"file": "value.py"}, ["value.py"]),
    "why-bad-zip": ({"error": "CRC"}, ["CRC"]),
    "why-zip-too-many-files": ({"limit": 200000}, ["200"]),
    "why-zip-too-large": ({"limit": 2147483648}, ["2"]),
    "why-zip-ratio": ({"limit": 100}, ["100"]),
    "why-zip-member": ({"file": "value.py", "error": "BadZipFile: Bad CRC-32"},
                       ["value.py", "BadZipFile: Bad CRC-32"]),
    "why-bad-notebook": ({"error": "JSON"}, ["JSON"]),
    "why-too-many-candidates": ({"file": "value.py", "count": 20000, "limit": 50},
                                ["value.py", "20000", "50"]),
    "why-notebook-too-deep": ({"limit": 100}, ["100"]),
    "why-intake-budget": ({"limit": 20}, ["20"]),
    "why-too-complex": ({"error": "RecursionError"}, ["RecursionError"]),
    "why-missing": ({"path": "a/b"}, ["a/b"]),
    "why-not-a-form": ({"file": "a.txt"}, ["a.txt"]),
    "too-large": ({"file": "value.py", "limit": 1000000}, ["value.py", "1000000"]),
    "derivative-confused": (
        {"quantity": "a.grad", "inputs": {"out": "a.tanh()", "a": 0.5}, "actual": 0.75,
         "read": "self.data", "instead": "out.data", "checks": ["tanh-derivative-uses-output"]},
        ["a.grad", "a = 0.5", "0.75", "self.data", "out.data"],
    ),
    "not-rejected": (
        {"expression": "a ** Value(k)", "inputs": {"a": 2.0, "k": 2}, "returned": "Value"},
        ["a ** Value(k)", "a = 2, k = 2", "Value"],
    ),
    "unclear-error": (
        {"expression": "a ** Value(k)", "inputs": {"a": 2.0}, "type": "AttributeError",
         "message": "no data", "accepted": "TypeError, ValueError"},
        ["a ** Value(k)", "AttributeError", "no data", "TypeError, ValueError"],
    ),
    "cycle-not-reported": ({"inputs": {"graph": "out = a * b; a._prev gets out"}}, ["a._prev"]),
    "cycle-unclear-error": (
        {"inputs": {"a": 1.5}, "type": "RecursionError", "message": "maximum recursion depth"},
        ["a = 1.5", "RecursionError", "maximum recursion depth"],
    ),
    "cycle-loops": ({"inputs": {"a": 1.5}, "seconds": 1}, ["a = 1.5", "1 s"]),
    "slow-walk": ({"inputs": {"depth": 40}, "nodes": 1623, "seconds": 1.5},
                  ["depth = 40", "1623", "1.5 s"]),
    "equal-data-raised": (
        {"inputs": {"graph": "p = a*c; q = b*c; out = p*q + a + p", "a": 1.5, "b": 1.5, "c": -2.0},
         "error": "ValueError: cycle", "other": 2.5},
        ["a = 1.5", "ValueError: cycle", "2.5"],
    ),
    "equal-data-merged": (
        {"inputs": {"graph": "p = a*c; q = b*c; out = p*q + a + p", "a": 1.5, "b": 1.5, "c": -2.0},
         "quantity": {"kind": "quantity-after-call",
                      "params": {"code": "q.grad", "call": "zero_grad(out)"}},
         "actual": 4.5, "expected": 0.0, "other": 2.5},
        [{"en": "`q.grad` after `zero_grad(out)`", "es": "`q.grad` después de `zero_grad(out)`"},
         "4.5", "2.5"],
    ),
    "distinct-data-fails": (
        {"graph": "p = a*c; q = b*c; out = p*q + a + p"},
        ["p = a*c; q = b*c; out = p*q + a + p"],
    ),
    "repeated-parameters": (
        {"quantity": "Layer(2, 4).parameters()", "inputs": {"random.seed": 0}, "count": 12,
         "distinct": 3},
        ["Layer(2, 4).parameters()", " 12 ", " 3 "],
    ),
    "parameters-not-identical": (
        {"call": "MLP(2, [4, 1]).parameters()", "same": 0, "total": 17},
        ["MLP(2, [4, 1]).parameters()", " 0 ", " 17 "],
    ),
    "update-not-in-model": (
        {"inputs": {"model": "MLP(2, [4, 1])", "x": [1.0, -1.0]}, "delta": 0.5, "actual": 0.25},
        ["`model = MLP(2, [4, 1])`, x = (1, -1)", "0.5", "0.25"],
    ),
    "train-no-backward": ({"inputs": {"random.seed": 3, "steps": 3}}, ["random.seed = 3, steps = 3"]),
    "parameter-not-updated": ({"inputs": {"random.seed": 3}, "index": 16}, ["random.seed = 3", "[16]"]),
    "not-a-gradient-step": (
        {"inputs": {"random.seed": 3}, "call": 1, "index": 4, "before": 0.5, "grad": 0.25,
         "expected": 0.45, "actual": 0.55},
        ["random.seed = 3", "1, `model.parameters()[4].data`", "0.5", "0.25", "0.45", "0.55"],
    ),
    "stale-gradient": (
        {"inputs": {"random.seed": 3}, "call": 2, "index": 5, "expected": 0.125, "actual": -0.375},
        ["random.seed = 3", "2, `model.parameters()[5]`", "0.125", "-0.375"],
    ),
    "data-changed-before-backward": (
        {"inputs": {"random.seed": 3}, "call": 2, "index": 7, "forward": 0.875, "actual": 0.625},
        ["random.seed = 3", " 2 ", "`model.parameters()[7].data`", "0.875", "0.625"],
    ),
    "xor-not-learned": (
        {"inputs": {"random.seed": 3, "steps": 150}, "actual": 0.25, "target": 0.05},
        ["random.seed = 3, steps = 150", "0.25", "0.05"],
    ),
    "session-sequential": ({"count": 3}, ["3"]),
    "state-not-the-cause": ({"program": "a = Value(2.0); out = 2 - a"}, ["`a = Value(2.0); out = 2 - a`"]),
    "shared-input-not-the-cause": ({"program": "a = Value(2.0); out = a.exp() * a.tanh()"},
                                   ["`a = Value(2.0); out = a.exp() * a.tanh()`"]),
    "session-sequential-collected": ({"count": 1}, ["1"]),
    "session-built-first": ({"count": 2}, ["2", "backward()"]),
    "session-interleaved": ({"count": 2}, ["2"]),
    "session-data-changed": ({"count": 2}, ["2", "`data`"]),
    "session-continued": ({"count": 2}, ["2", "`grad`"]),
    "result-moved": ({"session": {"kind": "session-data-changed", "params": {"count": 2}},
                      "programs": "a = Value(1.5); out = a * 2; out.backward()", "node": "out",
                      "number": 1}, ["`out`", "1", "`a = Value(1.5); out = a * 2; out.backward()`"]),
    "changed-in-place": ({"program": "a = Value(2.0); b = Value(3.0)", "operand": "a",
                          "expression": "t += b"},
                         ["`a = Value(2.0); b = Value(3.0)`", "`t = a; t += b`", "`a`"]),
    "keyword-node-wrong": ({"call": "Value(5.0, _children=(a, b))", "data": 0.0, "grad": 0.0},
                           ["`Value(5.0, _children=(a, b))`"]),
    "session-mismatch": (
        {"session": {"kind": "session-built-first", "params": {"count": 2}},
         "programs": "a = Value(1.5); out = a * 2; out.backward()", "number": 2,
         "differences": [{"quantity": "a.grad", "actual": 4.0, "expected": 2.0}],
         "source": "reference"},
        ["2", "`a = Value(1.5); out = a * 2; out.backward()`", "a.grad", "4"],
    ),
    "session-raised": (
        {"session": {"kind": "session-interleaved", "params": {"count": 2}},
         "programs": "a = Value(1.5); out = a.exp(); out.backward()",
         "error": "KeyError: 'x'"},
        ["`a = Value(1.5); out = a.exp(); out.backward()`", "KeyError: 'x'"],
    ),
    "returned-operand": ({"program": "a = Value(2.0)", "expression": "a ** 1",
                          "returned": "operand"}, ["`a = Value(2.0)`", "`a ** 1`"]),
    "returned-not-value": ({"program": "a = Value(2.0)", "expression": "a + 0",
                            "returned": "float"}, ["`a + 0`", "float"]),
    "graph-mismatch": (
        {"program": "a = Value(1.5); out = a * a; out.backward()",
         "differences": [{"quantity": "a.grad", "actual": 1.5, "expected": 3.0}],
         "source": "reference",
         "finding": {"kind": "finding-partial", "params": {"node": "a", "uses": 2}}},
        ["`a = Value(1.5); out = a * a; out.backward()`", "a.grad", "1.5", "3", " a "],
    ),
    "graph-raised": ({"program": "a = Value(1.5); out = 2 * a", "error": "TypeError: no"},
                     ["`a = Value(1.5); out = 2 * a`", "TypeError: no"]),
    "finding-raised": ({"error": "TypeError: no"}, ["TypeError: no"]),
    "finding-repeated": ({"node": "t1", "count": 2}, ["t1", "2"]),
    "finding-not-called": ({"node": "t1"}, ["t1"]),
    "finding-order": ({"node": "t1", "consumer": "t2"}, ["t1", "t2"]),
    "finding-seed": ({"node": "out"}, ["out"]),
    "finding-partial": ({"node": "a", "uses": 2}, ["a", "2"]),
    "finding-no-upstream": ({"node": "a"}, [" a"]),
    "finding-local": ({"node": "a", "users": "t1, t2"}, ["a", "t1, t2"]),
    "finding-data": ({"node": "t1"}, ["t1.data"]),
    "op-label-empty": ({"expression": "a + b", "inputs": {"a": 1.5, "b": 2.5}},
                       ["a + b", "a = 1.5, b = 2.5"]),
    "op-labels-equal": ({"actual": "+", "inputs": {"a": 1.5}}, ["'+'", "a = 1.5"]),
    "false-cycle": ({"type": "ValueError", "message": "cycle at x",
                     "where": [{"file": "value.py", "line": 9}]},
                    ["ValueError", "cycle at x", {"en": "value.py, line 9", "es": "value.py, línea 9"}]),
    "walk-compares-nodes": ({"inputs": {"n": 100000}, "seconds": 5, "sizes": [200, 800],
                             "comparisons": [19900, 319600]},
                            ["n = 100000", "5 s", "200", "319600"]),
    "backward-replaced": ({"inputs": {"a": 2.0}, "node": "out"}, ["a = 2", "`out`"]),
    "graph-cut": ({"inputs": {"x": [1.0, -1.0]}, "count": 12, "total": 17}, ["12", "17"]),
    "random-drawn-in-training": ({"inputs": {"random.seed": 7}}, ["random.seed = 7"]),
    "argument-changed": ({"inputs": {"nin": 2}, "call": "MLP(2, nouts)", "name": "nouts",
                          "before": "[4, 1]", "after": "[2, 4, 1]"},
                         ["nin = 2", "MLP(2, nouts)", "nouts", "[4, 1]", "[2, 4, 1]"]),
    "import-timeout": ({"file": "value.py", "seconds": 5}, ["value.py", "5 s"]),
    "import-crash": ({"file": "value.py", "how": {"kind": "how-exit-code", "params": {"code": "3"}}},
                     ["value.py", {"en": "exit code 3", "es": "código de salida 3"}]),
    "submission-problem": ({"problem": "import-error"}, []),
    "slow-zero-grad": ({"inputs": {"depth": 40}, "nodes": 123, "seconds": 1.5},
                       ["depth = 40", "123", "1.5 s"]),
    "prev-missing": ({"expression": "a * b", "inputs": {"a": 2.0}},
                     ["`a * b`", "a = 2", "_prev"]),
    "op-label-missing": ({"expression": "a + b", "inputs": {"a": 2.0}},
                         ["`a + b`", "a = 2", "_op"]),
    "op-label-not-text": ({"expression": "x + y", "actual_type": "NoneType", "inputs": {"x": 2.0}},
                          ["`x + y`", "x = 2", "NoneType", "_op"]),
    "cycle-needs-parents": ({"inputs": {"a": 2.0}}, ["a = 2", "_prev", "`a * b`"]),
    "second-walk-skips": ({"inputs": {"a": 2.0}, "node": "out", "first": 1, "second": 0},
                          ["a = 2", "out._backward", "1", "0"]),
    "backward-never-returns": ({"seconds": 2.0}, ["2 s"]),
    "backward-changes-nothing": ({"inputs": {"a": 2.0}, "actual": 0.0}, ["a = 2", "0"]),
    "backward-walks-nothing": ({"inputs": {"a": 2.0}, "actual": 1.0}, ["a = 2", "1"]),
}
FLAG_SAMPLES: dict[str, tuple[dict[str, Any], str]] = {
    "forbidden-import": ({"module": "torch"}, "torch"),
    "forbidden-call": ({"call": "os.system"}, "os.system"),
    "protocol-breach": ({"reason": "wrote to the result channel twice"}, "twice"),
}


def load_doc(name: str) -> dict[str, Any]:
    """Load a sample score document from tests/data."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("kind", sorted(DETAIL_SAMPLES))
def test_every_detail_kind_renders_with_all_its_params(kind: str, lang: str) -> None:
    catalogue = Catalogue.load(lang)
    params, fragments = DETAIL_SAMPLES[kind]
    text = describe_detail({"kind": kind, "params": params}, catalogue)
    assert "{" not in text and "}" not in text, text
    for fragment in fragments:
        shown = in_language(fragment, lang)
        assert shown in text, f"{shown!r} not in {text!r}"
    if lang == "es":  # the catalogue's words: the sample's own texts (Python's) left out
        words = english_words(functools.reduce(lambda t, v: t.replace(v, " "),
                                               sorted(_strings(params), key=len, reverse=True),
                                               text))
        assert words == [], f"English in a Spanish detail: {text!r}"


def _strings(value: Any) -> list[str]:
    """Every string inside a sample's parameters."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


def in_language(fragment: str | dict[str, str], lang: str) -> str:
    """A sample fragment as the language shows it: a {lang: text} fragment is that language's
    own; outside code spans, Spanish writes a decimal comma, and then separates the items of a
    list with "; "."""
    if isinstance(fragment, dict):
        return fragment[lang]
    if lang == "en":
        return fragment
    parts = re.split(r"(`[^`]*`)", fragment)
    for index in range(0, len(parts), 2):
        part = re.sub(r"(?<=\d)\.(?=\d)", ",", parts[index])
        parts[index] = part.replace(", ", "; ") if re.search(r"\d,\d", part) else part
    return "".join(parts)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalogued_detail_kind_has_a_sample_here(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    kinds = {key.split(".")[1] for key in catalogue.entries if key.startswith("details.")}
    assert kinds == set(DETAIL_SAMPLES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_source_is_named_in_the_catalogue_language(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    params, _ = DETAIL_SAMPLES["mismatch"]
    text = describe_detail({"kind": "mismatch", "params": params}, catalogue)
    assert catalogue.text("sources.central-difference") in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_prerequisite_names_the_titles_of_the_checks(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    detail = {"kind": "prerequisite", "params": {"checks": ["add-builds-node", "value-hashable"]}}
    text = describe_detail(detail, catalogue)
    for check_id in ("add-builds-node", "value-hashable"):
        assert check_title(check_id, catalogue).rstrip(".") in text


def test_sequences_are_formatted_as_tuples_of_short_numbers() -> None:
    detail = {"kind": "mismatch", "params": {
        "quantity": "(a.grad, b.grad)", "inputs": {"a": 0.1}, "expected": [1.5, -2.0],
        "actual": (2 / 3, 0.0), "source": "reference"}}
    text = describe_detail(detail, Catalogue.load("en"))
    assert "is (0.666667, 0); expected (1.5, -2)" in text


def test_string_values_are_quoted_so_labels_stand_out() -> None:
    detail = {"kind": "mismatch", "params": {
        "quantity": "c._op", "inputs": {"a": 2.0, "b": 3.0}, "expected": "*", "actual": "",
        "source": "literal"}}
    text = describe_detail(detail, Catalogue.load("en"))
    assert "`c._op` is ''; expected '*' (worked out by hand)" in text


def test_empty_inputs_read_as_no_inputs() -> None:
    detail = {"kind": "not-called", "params": {"node": "a", "inputs": {}}}
    assert describe_detail(detail, Catalogue.load("en")).startswith("With no inputs,")


@pytest.mark.parametrize("where", ["", None])
def test_exception_without_a_location_has_no_dangling_parenthesis(where: str | None) -> None:
    params = {"type": "ValueError", "message": "bad"}
    if where is not None:
        params["where"] = where
    text = describe_detail({"kind": "exception", "params": params}, Catalogue.load("en"))
    assert text == "Your code raised ValueError: bad"


@pytest.mark.parametrize("actual", [
    {"kind": "Neuron", "args": [2]},                 # a network's description (bench/mutation.py, lab04)
    {"kind": "mismatch", "params": {}},              # student data shaped like a detail
])
def test_a_mapping_value_with_a_kind_is_shown_as_a_value(actual: dict) -> None:
    detail = {"kind": "mismatch", "params": {
        "quantity": "model", "inputs": {}, "expected": 1.0, "actual": actual,
        "source": "reference", "net": {"kind": "MLP", "args": [2, [4, 1]]}}}
    text = describe_detail(detail, Catalogue.load("en"))
    assert f"kind = {actual['kind']!r}" in text and "expected 1" in text


def test_unknown_detail_kind_is_an_error() -> None:
    with pytest.raises(KeyError, match="no-such-kind"):
        describe_detail({"kind": "no-such-kind", "params": {}}, Catalogue.load("en"))


def test_missing_detail_parameter_is_an_error_naming_it() -> None:
    with pytest.raises(KeyError, match="expected"):
        describe_detail(
            {"kind": "mismatch", "params": {"quantity": "a.grad", "inputs": {}, "actual": 1,
                                           "source": "reference"}},
            Catalogue.load("en"),
        )


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("flag_id", sorted(FLAG_SAMPLES))
def test_every_flag_renders_in_both_languages(flag_id: str, lang: str) -> None:
    params, fragment = FLAG_SAMPLES[flag_id]
    text = describe_flag({"id": flag_id, "params": params}, Catalogue.load(lang))
    assert fragment in text and "{" not in text


def test_check_and_pitfall_texts_differ_between_languages() -> None:
    en, es = Catalogue.load("en"), Catalogue.load("es")
    assert check_title("diamond-accumulates", en) != check_title("diamond-accumulates", es)
    assert check_hint("diamond-accumulates", en) != check_hint("diamond-accumulates", es)
    assert "diamond pattern" in pitfall_section("grad-overwrite", en)
    assert "patrón en diamante" in pitfall_section("grad-overwrite", es)


def test_format_value_formats_named_values() -> None:
    assert format_value({"a": 1.5, "b": -2}) == "a = 1.5, b = -2"
    assert format_value([1.5, -2]) == "(1.5, -2)"


def test_localising_an_english_document_to_spanish_rewrites_its_texts() -> None:
    doc = load_doc("score_mixed")
    es = Catalogue.load("es")
    localised = localise_document(doc, es)
    assert localised["lang"] == "es"
    for original, check in zip(doc["checks"], localised["checks"], strict=True):
        assert check["title"] == check_title(check["id"], es)
        assert check["section"] == pitfall_section(check["pitfall"], es)
        assert bool(check["hint"]) == bool(original["hint"])
        if check["detail"]:
            assert check["message"] == describe_detail(check["detail"], es)
    assert localised["flags"][0]["text"] == describe_flag(doc["flags"][0], es)


def test_localising_leaves_the_original_document_untouched() -> None:
    doc = load_doc("score_mixed")
    before = json.dumps(doc, sort_keys=True)
    localise_document(doc, Catalogue.load("es"))
    assert json.dumps(doc, sort_keys=True) == before


def test_localising_keeps_the_text_of_a_check_the_catalogue_does_not_know() -> None:
    doc = load_doc("score_mixed")
    doc["checks"][0]["id"] = "check-from-a-newer-suite"
    localised = localise_document(doc, Catalogue.load("es"))
    assert localised["checks"][0]["title"] == doc["checks"][0]["title"]


def test_localising_the_reason_of_an_ungradable_document() -> None:
    doc = load_doc("score_ungradable")
    localised = localise_document(doc, Catalogue.load("es"))
    assert localised["reason"]["text"] == "Falta value.py en la entrega."


def test_numbers_that_differ_are_shown_with_the_digits_that_tell_them_apart() -> None:
    detail = {"kind": "mismatch", "params": {
        "quantity": "a.data", "inputs": {"a": 1.0}, "expected": -1.0,
        "actual": -0.9999999999999999, "source": "literal"}}
    text = describe_detail(detail, Catalogue.load("en"))
    assert "`a.data` is -0.9999999999999999; expected -1 " in text, text


def test_numbers_that_read_apart_keep_six_digits() -> None:
    detail = {"kind": "mismatch", "params": {
        "quantity": "a.grad", "inputs": {"a": 1.0}, "expected": 2.0, "actual": 1 / 3,
        "source": "literal"}}
    assert "`a.grad` is 0.333333; expected 2 " in describe_detail(detail, Catalogue.load("en"))


def test_graph_differences_show_the_digits_that_tell_them_apart() -> None:
    detail = {"kind": "graph-mismatch", "params": {
        "program": "out = a * b", "source": "reference", "finding": "",
        "differences": [{"quantity": "a.grad", "actual": 3.0000001, "expected": 3.0}]}}
    text = describe_detail(detail, Catalogue.load("en"))
    assert "3.0000001" in text and "3.0000001 (expected 3)" in text, text


def test_a_finding_with_its_own_hint_replaces_the_checks_hint() -> None:
    catalogue = Catalogue.load("en")
    detail = {"kind": "second-walk-skips", "params": {}}
    assert check_hint("backward-twice-accumulates", catalogue, detail) == catalogue.text(
        "details.second-walk-skips.hint")
    assert check_hint("backward-twice-accumulates", catalogue, {"kind": "mismatch"}) == \
        catalogue.text("checks.backward-twice-accumulates.hint")
