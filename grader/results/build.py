"""Building every score document: graded (from a pytest-json-report run), ungradable, grader-error."""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from typing import Any

from grader import __version__
from grader.common.text import clean_text, clean_value
from grader.results.i18n import Catalogue
from grader.results.messages import (
    check_hint,
    check_section,
    check_title,
    describe_detail,
    describe_flag,
    names_a_pitfall,
    shows_hint,
)

SCHEMA_VERSION = "1.2"  # 1.1: the top-level "isolation" object; 1.2: "problem", "config", detail.graph
# The size a score document stays under, and each check's share of it, whatever a student
# prints or raises (SECURITY.md). A check over its share keeps its detail with shorter strings
# and lists (FIT_STEPS), never a different kind: its sentence still says what happened.
DOC_BYTES = 512 * 1024
CHECK_BYTES = 64 * 1024
FIT_STEPS = ((4096, 1000), (1024, 100), (256, 20), (64, 5), (16, 1))
# No string of a document is longer (the messages of the catalogue are far shorter).
DOC_STRING_CAP = 16384


def entries_by_submission(report: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The `grader` metadata of every test in a pytest-json-report report (or the part of its
    `tests` one submission's stream line holds), grouped by submission, in run order.

    Each entry gets `duration_s` (setup + call + teardown of its test) added.
    """
    grouped: dict[str, list[dict[str, Any]]] = {}
    for test in report.get("tests", []):
        entry = (test.get("metadata") or {}).get("grader")
        if entry is None:
            continue
        duration = sum(test.get(stage, {}).get("duration", 0.0)
                       for stage in ("setup", "call", "teardown"))
        grouped.setdefault(entry["submission"], []).append({**entry, "duration_s": duration})
    return grouped


def json_bytes(value: Any) -> int:
    """The size of value as the report writes it (UTF-8 JSON, indented by 2): its one-line
    form with the same separators, from json's C encoder (indent=2 would take the pure-Python
    one, most of building a document), plus the line breaks and indents it leaves out."""
    one_line = json.dumps(value, ensure_ascii=False, separators=(",", ": "))
    return len(one_line.encode("utf-8", "replace")) + _indent_bytes(value, 1)


def _indent_bytes(value: Any, depth: int) -> int:
    """What indent=2 adds to value written on one line: every item of a non-empty list or
    object on a line of its own, 2 * depth spaces in, and the closing bracket on the next."""
    if isinstance(value, dict):
        items: Sequence[Any] = list(value.values())
    elif isinstance(value, list | tuple):
        items = value
    else:
        return 0
    if not items:
        return 0
    return (len(items) * (1 + 2 * depth) + 1 + 2 * (depth - 1)
            + sum(_indent_bytes(item, depth + 1) for item in items))


def _cut(value: Any, chars: int, items: int) -> Any:
    """value with every string cut to `chars` and every list to `items`, its shape kept."""
    if isinstance(value, str):
        return clean_text(value, chars)
    if isinstance(value, dict):
        return {key: _cut(item, chars, items) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_cut(item, chars, items) for item in value[:items]]
    return value


def fit_entry(entry: Mapping[str, Any], max_bytes: int) -> Mapping[str, Any]:
    """The check's entry with its detail and output cut until both take at most half of
    max_bytes (the other half is for the sentence rendered from the detail, and the rest)."""
    parts = {"detail": entry.get("detail"), "output": entry.get("output")}
    if json_bytes(parts) <= max_bytes // 2:
        return entry
    for chars, items in FIT_STEPS:
        parts = {"detail": _cut(entry.get("detail"), chars, items),
                 "output": _cut(entry.get("output"), chars, items)}
        if json_bytes(parts) <= max_bytes // 2:
            break
    return {**entry, **parts}


def _check(entry: Mapping[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    status, detail = entry["status"], entry.get("detail")
    passed = status == "passed"
    return {
        "id": entry["check"],
        "title": check_title(entry["check"], catalogue),
        "pitfall": entry["pitfall"],
        "status": status,
        "score": float(entry["weight"]) if passed else 0.0,
        "max_score": float(entry["weight"]),
        "visibility": entry["visibility"],
        "message": describe_detail(detail, catalogue) if detail else "",
        "hint": check_hint(entry["check"], catalogue, detail) if shows_hint(status) else "",
        "detail": detail if not passed else None,
        "output": (entry.get("output") or None) if status == "failed" else None,  # shown under failures only
        "section": check_section(entry["check"], entry["pitfall"], catalogue, detail),
    }


# What an LMS or platform says of a submission, kept when the intake knows it.
# And where the code came from: the notebook the main file was taken from, and the edited
# files a student's own check left out.
SUBMISSION_EXTRAS = ("student_id", "name", "lms", "late", "duplicates", "notebook", "unchecked")


def _envelope(lab: str, submission: Mapping[str, Any], lang: str,
              isolation: Mapping[str, str]) -> dict[str, Any]:
    record = {key: submission[key] for key in ("id", "source", "digest")}
    record.update({key: submission[key] for key in SUBMISSION_EXTRAS
                   if submission.get(key) not in (None, "", [], ())})
    for key in ("duplicates", "unchecked"):
        if key in record:
            record[key] = list(record[key])
    return {
        "schema_version": SCHEMA_VERSION,
        "grader_version": __version__,
        "lab": lab,
        "lang": lang,
        "submission": record,
        "isolation": {key: isolation[key] for key in ("level", "how", "memory")},
    }


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def graded_document(lab: str, submission: Mapping[str, Any], entries: Sequence[Mapping[str, Any]],
                    flags: Sequence[Mapping[str, Any]], lang: str,
                    isolation: Mapping[str, str],
                    config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The score document of a submission whose checks all ran, under `isolation` (what the
    sandbox that ran them recorded in the entries, where it did); `config`: the course file's
    weights, recorded as given."""
    isolation = next((e["isolation"] for e in entries if e.get("isolation")), isolation)
    fitted = [fit_entry(entry, CHECK_BYTES) for entry in entries]
    doc = _graded(lab, submission, fitted, flags, lang, isolation, config)
    if json_bytes(doc) > DOC_BYTES:  # many large checks: each gets its share of the document
        share = DOC_BYTES // (len(entries) + 1)
        doc = _graded(lab, submission, [fit_entry(e, share) for e in fitted], flags, lang,
                      isolation, config)
    return doc


def _graded(lab: str, submission: Mapping[str, Any], entries: Sequence[Mapping[str, Any]],
            flags: Sequence[Mapping[str, Any]], lang: str, isolation: Mapping[str, str],
            config: Mapping[str, Any] | None) -> dict[str, Any]:
    catalogue = Catalogue.load(lang)
    checks = [_check(entry, catalogue) for entry in entries]
    problem = next((e["problem"] for e in entries if e.get("problem")), None)
    # A module that cannot be imported, or code not written yet, fails the checks that run it
    # but has fallen into no pitfall: the pitfall list names only failures of written code.
    pitfalls = [] if problem else list(dict.fromkeys(
        c["pitfall"] for c in checks if c["status"] == "failed" and names_a_pitfall(c["detail"])))
    return _clean({
        **_envelope(lab, submission, lang, isolation),
        "status": "graded",
        "reason": None,
        "problem": _problem(problem, catalogue) if problem else None,
        "config": dict(config) if config else None,
        "score": sum(c["score"] for c in checks),
        "max_score": sum(c["max_score"] for c in checks),
        "checks": checks,
        "pitfalls": pitfalls,
        "flags": [{**flag, "text": describe_flag(flag, catalogue)} for flag in flags],
        "duration_s": round(sum(e.get("duration_s", 0.0) for e in entries), 4),
        "graded_at": _now(),
    })


def _clean(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with every string valid, visible and capped (`grader.common.text`): whatever
    reached it from a submission (a name in an LMS export, a quoted import, a reply) renders
    safely in every format, and encodes in UTF-8."""
    cleaned: dict[str, Any] = clean_value(doc, DOC_STRING_CAP)
    return cleaned


def _problem(problem: Mapping[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    """The submission-level problem as the document keeps it, with its sentence."""
    detail = {"kind": problem["kind"], "params": problem["params"]}
    cell = {key: problem[key] for key in ("cell", "first_line") if key in problem}
    return {**{key: problem.get(key) for key in ("kind", "file", "line", "message", "params",
                                                 "output")},
            **cell, "text": describe_detail(detail, catalogue)}


def ungradable_document(lab: str, submission: Mapping[str, Any], detail: Mapping[str, Any],
                        lang: str, isolation: Mapping[str, str]) -> dict[str, Any]:
    """The document of a submission that could not be read (no lab file, unreadable zip, ...)."""
    return _unscored_document(lab, submission, "ungradable", detail, lang, isolation)


def grader_error_document(lab: str, submission: Mapping[str, Any],
                          reference: Mapping[str, Any], lang: str,
                          isolation: Mapping[str, str]) -> dict[str, Any]:
    """The document of a submission the grader failed on: the grader's fault, never the
    student's. `reference` says what failed, as a detail {kind, params} (details.reference-*)."""
    detail = {"kind": "grader-error", "params": {"reference": reference}}
    return _unscored_document(lab, submission, "grader-error", detail, lang, isolation)


def _unscored_document(lab: str, submission: Mapping[str, Any], status: str,
                       detail: Mapping[str, Any], lang: str,
                       isolation: Mapping[str, str]) -> dict[str, Any]:
    catalogue = Catalogue.load(lang)
    return _clean({
        **_envelope(lab, submission, lang, isolation),
        "status": status,
        "reason": {**detail, "text": describe_detail(detail, catalogue)},
        "problem": None,
        "config": None,
        "score": 0.0,
        "max_score": 0.0,
        "checks": [],
        "pitfalls": [],
        "flags": [],
        "duration_s": 0.0,
        "graded_at": _now(),
    })
