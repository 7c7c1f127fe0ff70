"""Tests for grader/results/score_document.py: the records hold what score.schema.json says,
property by property, and every sample document goes through them and back unchanged.

(Every fixture's graded document goes through them too: tests/test_lab_fixtures.py,
`test_every_document_round_trips_through_the_typed_records`.)
"""

from __future__ import annotations

import copy
import dataclasses
import json
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest

from grader.results.score_document import (
    DocumentError,
    ScoreDocument,
    parse,
    to_json,
)

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = json.loads((ROOT / "grader" / "results" / "score.schema.json").read_text("utf-8"))
DATA = ROOT / "tests" / "data"
SAMPLES = sorted(path.stem for path in DATA.glob("score_*.json"))


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """A subschema with its `$ref` followed (all refs of this schema are local `$defs`)."""
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def object_schema(node: dict[str, Any]) -> dict[str, Any] | None:
    """The object a (resolved) subschema holds, through `oneOf: [null, object]`; None if it
    holds no object with properties."""
    node = resolve(node)
    if "properties" in node:
        return node
    for option in node.get("oneOf", []):
        found = object_schema(option)
        if found is not None:
            return found
    return None


def nullable(node: dict[str, Any]) -> bool:
    """The subschema admits null."""
    node = resolve(node)
    kinds = node.get("type")
    return (kinds == "null" or (isinstance(kinds, list) and "null" in kinds)
            or any(nullable(option) for option in node.get("oneOf", [])))


def without_none(hint: Any) -> tuple[Any, bool]:
    """The type inside `X | None`, and whether None was there."""
    if get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint):
        (inner,) = [arg for arg in get_args(hint) if arg is not type(None)]
        return inner, True
    return hint, False


def record_of(hint: Any) -> type | None:
    """The record a field holds (itself, or the items of its tuple), if any."""
    inner, _ = without_none(hint)
    if get_origin(inner) is tuple:
        inner = get_args(inner)[0]
    return inner if dataclasses.is_dataclass(inner) else None


def item_schema(node: dict[str, Any]) -> dict[str, Any]:
    """The schema of a property's items when it is an array, else itself."""
    node = resolve(node)
    return resolve(node["items"]) if node.get("type") == "array" else node


def pairs() -> list[tuple[str, type, dict[str, Any]]]:
    """Every (where, record, object schema) pair, from the document down."""
    found: list[tuple[str, type, dict[str, Any]]] = []

    def visit(where: str, record: type, schema: dict[str, Any]) -> None:
        found.append((where, record, schema))
        hints = get_type_hints(record)
        for field in dataclasses.fields(record):
            key = field.metadata.get("json", field.name)
            inner = record_of(hints[field.name])
            if inner is not None and key in schema["properties"]:
                sub = object_schema(item_schema(schema["properties"][key]))
                assert sub is not None, f"{where}.{key}: a record where the schema has no object"
                visit(f"{where}.{key}", inner, sub)

    visit("document", ScoreDocument, SCHEMA)
    return found


PAIRS = pairs()


def test_every_object_of_the_schema_has_a_record() -> None:
    visited = {where for where, _, _ in PAIRS}
    expected = {"document", "document.submission", "document.options", "document.isolation",
                "document.reason", "document.problem", "document.config", "document.checks",
                "document.checks.detail", "document.checks.detail.graph",
                "document.checks.detail.graph.nodes", "document.checks.detail.graph.edges",
                "document.flags", "document.semester", "document.semester.late",
                "document.submission.other_lab"}
    assert visited == expected, f"records visited {sorted(visited)}"


@pytest.mark.parametrize(("where", "record", "schema"), PAIRS, ids=[p[0] for p in PAIRS])
def test_record_fields_are_the_schema_properties(where: str, record: type,
                                                 schema: dict[str, Any]) -> None:
    fields = {field.metadata.get("json", field.name): field for field in dataclasses.fields(record)}
    assert sorted(fields) == sorted(schema["properties"]), (
        f"{where}: fields {sorted(fields)} vs schema properties {sorted(schema['properties'])}")
    assert schema.get("additionalProperties") is False, f"{where}: the schema admits other keys"
    optional = {key for key, field in fields.items() if field.default is None}
    required = set(fields) - optional
    assert required == set(schema["required"]), (
        f"{where}: required fields {sorted(required)} vs schema {sorted(schema['required'])}")


