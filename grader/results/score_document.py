"""The score document as typed records: `parse` a document's JSON, read its fields, `to_json` it back.

Side: trusted process. `score.schema.json` says what a document may hold; these frozen
dataclasses say the same in Python, one record per object of the schema (tests/results/
test_score_document.py holds the two together, property by property). The JSON dict stays
what is written to disk and handed between processes; code that reads a document parses it
once, where it is read or built, and reads attributes from then on: a misspelt field is a
type error, not a `KeyError` in a student's report.

A property the schema marks optional is a field that defaults to None and is left out of the
JSON when None (none of them may be null); a required one has no default and is always
written, null included. Free-form objects (a detail's `params`, a config's weights) stay
mappings. Fields are written in the order `grader.results.build` writes them, so
`to_json(parse(doc))` is the same document, key order included.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, TypeVar, Union, get_args, get_origin, get_type_hints

CheckStatus = Literal["passed", "failed", "not-run", "error"]
DocumentStatus = Literal["graded", "ungradable", "grader-error"]
Language = Literal["en", "es"]



class DocumentError(ValueError):
    """A score document that is not shaped as the schema says (a key missing, unknown or of
    the wrong type), named by where in the document it is."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class OtherLab:
    """Another lab's file handed in for this lab, and what in the file says so (`other_lab`)."""

    lab: str
    evidence: tuple[Literal["given", "header", "todo"], ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Submission:
    """Who handed the code in and where it came from (`submission`)."""

    id: str
    source: str
    digest: str
    student_id: str | None = None
    name: str | None = None
    lms: str | None = None  # a target's or platform's name (the registries), or folders
    late: bool | None = None
    submitted_at: str | None = None
    duplicates: tuple[str, ...] | None = None
    notebook: str | None = None
    unchecked: tuple[str, ...] | None = None
    other_lab: OtherLab | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Isolation:
    """How the submission's code was kept from the rest of the machine (`isolation`)."""

    level: Literal["jail", "uid", "limits", "none"]
    how: Literal["root", "userns", "setuid", "none", "in-process"]
    memory: Literal["cgroup", "process-count", "per-process", "none"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Reason:
    """Why an ungradable or grader-error document has no score: a detail and its sentence."""

    kind: str
    params: Mapping[str, Any]
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Problem:
    """Why the lab's module could not be loaded at all (`problem`)."""

    kind: Literal["import-error", "import-timeout", "import-crash"]
    file: str
    line: int | None
    message: str
    params: Mapping[str, Any]
    output: str | None
    cell: int | None = None
    first_line: str | None = None
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """The course file whose weights the document was scored with (`config`)."""

    source: str
    weights: Mapping[str, float]
    pitfall_weights: Mapping[str, float]


@dataclasses.dataclass(frozen=True, kw_only=True)
class GraphNode:
    """One node of a check's graph: its value, its gradient and the reference's."""

    name: str
    op: str
    data: float | None
    grad: float | None
    expected_grad: float | None
    wrong: bool


@dataclasses.dataclass(frozen=True, kw_only=True)
class GraphEdge:
    """One use of a parent: from the parent to the node built from it (JSON `from`, `to`)."""

    parent: str = dataclasses.field(metadata={"json": "from"})
    to: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Graph:
    """The computation graph a check is about (`detail.graph`)."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    output: str | None = None
    calls: tuple[str, ...] | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Detail:
    """What happened in a check, as data: a kind, its params, and maybe the graph."""

    kind: str
    params: Mapping[str, Any]
    graph: Graph | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Check:
    """One check's result (`checks[i]`)."""

    id: str
    title: str
    pitfall: str
    status: CheckStatus
    score: float
    max_score: float
    visibility: Literal["public", "hidden"]
    message: str
    hint: str
    detail: Detail | None
    output: str | None
    section: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Flag:
    """A policy note beside the verdict (`flags[i]`); flags never change a score."""

    id: str
    text: str
    params: Mapping[str, Any]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Options:
    """The grading options that change a report (`options`, recorded by a class's grading)."""

    seed: str
    public_only: bool
    config: str | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Lateness:
    """How late the attempt was under the course's policy (`semester.late`)."""

    seconds: float | None
    late_days_used: int
    percent: float
    capped: bool
    accepted: bool
    lms_late: bool | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Semester:
    """What the semester's ledger added after grading (`semester`): the attempt's time and
    lateness, its score after overrides and the penalty, the grade that counts."""

    submitted_at: str | None
    time_source: str | None
    late: Lateness
    score: float
    max_score: float
    penalised_score: float
    counts: bool
    counted_score: float
    extension: Mapping[str, Any] | None
    override: Mapping[str, Any] | None
    check_overrides: tuple[Mapping[str, Any], ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ScoreDocument:
    """The canonical result of grading one submission for one lab."""

    schema_version: str
    grader_version: str
    lab: str
    lang: Language
    submission: Submission
    isolation: Isolation | None  # None: not recorded (a document of schema 1.0, EARLIER_SCHEMAS)
    status: DocumentStatus
    reason: Reason | None
    problem: Problem | None
    config: Config | None
    score: float
    max_score: float
    checks: tuple[Check, ...]
    pitfalls: tuple[str, ...]
    flags: tuple[Flag, ...]
    duration_s: float
    graded_at: str
    options: Options | None = None
    semester: Semester | None = None  # added by the semester's ledger after grading

    @property
    def graded(self) -> bool:
        """The checks ran (the status is `graded`), whatever they found."""
        return self.status == "graded"


Record = TypeVar("Record")
# What a document of an earlier schema did not record, read as None: 1.0 had no isolation, and
# neither 1.0 nor 1.1 a problem or a config (their import failures are the checks' details).
# Readers of stored documents (the dashboard, the class summary) still read them.
EARLIER_SCHEMAS: Mapping[str, tuple[str, ...]] = {"1.0": ("isolation", "problem", "config"),
                                                  "1.1": ("problem", "config")}
# A document as a reader may be handed it: already typed, or its JSON (as written to disk).
Document: TypeAlias = ScoreDocument | Mapping[str, Any]


def parse(document: Mapping[str, Any]) -> ScoreDocument:
    """The typed records of a score document's JSON; DocumentError if it is not shaped so."""
    if not isinstance(document, Mapping):
        raise DocumentError(f"the document: an object expected, not {_kind(document)}")
    missing = EARLIER_SCHEMAS.get(str(document.get("schema_version")), ())
    if any(key not in document for key in missing):
        document = {**{key: None for key in missing}, **document}
    return parse_record(ScoreDocument, document)


def as_document(document: Document) -> ScoreDocument:
    """The document typed: itself when it already is, else parsed from its JSON."""
    return document if isinstance(document, ScoreDocument) else parse(document)


def as_record(record: type[Record], value: Record | Mapping[str, Any]) -> Record:
    """A part of a document typed (a check, a problem, ...): itself when it already is, else
    parsed from its JSON."""
    return value if isinstance(value, record) else parse_record(record, value)


def parse_record(record: type[Record], value: Any, where: str = "") -> Record:
    """One record of the document (a check, a detail, ...) from its JSON object."""
    if not isinstance(value, Mapping):
        raise DocumentError(f"{where or 'the document'}: an object expected, not {_kind(value)}")
    fields = _fields(record)
    unknown = set(value) - {key for key, _, _, _ in fields}
    if unknown:
        raise DocumentError(f"{where or 'the document'}: unknown key(s) {sorted(unknown)}")
    arguments: dict[str, Any] = {}
    for key, name, hint, optional in fields:
        if key not in value:
            if optional:
                continue
            raise DocumentError(f"{where or 'the document'}: key {key!r} missing")
        arguments[name] = _decode(hint, value[key], f"{where}.{key}" if where else key)
    return record(**arguments)


def to_json(record: Any) -> dict[str, Any]:
    """A record (the document or any part of it) as its JSON object, optional keys left out
    when None."""
    written: dict[str, Any] = {}
    for key, name, _, optional in _fields(type(record)):
        value = getattr(record, name)
        if value is None and optional:
            continue
        written[key] = _encode(value)
    return written


def to_json_or_none(record: Any) -> dict[str, Any] | None:
    """A record's JSON object (to_json), or None for no record."""
    return None if record is None else to_json(record)


# The JSON key, the field's name, its type, and whether the key may be left out.
_Field = tuple[str, str, Any, bool]


_FIELDS: dict[type, tuple[_Field, ...]] = {}  # a cache: each record's fields, read once


def _fields(record: type) -> tuple[_Field, ...]:
    if record not in _FIELDS:
        hints = get_type_hints(record)
        _FIELDS[record] = tuple((field.metadata.get("json", field.name), field.name,
                                 hints[field.name], field.default is None)
                                for field in dataclasses.fields(record))
    return _FIELDS[record]


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json(value)
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if isinstance(value, Mapping):
        return dict(value)
    return value


def _decode(hint: Any, value: Any, where: str) -> Any:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(hint):
            return None
        (inner,) = [arg for arg in get_args(hint) if arg is not type(None)]
        return _decode(inner, value, where)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return parse_record(hint, value, where)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise DocumentError(f"{where}: a list expected, not {_kind(value)}")
        item_hint = get_args(hint)[0]
        return tuple(_decode(item_hint, item, f"{where}[{index}]")
                     for index, item in enumerate(value))
    if origin is Literal:
        if value not in get_args(hint):
            raise DocumentError(f"{where}: {value!r} is not one of {list(get_args(hint))}")
        return value
    if origin is Mapping:
        if not isinstance(value, Mapping):
            raise DocumentError(f"{where}: an object expected, not {_kind(value)}")
        return value
    if not _is_a(hint, value):
        raise DocumentError(f"{where}: {hint.__name__} expected, not {_kind(value)}")
    return value


def _is_a(hint: type, value: Any) -> bool:
    """value is of the scalar type: a bool is not a number; an int is a float's number."""
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
