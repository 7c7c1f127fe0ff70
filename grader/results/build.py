"""Building every score document: graded (from a pytest-json-report run), ungradable, grader-error.

Side: trusted process. Every document is built against one `DocumentBudget` of DOC_BYTES:
the envelope first, then each flag, each check, the reason, cleaned and charged as it is
added, each part given at most what is left (flags at most FLAGS_BYTES and MAX_DOC_FLAGS, the
rest counted in one `more-flags` flag; a check at most CHECK_BYTES, and its share of what is
left). No path adds to a document without going through it, so none exceeds it, whatever the
submission quoted, raised or printed (docs/limits.md).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from typing import Any

from grader import __version__
from grader.common.text import clean_text, clean_value
from grader.results.check_view import shows_hint
from grader.results.i18n import Catalogue
from grader.results.messages import (
    check_hint,
    check_section,
    check_title,
    describe_detail,
    describe_flag,
    names_a_pitfall,
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
# Flags: at most this share of the document, at most this many, each quoting this much.
FLAGS_BYTES = DOC_BYTES // 8
MAX_DOC_FLAGS = 50
FLAG_QUOTE_CHARS = 200
MORE_FLAGS = "more-flags"  # the flag that counts the flags left out (grader.intake.policy's too)
# An ungradable or grader-error document's reason: at most this share.
REASON_BYTES = DOC_BYTES // 4
# Kept back from a graded document's budget for what follows its parts: the pitfall ids and
# totals, and the options grade_class records (a few hundred bytes each).
RESERVE_BYTES = 8192


class DocumentBudget:
    """What is left of one document's DOC_BYTES: every part is charged as it is added."""

    def __init__(self, total: int = DOC_BYTES - RESERVE_BYTES) -> None:
        self.left = total

    def charge(self, value: Any) -> int:
        """Take value's size (as the report writes it) from what is left; its size."""
        size = json_bytes(value)
        self.left -= size
        return size

    def share(self, parts: int, cap: int) -> int:
        """What one of `parts` parts still to add may take: an equal share of what is left,
        at most `cap`."""
        return max(0, min(cap, self.left // max(1, parts)))


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
SUBMISSION_EXTRAS = ("student_id", "name", "lms", "late", "submitted_at", "duplicates", "notebook",
                     "unchecked", "other_lab")


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
    weights, recorded as given. Built against its DocumentBudget: the envelope, then the
    flags, then each check in its share of what is left."""
    isolation = next((e["isolation"] for e in entries if e.get("isolation")), isolation)
    catalogue = Catalogue.load(lang)
    budget = DocumentBudget()
    problem = next((e["problem"] for e in entries if e.get("problem")), None)
    budget.charge(_graded(lab, submission, [], [], problem, catalogue, isolation, config, []))
    kept_flags = budgeted_flags(flags, catalogue, budget)
    checks = []
    for index, entry in enumerate(entries):
        check = _budgeted_check(entry, catalogue, budget.share(len(entries) - index, CHECK_BYTES))
        budget.charge(check)
        checks.append(check)
    return _graded(lab, submission, entries, checks, problem, catalogue, isolation, config,
                   kept_flags)


def _budgeted_check(entry: Mapping[str, Any], catalogue: Catalogue, share: int) -> dict[str, Any]:
    """The check of an entry, cleaned, in at most `share` bytes: its detail and output cut
    harder (fit_entry) until it fits, down to the shortest cut FIT_STEPS makes."""
    limit = share
    while True:
        check = _clean(_check(fit_entry(entry, limit), catalogue))
        if json_bytes(check) <= share or limit < 2 * FIT_STEPS[-1][0]:
            return check
        limit //= 2


def budgeted_flags(flags: Sequence[Mapping[str, Any]], catalogue: Catalogue,
                   budget: DocumentBudget) -> list[dict[str, Any]]:
    """The flags as the document keeps them: each one's quotes cut to FLAG_QUOTE_CHARS, with
    its sentence, charged to the budget; at most MAX_DOC_FLAGS and FLAGS_BYTES of them, then
    one `more-flags` flag counting the others (and any the scan already counted)."""
    kept: list[dict[str, Any]] = []
    more = sum(int((f.get("params") or {}).get("count", 0)) for f in flags
               if f.get("id") == MORE_FLAGS)
    room = budget.share(1, FLAGS_BYTES)
    listed = [f for f in flags if f.get("id") != MORE_FLAGS]
    for position, flag in enumerate(listed):
        params = clean_value(dict(flag.get("params") or {}), FLAG_QUOTE_CHARS)
        item = _clean({"id": flag["id"], "params": params,
                       "text": describe_flag({"id": flag["id"], "params": params}, catalogue)})
        size = json_bytes(item)
        if len(kept) == MAX_DOC_FLAGS or size > room:
            more += len(listed) - position
            break
        room -= size
        budget.charge(item)
        kept.append(item)
    if more:
        summary = {"id": MORE_FLAGS, "params": {"count": more}}
        summary["text"] = describe_flag(summary, catalogue)
        budget.charge(summary)
        kept.append(summary)
    return kept


def _graded(lab: str, submission: Mapping[str, Any], entries: Sequence[Mapping[str, Any]],
            checks: list[dict[str, Any]], problem: Mapping[str, Any] | None,
            catalogue: Catalogue, isolation: Mapping[str, str],
            config: Mapping[str, Any] | None, flags: list[dict[str, Any]]) -> dict[str, Any]:
    lang = catalogue.lang
    # A module that cannot be imported, or code not written yet, fails the checks that run it
    # but has fallen into no pitfall: the pitfall list names only failures of written code; so
    # has another lab's file (grader.intake.other_lab), whose failures say nothing of this lab.
    pitfalls = [] if problem or submission.get("other_lab") else list(dict.fromkeys(
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
        "flags": flags,
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


def _budgeted_reason(detail: Mapping[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    """The reason of an unscored document, cleaned, in at most REASON_BYTES: its params cut
    harder (FIT_STEPS) until it fits."""
    reason = _clean({**detail, "text": describe_detail(detail, catalogue)})
    for chars, items in FIT_STEPS:
        if json_bytes(reason) <= REASON_BYTES:
            break
        cut = _cut(dict(detail), chars, items)
        reason = _clean({**cut, "text": describe_detail(cut, catalogue)})
    return reason


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
        "reason": _budgeted_reason(detail, catalogue),
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
