"""The class dashboard's view: what to reteach, computed from a class's score documents.

Plain data for `templates/dashboard.html.j2`: per-check pass rates, pitfalls by number of
students with their checks and course sections, the score histogram and pitfall counts as
chart geometry, and the submissions that need a look of their own (import failures, not
gradable, grader errors, weaker isolation). Every word is in the catalogue and the template.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from grader.results.i18n import Catalogue
from grader.results.messages import NOT_WRITTEN_KINDS, describe_detail
from grader.results.score_document import (
    Document,
    ScoreDocument,
    as_document,
    to_json,
)
from grader.results.semester_note import note_lines

# The isolation level every submission should have run under (issue 8's `doc["isolation"]`);
# anything else is listed as a warning.
FULL_ISOLATION = "jail"
# Chart geometry, in SVG user units (px at natural size).
HISTOGRAM = {"width": 480, "height": 200, "left": 34, "right": 8, "top": 18, "bottom": 34}
PITFALL_CHART = {"width": 480, "label_height": 16, "bar_height": 14, "gap": 10, "left": 4,
                 "right": 44, "top": 4}


def _percent(doc: ScoreDocument) -> float:
    return 100 * doc.score / doc.max_score


def _band(percent: float) -> int:
    """Ten-point bands 0-9 ... 90-99, and 100 on its own (a full score stands out)."""
    return 10 if percent >= 100 else max(0, int(percent // 10))


def histogram(percentages: Sequence[float]) -> dict[str, Any]:
    """Bars of the score histogram, with their geometry and a y axis with whole-number ticks."""
    counts = [0] * 11
    for value in percentages:
        counts[_band(value)] += 1
    g = HISTOGRAM
    plot_w = g["width"] - g["left"] - g["right"]
    plot_h = g["height"] - g["top"] - g["bottom"]
    top = max(counts) or 1
    step = plot_w / len(counts)
    bars = []
    for band, count in enumerate(counts):
        height = plot_h * count / top
        bars.append({
            "low": band * 10, "high": 100 if band == 10 else band * 10 + 9, "count": count,
            "x": round(g["left"] + band * step + 2, 1), "width": round(step - 4, 1),
            "y": round(g["top"] + plot_h - height, 1), "height": round(height, 1),
            "centre": round(g["left"] + band * step + step / 2, 1),
        })
    ticks = sorted({0, top // 2, top}) if top > 1 else [0, 1]
    return {**g, "bars": bars, "baseline": g["top"] + plot_h,
            "ticks": [{"value": t, "y": round(g["top"] + plot_h - plot_h * t / top, 1)}
                      for t in ticks]}


def pitfall_chart(pitfalls: Sequence[Mapping[str, Any]], total: int) -> dict[str, Any]:
    """Horizontal bars, one per pitfall (label above its bar), scaled to the class size."""
    g = PITFALL_CHART
    row = g["label_height"] + g["bar_height"] + g["gap"]
    span = g["width"] - g["left"] - g["right"]
    bars = []
    for index, pitfall in enumerate(pitfalls):
        y = g["top"] + index * row
        width = span * pitfall["count"] / max(1, total)
        bars.append({"id": pitfall["id"], "title": pitfall["title"], "count": pitfall["count"],
                     "label_y": y + g["label_height"] - 4, "y": y + g["label_height"],
                     "width": round(max(width, 1.0), 1)})
    return {**g, "bars": bars, "height": g["top"] + max(1, len(bars)) * row}


def _check_stats(graded: Sequence[ScoreDocument], catalogue: Catalogue) -> list[dict[str, Any]]:
    """Per check, over the graded submissions: counts by status and the pass rate; weakest first."""
    stats: dict[str, dict[str, Any]] = {}
    for doc in graded:
        for check in doc.checks:
            entry = stats.setdefault(check.id, {
                "id": check.id, "pitfall": check.pitfall, "visibility": check.visibility,
                "title": _text(catalogue, f"checks.{check.id}.title", check.title),
                "passed": 0, "failed": 0, "not-run": 0, "error": 0, "order": len(stats)})
            entry[check.status] += 1
    rows = []
    for entry in stats.values():
        total = entry["passed"] + entry["failed"] + entry["not-run"] + entry["error"]
        rate = 100 * entry["passed"] / total if total else 0.0
        rows.append({**entry, "total": total, "rate": round(rate, 1),
                     "rate_text": catalogue.number(round(rate))})
    return sorted(rows, key=lambda row: (row["rate"], row["order"]))


def working_code(graded: Sequence[ScoreDocument]) -> list[ScoreDocument]:
    """The graded submissions whose code loaded (no `problem`), is this lab's file (no
    `submission.other_lab`) and was written (no check met a TODO not written yet)."""
    return [doc for doc in graded
            if not doc.problem and not doc.submission.other_lab
            and not any(check.detail is not None and check.detail.kind in NOT_WRITTEN_KINDS
                        for check in doc.checks)]


def _with_working_rates(rows: list[dict[str, Any]], working: Sequence[ScoreDocument],
                        catalogue: Catalogue) -> list[dict[str, Any]]:
    """Each check's row with its pass rate over the working submissions (`working_rate`,
    None for a check none of them ran)."""
    over_working = {row["id"]: row for row in _check_stats(working, catalogue)}
    return [{**row, "working_rate": over_working[row["id"]]["rate"]
             if row["id"] in over_working else None,
             "working_rate_text": over_working[row["id"]]["rate_text"]
             if row["id"] in over_working else ""} for row in rows]


def _text(catalogue: Catalogue, key: str, fallback: str) -> str:
    return catalogue.text(key) if catalogue.has(key) else fallback


def _pitfalls(docs: Sequence[ScoreDocument], catalogue: Catalogue) -> list[dict[str, Any]]:
    """Per pitfall: the students who fell into it, the checks that caught them (with counts)
    and the course section to revisit; most students first."""
    table: dict[str, dict[str, Any]] = {}
    for doc in docs:
        for pitfall in doc.pitfalls:
            entry = table.setdefault(pitfall, {"id": pitfall, "students": [], "checks": {}})
            entry["students"].append(_student_link(doc))
            for check in doc.checks:
                if check.pitfall == pitfall and check.status == "failed":
                    entry["checks"][check.id] = entry["checks"].get(check.id, 0) + 1
    rows = []
    for pitfall, entry in table.items():
        rows.append({
            "id": pitfall, "count": len(entry["students"]), "students": entry["students"],
            "title": _text(catalogue, f"pitfalls.{pitfall}.title", pitfall),
            "section": _text(catalogue, f"pitfalls.{pitfall}.section", ""),
            "checks": [{"id": check_id, "count": count,
                        "title": _text(catalogue, f"checks.{check_id}.title", check_id)}
                       for check_id, count in sorted(entry["checks"].items(),
                                                     key=lambda kv: (-kv[1], kv[0]))],
        })
    for row in rows:
        row["percent"] = round(100 * row["count"] / max(1, len(docs)))
    return sorted(rows, key=lambda row: (-row["count"], row["id"]))


def _said(detail: Any, fallback: str, catalogue: Catalogue) -> str:
    """A detail's sentence in the dashboard's language (documents may be in another one)."""
    try:
        return describe_detail(detail, catalogue)
    except (KeyError, TypeError):
        return fallback


def _said_reason(doc: ScoreDocument, catalogue: Catalogue) -> str:
    """An unscored document's reason in the dashboard's language."""
    reason = doc.reason
    return _said(to_json(reason), reason.text, catalogue) if reason else ""


def _student_link(doc: ScoreDocument) -> dict[str, str]:
    submission_id = doc.submission.id
    return {"id": submission_id, "link": f"{submission_id}/feedback.html"}


def _import_failures(graded: Sequence[ScoreDocument],
                     catalogue: Catalogue) -> list[dict[str, Any]]:
    """Graded submissions whose code could not be imported, with the first such message."""
    failures = []
    for doc in graded:
        problem = doc.problem
        if problem is not None:  # schema 1.2: said once for the submission
            message = _said(to_json(problem), problem.text, catalogue)
            failures.append({**_student_link(doc), "message": message,
                             "checks": len(doc.checks)})
            continue
        failed = [c for c in doc.checks if c.detail and c.detail.kind == "import-error"]
        if failed:
            message = _said(to_json(failed[0].detail), failed[0].message, catalogue)
            failures.append({**_student_link(doc), "message": message, "checks": len(failed)})
    return failures


def _isolation(doc: ScoreDocument) -> dict[str, str] | None:
    value = doc.isolation
    if value is None:
        return None
    return {"level": value.level, "how": value.how}


def _isolation_summary(docs: Sequence[ScoreDocument]) -> dict[str, Any]:
    """Counts per isolation level, the submissions below the full jail, and how many
    documents do not record it (written before the grader recorded isolation)."""
    levels: dict[str, int] = {}
    warnings, unrecorded = [], 0
    for doc in docs:
        isolation = doc.isolation
        if isolation is None:
            unrecorded += doc.status != "ungradable"  # an ungradable one never ran
            continue
        levels[isolation.level] = levels.get(isolation.level, 0) + 1
        if isolation.level != FULL_ISOLATION:
            warnings.append({**_student_link(doc), "level": isolation.level, "how": isolation.how})
    return {"levels": sorted(levels.items()), "warnings": warnings, "unrecorded": unrecorded,
            "full": FULL_ISOLATION}


def _row(doc: ScoreDocument, catalogue: Catalogue) -> dict[str, Any]:
    graded = doc.status == "graded"
    percent = _percent(doc) if graded and doc.max_score else None
    return {
        **_student_link(doc),
        "status": doc.status,
        "score": catalogue.text("ui.score_value", score=catalogue.number(doc.score),
                                max_score=catalogue.number(doc.max_score)) if graded else "",
        "percent": None if percent is None else round(percent),
        "pitfalls": list(doc.pitfalls),
        "flags": len(doc.flags),
        "isolation": _isolation(doc),
        "late": bool(doc.submission.late),  # as the LMS marked it
        "semester": "; ".join(note_lines(doc.semester, catalogue)),
    }


def class_view(documents: Sequence[Document], catalogue: Catalogue) -> dict[str, Any]:
    """The dashboard's template context (without the catalogue lookup `t`)."""
    docs = [as_document(document) for document in documents]
    graded = [doc for doc in docs if doc.status == "graded" and doc.max_score]
    percentages = [_percent(doc) for doc in graded]
    pitfalls = _pitfalls(docs, catalogue)
    statuses = [doc.status for doc in docs]
    return {
        "lab": docs[0].lab if docs else "",
        "lang": catalogue.lang,
        "count": len(docs),
        "totals": {"graded": statuses.count("graded"), "ungradable": statuses.count("ungradable"),
                   "errors": statuses.count("grader-error")},
        "mean": catalogue.number(round(statistics.fmean(percentages), 1)) if graded else None,
        "median": catalogue.number(round(statistics.median(percentages), 1)) if graded else None,
        "full_marks": sum(value >= 100 for value in percentages),
        "histogram": histogram(percentages),
        "checks": _with_working_rates(_check_stats(graded, catalogue), working_code(graded),
                                      catalogue),
        "working": len(working_code(graded)),
        "pitfalls": pitfalls,
        "pitfall_chart": pitfall_chart(pitfalls, len(docs)),
        "import_failures": _import_failures(graded, catalogue),
        "ungradable": [{**_student_link(doc), "reason": _said_reason(doc, catalogue)}
                       for doc in docs if doc.status == "ungradable"],
        "grader_errors": [{**_student_link(doc), "reason": _said_reason(doc, catalogue)}
                          for doc in docs if doc.status == "grader-error"],
        "isolation": _isolation_summary(docs),
        "rows": sorted((_row(doc, catalogue) for doc in docs), key=lambda row: row["id"]),
    }