# Fields that take None where the current schema has no null, each with its reason.
NONE_OF_EARLIER_SCHEMAS = {"document.isolation": "not recorded: a document of schema 1.0"}


@pytest.mark.parametrize(("where", "record", "schema"), PAIRS, ids=[p[0] for p in PAIRS])
def test_record_fields_take_null_and_enums_as_the_schema_does(
        where: str, record: type, schema: dict[str, Any]) -> None:
    hints = get_type_hints(record)
    for field in dataclasses.fields(record):
        key = field.metadata.get("json", field.name)
        inner, takes_none = without_none(hints[field.name])
        prop = resolve(schema["properties"][key])
        if f"{where}.{key}" in NONE_OF_EARLIER_SCHEMAS:
            assert takes_none and not nullable(prop), f"{where}.{key}: no longer an exception"
        elif key in schema["required"]:
            assert takes_none == nullable(prop), (
                f"{where}.{key}: the field takes None: {takes_none}, the schema null: "
                f"{nullable(prop)}")
        else:
            assert not nullable(prop), f"{where}.{key}: optional yet nullable in the schema"
        if "enum" in prop:
            assert get_origin(inner) is Literal and set(get_args(inner)) == set(prop["enum"]), (
                f"{where}.{key}: {inner} vs the schema's enum {prop['enum']}")


@pytest.mark.parametrize("sample", SAMPLES)
def test_sample_document_round_trips(sample: str) -> None:
    # The samples are written by hand (score_graphs.json's graph has `calls` before `output`);
    # the key order of documents the grader writes is kept too (tests/test_lab_fixtures.py).
    doc = json.loads((DATA / f"{sample}.json").read_text(encoding="utf-8"))
    assert to_json(parse(doc)) == doc, f"{sample} changed going through the records"


def test_options_round_trip_after_the_other_keys() -> None:
    doc = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    doc["options"] = {"seed": "sha256:" + "0" * 16, "public_only": False}
    parsed = parse(doc)
    assert parsed.options is not None and parsed.options.config is None
    assert json.dumps(to_json(parsed)) == json.dumps(doc)


@pytest.mark.parametrize(("version", "missing"), [("1.0", ("isolation", "problem", "config")),
                                                  ("1.1", ("problem", "config"))])
def test_a_document_of_an_earlier_schema_reads_what_it_lacks_as_none(
        version: str, missing: tuple[str, ...]) -> None:
    doc = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    doc["schema_version"] = version
    for key in missing:
        del doc[key]
    parsed = parse(doc)
    assert all(getattr(parsed, key) is None for key in missing), f"schema {version}"
    doc["schema_version"] = "1.2"
    with pytest.raises(DocumentError):
        parse(doc)


def broken(edit: str) -> dict[str, Any]:
    """score_graphs.json with one edit that the records refuse."""
    doc = copy.deepcopy(json.loads((DATA / "score_graphs.json").read_text(encoding="utf-8")))
    failed = next(c for c in doc["checks"] if c["detail"] and "graph" in c["detail"])
    if edit == "unknown key":
        doc["grade"] = 3
    elif edit == "missing key":
        del doc["checks"][0]["title"]
    elif edit == "wrong status":
        doc["checks"][0]["status"] = "pass"
    elif edit == "score as text":
        doc["score"] = "12"
    elif edit == "checks not a list":
        doc["checks"] = {}
    elif edit == "edge without from":
        del failed["detail"]["graph"]["edges"][0]["from"]
    elif edit == "wrong as a number":
        failed["detail"]["graph"]["nodes"][0]["wrong"] = 0
    return doc


@pytest.mark.parametrize("edit", ["unknown key", "missing key", "wrong status", "score as text",
                                  "checks not a list", "edge without from",
                                  "wrong as a number"])
def test_parse_refuses_a_document_not_shaped_as_the_schema(edit: str) -> None:
    with pytest.raises(DocumentError):
        parse(broken(edit))


def test_an_edge_reads_its_parent_from_the_from_key() -> None:
    doc = json.loads((DATA / "score_graphs.json").read_text(encoding="utf-8"))
    parsed = parse(doc)
    graph = next(c.detail.graph for c in parsed.checks if c.detail and c.detail.graph)
    raw = next(c["detail"]["graph"] for c in doc["checks"]
               if c["detail"] and "graph" in c["detail"])
    assert [(e.parent, e.to) for e in graph.edges] == [(e["from"], e["to"]) for e in raw["edges"]]
