"""Tests for grader/grading/manifest.py: the shard's manifest reads back as it was written."""

from __future__ import annotations

import json
from pathlib import Path

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
