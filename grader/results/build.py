"""Building every score document: graded (from a pytest-json-report run), ungradable, grader-error."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from grader import __version__
from grader.i18n import Catalogue
from grader.messages import (
    check_hint,
    check_section,
    check_title,
    describe_detail,
    describe_flag,
    names_a_pitfall,
    shows_hint,
)

SCHEMA_VERSION = "1.2"  # 1.1: the top-level "isolation" object; 1.2: "problem", "config", detail.graph


def entries_by_submission(report: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The `grader` property of every test in the report, grouped by submission, in run order.

    Each entry gets `duration_s` (setup + call + teardown of its test) added.
    """
    grouped: dict[str, list[dict[str, Any]]] = {}
    for test in report.get("tests", []):
        entry = next((p["grader"] for p in test.get("user_properties", []) if "grader" in p), None)
        if entry is None:
            continue
        duration = sum(test.get(stage, {}).get("duration", 0.0)
                       for stage in ("setup", "call", "teardown"))
        grouped.setdefault(entry["submission"], []).append({**entry, "duration_s": duration})
    return grouped


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
    catalogue = Catalogue.load(lang)
    checks = [_check(entry, catalogue) for entry in entries]
    problem = next((e["problem"] for e in entries if e.get("problem")), None)
    # A module that cannot be imported, or code not written yet, fails the checks that run it
    # but has fallen into no pitfall: the pitfall list names only failures of written code.
    pitfalls = [] if problem else list(dict.fromkeys(
        c["pitfall"] for c in checks if c["status"] == "failed" and names_a_pitfall(c["detail"])))
    return {
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
    }


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
    return {
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
    }
