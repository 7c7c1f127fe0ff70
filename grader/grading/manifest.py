"""The shard's manifest: what `grade_shard` tells its pytest process to grade, as one typed record.

Side: trusted process. `grader.grading.shard` writes it (`write_manifest`), the plugin reads it
(`read_manifest`, at `pytest_configure`); both sides hold the same fields, so a field added on
one side and forgotten on the other is a type error, not a silently missing key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.grading.sandbox.sandbox import Limits
from grader.intake.notebook_module import CellStart, cells_as_data, cells_from_data


@dataclass(frozen=True)
class ManifestSubmission:
    """One prepared submission of the shard: its id, its scratch folder and content digest, and
    for a notebook its name and the line map of its code cells."""

    id: str
    workdir: str
    digest: str = ""
    notebook: str = ""
    cells: tuple[CellStart, ...] = ()


@dataclass(frozen=True)
class ShardManifest:
    """The lab, the course seed, whether the checks run in the grader's process, the course
    file's weights, each submission's budget, and the submissions in shard order."""

    lab: str
    seed: str
    submissions: tuple[ManifestSubmission, ...]
    in_process: bool = False
    weights: dict[str, float] = field(default_factory=dict)  # a course file's, by check id
    budget_s: float = Limits.budget_s


def manifest_json(manifest: ShardManifest) -> dict[str, Any]:
    """The manifest as the JSON file holds it."""
    return {
        "lab": manifest.lab, "seed": manifest.seed, "in_process": manifest.in_process,
        "weights": manifest.weights, "budget_s": manifest.budget_s,
        "submissions": [{"id": sub.id, "workdir": sub.workdir, "digest": sub.digest,
                         "notebook": sub.notebook, "cells": cells_as_data(sub.cells)}
                        for sub in manifest.submissions],
    }


def write_manifest(manifest: ShardManifest, path: Path) -> None:
    """Write the manifest's JSON file."""
    path.write_text(json.dumps(manifest_json(manifest)), encoding="utf-8")


def read_manifest(path: Path) -> ShardManifest:
    """The manifest a shard's grader wrote (`write_manifest`)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return ShardManifest(
        lab=str(raw["lab"]), seed=str(raw["seed"]),
        submissions=tuple(ManifestSubmission(
            id=str(sub["id"]), workdir=str(sub["workdir"]), digest=str(sub.get("digest") or ""),
            notebook=str(sub.get("notebook") or ""), cells=cells_from_data(sub.get("cells")))
            for sub in raw["submissions"]),
        in_process=bool(raw.get("in_process", False)),
        weights={str(k): float(v) for k, v in (raw.get("weights") or {}).items()},
        budget_s=float(raw.get("budget_s", Limits.budget_s)))
