"""Replay's refusals, before any grading: a document gone or changed since it was recorded, a
submission no longer on disk, another grader version said; and the sample it draws."""

from __future__ import annotations

import json
from pathlib import Path

from grader import __version__
from grader.semester.ledger import Entry
from grader.semester.recording import document_digest
from grader.semester.replay import comparable, replay, sample


def recorded(tmp_path: Path, seq: int, version: str = __version__, source: Path | None = None,
             digest: str | None = None) -> Entry:
    """A grade row whose document is written in tmp_path."""
    path = tmp_path / f"doc{seq}.json"
    raw = json.dumps({"score": 1, "graded_at": "t", "duration_s": 1}).encode()
    path.write_bytes(raw)
    return Entry("grade", f"s{seq}", "lab01_graph", doc_path=str(path),
                 doc_digest=digest or document_digest(raw), seq=seq,
                 detail={"grader_version": version, "source": str(source) if source else None})


def test_what_cannot_be_replayed_is_named_and_another_version_is_said(tmp_path: Path) -> None:
    changed = recorded(tmp_path, 1, digest="sha256:other")
    gone = recorded(tmp_path, 2, version="0.0.9", source=tmp_path / "no-such-submission")
    missing = Entry("grade", "s3", "lab01_graph", doc_path=str(tmp_path / "absent.json"),
                    doc_digest="sha256:x", seq=3, detail={"grader_version": __version__})
    results = replay([changed, gone, missing])
    assert [(r.entry.seq, r.outcome, r.version) for r in results] == [
        (1, "document_changed", ""), (2, "source_missing", "0.0.9"), (3, "document_changed", "")]


def test_the_sample_is_drawn_from_the_gradings_only_and_repeats_with_its_seed(
        tmp_path: Path) -> None:
    rows = [recorded(tmp_path, seq) for seq in range(1, 11)]
    rows.append(Entry("override", "s1", "lab01_graph", score=5, seq=11))
    assert [e.seq for e in sample(rows, None)] == list(range(1, 11))
    drawn = sample(rows, 4, seed=7)
    assert len(drawn) == 4 and drawn == sample(rows, 4, seed=7)
    assert [e.seq for e in drawn] == sorted(e.seq for e in drawn)


def test_only_when_and_how_long_are_left_out_of_the_comparison() -> None:
    assert comparable({"score": 1, "graded_at": "t", "duration_s": 2, "checks": []}) == {
        "score": 1, "checks": []}
