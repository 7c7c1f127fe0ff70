"""Tests for grader.results.dashboard and the dashboard template: what to reteach, from score documents."""

from __future__ import annotations

import copy
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from grader.results.dashboard import class_view, histogram
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.render import render_dashboard

DATA = Path(__file__).parent / "data"


def load_doc(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def with_id(doc: dict[str, Any], submission_id: str, **changes: Any) -> dict[str, Any]:
    """A copy of doc under another submission id, with top-level changes."""
    copied = copy.deepcopy(doc)
    copied["submission"]["id"] = submission_id
    copied.update(changes)
    return copied


def import_failure(submission_id: str) -> dict[str, Any]:
    """A graded document whose every check failed on import."""
    doc = with_id(load_doc("score_mixed"), submission_id, pitfalls=[], score=0.0)
    for check in doc["checks"]:
        check.update(status="failed", score=0.0, message="value.py could not be imported",
                     detail={"kind": "import-error", "params": {
                         "file": "value.py", "type": "SyntaxError", "message": "expected ':'",
                         "where": "value.py, line 3"}})
    return doc


def unrecorded(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as a grader before schema 1.1 wrote it: no isolation."""
    doc.pop("isolation", None)
    doc["schema_version"] = "1.0"
    return doc


def a_class() -> list[dict[str, Any]]:
    mixed, passed = load_doc("score_mixed"), load_doc("score_all_passed")
    return [
        with_id(mixed, "alice", isolation={"level": "jail", "how": "root", "memory": "cgroup"}),
        with_id(mixed, "bruno", isolation={"level": "uid", "how": "setuid", "memory": "cgroup"}),
        with_id(passed, "carmen", isolation={"level": "jail", "how": "userns", "memory": "cgroup"}),
        unrecorded(load_doc("score_ungradable")),
        unrecorded(load_doc("score_grader_error")),
        unrecorded(import_failure("dora")),
    ]


def test_pitfalls_are_ordered_by_students_with_their_checks_and_section() -> None:
    docs = a_class()
    docs[2]["pitfalls"] = ["grad-overwrite"]
    view = class_view(docs, Catalogue.load("en"))
    first = view["pitfalls"][0]
    assert (first["id"], first["count"]) == ("grad-overwrite", 3)
    assert [s["id"] for s in first["students"]] == ["alice", "bruno", "carmen"]
    assert {c["id"]: c["count"] for c in first["checks"]} == {"diamond-accumulates": 2,
                                                              "self-add-accumulates": 2}
    assert "The diamond pattern, in slow motion" in first["section"]
    counts = [p["count"] for p in view["pitfalls"]]
    assert counts == sorted(counts, reverse=True)


def test_pass_rates_cover_the_graded_submissions_weakest_first() -> None:
    view = class_view(a_class(), Catalogue.load("en"))
    rates = {check["id"]: check for check in view["checks"]}
    diamond = rates["diamond-accumulates"]
    assert (diamond["passed"], diamond["failed"], diamond["total"]) == (1, 3, 4)  # carmen passed
    assert [c["rate"] for c in view["checks"]] == sorted(c["rate"] for c in view["checks"])


def test_import_failures_ungradable_errors_and_isolation_have_their_own_lists() -> None:
    view = class_view(a_class(), Catalogue.load("en"))
    assert [item["id"] for item in view["import_failures"]] == ["dora"]
    assert "SyntaxError" in view["import_failures"][0]["message"]
    assert [item["id"] for item in view["ungradable"]] == ["carlos"]
    assert [item["id"] for item in view["grader_errors"]] == ["dana"]
    isolation = view["isolation"]
    assert [(w["id"], w["level"], w["how"]) for w in isolation["warnings"]] == [
        ("bruno", "uid", "setuid")]
    assert isolation["unrecorded"] == 2  # dora and the grader error; the ungradable never ran


def test_dora_import_failure_names_no_pitfall() -> None:
    view = class_view([import_failure("dora")], Catalogue.load("en"))
    assert view["pitfalls"] == []


def test_histogram_counts_every_graded_score_once_and_full_marks_apart() -> None:
    chart = histogram([0.0, 9.9, 10.0, 55.0, 99.9, 100.0, 100.0])
    assert [bar["count"] for bar in chart["bars"]] == [2, 1, 0, 0, 0, 1, 0, 0, 0, 1, 2]
    tallest = max(chart["bars"], key=lambda bar: bar["count"])
    assert tallest["y"] == chart["top"] and tallest["y"] + tallest["height"] == chart["baseline"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_dashboard_renders_every_section_in_both_languages(lang: str) -> None:
    html = render_dashboard(a_class(), lang)
    catalogue = Catalogue.load(lang)
    for key in ("reteach_heading", "checks_heading", "import_heading", "ungradable_heading",
                "errors_heading", "isolation_heading", "charts_heading"):
        assert catalogue.text(f"ui.dashboard.{key}") in html, key
    assert f'<html lang="{lang}">' in html
    assert "{" not in re.sub(r"\{ |\{$", "", html, flags=re.M)


def test_every_svg_has_a_title_and_no_script_or_remote_resource() -> None:
    html = render_dashboard(a_class(), "en")
    svgs = re.findall(r"<svg\b.*?</svg>", html, flags=re.S)
    assert len(svgs) == 2
    assert all(re.search(r"<svg[^>]*>\s*<title", svg) for svg in svgs)
    assert "<script" not in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)


def test_each_submission_links_to_its_feedback() -> None:
    html = render_dashboard(a_class(), "en")
    for submission_id in ("alice", "bruno", "carmen", "carlos", "dana", "dora"):
        assert f'href="{submission_id}/feedback.html"' in html


def test_a_document_in_another_language_is_described_in_the_dashboard_language() -> None:
    html = render_dashboard(a_class(), "es")
    assert "Falta value.py en la entrega." in html


def test_an_empty_class_renders() -> None:
    html = render_dashboard([], "en")
    assert Catalogue.load("en").text("ui.dashboard.no_pitfalls") in html


def test_three_hundred_submissions_render_quickly() -> None:
    docs = [with_id(doc, f"{doc['submission']['id']}-{k:03d}")
            for k in range(50) for doc in a_class()]
    started = time.perf_counter()
    html = render_dashboard(docs, "en")
    elapsed = time.perf_counter() - started
    assert len(docs) == 300 and html.count('/feedback.html"') >= 300
    assert elapsed < 3.0, f"{elapsed:.2f} s"
