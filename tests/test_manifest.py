"""Tests for grader/grading/manifest.py and shard_record.py: a shard's manifest and record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.grading.manifest import (
    ManifestSubmission,
    ShardManifest,
    read_manifest,
    write_manifest,
)
from grader.intake.notebook_module import CellStart


def test_a_manifest_reads_back_as_written(tmp_path: Path) -> None:
    manifest = ShardManifest(
        lab="lab01_graph", seed="course", in_process=True, weights={"a-check": 2.5},
        budget_s=12.0,
        submissions=(ManifestSubmission(id="ana", workdir="/tmp/ana", digest="sha256:1"),
                     ManifestSubmission(id="bo", workdir="/tmp/bo", notebook="lab.ipynb",
                                        cells=(CellStart(1, 1, "import x"),
                                               CellStart(9, 2, "class Value:")))))
    path = tmp_path / "manifest.json"
    write_manifest(manifest, path)
    assert read_manifest(path) == manifest
    assert sorted(json.loads(path.read_text("utf-8"))["submissions"][1]) == [
        "cells", "digest", "id", "notebook", "workdir"]


def test_a_manifest_without_the_optional_fields_takes_their_defaults(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"lab": "lab02_ops", "seed": "s",
                                "submissions": [{"id": "ana", "workdir": "/w"}]}), "utf-8")
    assert read_manifest(path) == ShardManifest(
        lab="lab02_ops", seed="s", submissions=(ManifestSubmission(id="ana", workdir="/w"),))


def test_a_shard_record_reads_back_as_written_and_names_what_differs() -> None:
    from grader.grading.shard_record import ShardRecord, read_shard_record

    record = ShardRecord(shard=(1, 2), lab="lab01_graph", grader_version="1.0.0",
                         options={"seed": "sha256:0", "public_only": False}, lang="en",
                         gradebook={"points": None}, class_ids=("ana", "bo"))
    raw = json.loads(json.dumps(record.to_json()))
    assert raw["class"] == ["ana", "bo"] and raw["shard"] == [1, 2], raw
    again = read_shard_record(raw)
    assert again.first_difference(record) is None
    other = read_shard_record({**raw, "shard": [2, 2], "gradebook": {"points": 10}})
    assert other.first_difference(record) == "gradebook"
    assert read_shard_record({**raw, "class": ["ana"]}).first_difference(record) == "class"


@pytest.mark.parametrize("raw", [[], {}, {"shard": None}, {"shard": [1, 2], "lab": "x"}])
def test_what_is_not_a_shard_record_is_refused(raw: object) -> None:
    from grader.grading.shard_record import NotAShardRecord, read_shard_record

    with pytest.raises(NotAShardRecord):
        read_shard_record(raw)
