"""Tests for grader/results/score.schema.json: the sample score documents and what it rejects."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = json.loads((ROOT / "grader" / "results" / "score.schema.json").read_text("utf-8"))
DATA = ROOT / "tests" / "data"
SAMPLES = ("score_all_passed", "score_mixed", "score_ungradable", "score_grader_error",
           "score_graphs")


def load_doc(name: str) -> dict[str, Any]:
    """Load a sample score document from tests/data."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def validator() -> jsonschema.Draft202012Validator:
    """Return a draft 2020-12 validator for the score schema, checking formats too."""
    return jsonschema.Draft202012Validator(
        SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("sample", SAMPLES)
def test_sample_documents_validate(sample: str) -> None:
    errors = [error.message for error in validator().iter_errors(load_doc(sample))]
    assert errors == []


def set_path(path: tuple[str | int, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    """Return an edit that sets the item at path in a document."""

    def edit(doc: dict[str, Any]) -> None:
        target: Any = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return edit


def add_reason(doc: dict[str, Any]) -> None:
    """Give a graded document a reason, which only ungradable documents have."""
    doc["reason"] = {"kind": "missing-file", "params": {"file": "value.py"}, "text": "x"}


BROKEN: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "bad status": ("score_mixed", set_path(("status",), "done")),
    "bad check status": ("score_mixed", set_path(("checks", 0, "status"), "ok")),
    "extra top-level key": ("score_mixed", set_path(("comment",), "hi")),
    "extra check key": ("score_mixed", set_path(("checks", 0, "points"), 1)),
    "negative score": ("score_mixed", set_path(("score",), -1.0)),
    "negative check score": ("score_mixed", set_path(("checks", 4, "score"), -0.5)),
    "id not kebab-case": ("score_mixed", set_path(("checks", 0, "id"), "Add_Builds")),
    "pitfall not kebab-case": ("score_mixed", set_path(("checks", 0, "pitfall"), "grad overwrite")),
    "bad visibility": ("score_mixed", set_path(("checks", 0, "visibility"), "secret")),
    "passed check with a detail": (
        "score_mixed", set_path(("checks", 0, "detail"), {"kind": "mismatch", "params": {}})),
    "passed check with a message": ("score_mixed", set_path(("checks", 0, "message"), "x")),
    "failed check without a detail": ("score_mixed", set_path(("checks", 4, "detail"), None)),
    "graded with a reason": ("score_mixed", add_reason),
    "ungradable without a reason": ("score_ungradable", set_path(("reason",), None)),
    "reason without text": ("score_ungradable", set_path(("reason", "text"), "")),
    "duplicate pitfalls": ("score_mixed", set_path(("pitfalls",), ["hash-trap", "hash-trap"])),
    "bad digest": ("score_mixed", set_path(("submission", "digest"), "md5:abc")),
    "unknown language": ("score_mixed", set_path(("lang",), "fr")),
    "bad schema version": ("score_mixed", set_path(("schema_version",), "2.0")),
    "schema 1.0 (no isolation yet)": ("score_mixed", set_path(("schema_version",), "1.0")),
    "unknown isolation level": ("score_mixed", set_path(("isolation", "level"), "sandboxed")),
    "unknown way into the jail": ("score_mixed", set_path(("isolation", "how"), "docker")),
    "isolation without memory": ("score_mixed", set_path(("isolation",), {"level": "jail",
                                                                           "how": "root"})),
    "graded_at not UTC": ("score_mixed", set_path(("graded_at",), "2026-11-29 23:59")),
    "flag without text": ("score_mixed", set_path(("flags", 0, "text"), "")),
    "output not a string": ("score_mixed", set_path(("checks", 5, "output"), ["line"])),
    "graph without nodes": ("score_graphs", set_path(("checks", 5, "detail", "graph", "nodes"), [])),
    "graph node without wrong": (
        "score_graphs", set_path(("checks", 5, "detail", "graph", "nodes", 0, "wrong"), None)),
    "graph node grad a string": (
        "score_graphs", set_path(("checks", 5, "detail", "graph", "nodes", 0, "grad"), "1.0")),
    "graph edge without to": (
        "score_graphs", set_path(("checks", 5, "detail", "graph", "edges", 0), {"from": "a"})),
    "graph with an extra key": ("score_graphs", set_path(("checks", 5, "detail", "graph", "x"), 1)),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_documents_fail_validation(case: str) -> None:
    sample, edit = BROKEN[case]
    doc = copy.deepcopy(load_doc(sample))
    edit(doc)
    assert not validator().is_valid(doc), f"{case} was accepted"


@pytest.mark.parametrize("key", sorted(SCHEMA["required"]))
def test_every_top_level_key_is_required(key: str) -> None:
    doc = load_doc("score_mixed")
    del doc[key]
    assert not validator().is_valid(doc)
