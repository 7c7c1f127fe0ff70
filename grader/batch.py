"""Grading submissions: prepare each one, grade shards in parallel, write one report each.

The one grading path: `grade` runs it over a class with report files, `check` over one
submission with the public suite and no files. Reports are written atomically as each shard
finishes, so an interrupted run loses at most the shards in flight, and `--resume` skips
submissions whose report matches their content.

Side: trusted process.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import __version__
from grader.intake import PreparedSubmission, Ungradable, collect, prepare
from grader.render import render_dashboard, render_feedback
from grader.results.build import ungradable_document
from grader.shard import GradingPlan, grade_shard

REPORT_FILES = {"scores.json": None, "feedback.md": "markdown", "feedback.html": "html"}


@dataclass(frozen=True)
class BatchOptions:
    """How to grade a class."""

    out_dir: Path | None  # None: no report files (`check`), only the documents returned
    workers: int = max(1, os.cpu_count() or 1)
    shard_size: int = 0  # 0: split the class evenly over the workers, at most 25 per shard
    resume: bool = False
    shard_timeout_s: float = 600.0
    interactive: bool = False  # the student's terminal reaches their code (`check --debug`)


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_reports(doc: dict[str, Any], out_dir: Path) -> Path:
    """Write scores.json and the feedback files of one submission; scores.json last."""
    folder = out_dir / doc["submission"]["id"]
    folder.mkdir(parents=True, exist_ok=True)
    for name, fmt in REPORT_FILES.items():
        if fmt:
            _write_atomically(folder / name, render_feedback(doc, fmt))
    _write_atomically(folder / "scores.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return folder


def _previous(out_dir: Path, sub: PreparedSubmission, lab: str) -> dict[str, Any] | None:
    """The existing report for this exact content, lab and grader version, if any."""
    path = out_dir / sub.id / "scores.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    same = (doc.get("lab") == lab and doc.get("grader_version") == __version__
            and doc.get("submission", {}).get("digest") == sub.digest
            and doc.get("status") == "graded")
    return doc if same else None


def _shards(items: Sequence[PreparedSubmission], workers: int, size: int) -> list[list[Any]]:
    if not items:
        return []
    size = size or max(1, min(25, -(-len(items) // workers)))
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def write_class_csv(docs: Sequence[dict[str, Any]], path: Path) -> None:
    """One row per submission, for an LMS gradebook import."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", "lab", "status", "score", "max_score", "pitfalls"])
        for doc in docs:
            writer.writerow([doc["submission"]["id"], doc["lab"], doc["status"], doc["score"],
                             doc["max_score"], " ".join(doc["pitfalls"])])


def grade_class(plan: GradingPlan, paths: Sequence[Path], options: BatchOptions,
                progress: Callable[[int, int, str], None]) -> list[dict[str, Any]]:
    """Grade every submission; returns the documents in the order the paths were given."""
    out_dir = options.out_dir
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    submissions = collect(list(paths), plan.lab)
    docs: dict[str, dict[str, Any]] = {}
    done = 0

    def finished(doc: dict[str, Any], note: str) -> None:
        nonlocal done
        docs[doc["submission"]["id"]] = doc
        if out_dir is not None:
            write_reports(doc, out_dir)
        done += 1
        progress(done, len(submissions), f"{doc['submission']['id']}: {note}")

    with tempfile.TemporaryDirectory(prefix="minigrad-grader-") as scratch_name:
        scratch = Path(scratch_name)
        os.chmod(scratch, 0o711)
        pending = []
        for sub in submissions:
            try:
                prepared = prepare(sub, plan.lab, scratch)
            except Ungradable as exc:
                record = {"id": sub.id, "source": str(sub.source), "digest": ""}
                finished(ungradable_document(plan.lab.name, record, exc.detail, plan.lang),
                         "ungradable")
                continue
            previous = (_previous(out_dir, prepared, plan.lab.name)
                        if options.resume and out_dir is not None else None)
            if previous is not None:
                docs[sub.id] = previous
                done += 1
                progress(done, len(submissions), f"{sub.id}: unchanged, kept")
            else:
                pending.append(prepared)
        shards = _shards(pending, options.workers, options.shard_size)
        with ThreadPoolExecutor(max_workers=options.workers) as pool:
            futures = []
            for index, shard in enumerate(shards):
                workdir = scratch / f"shard-{index}"
                workdir.mkdir()
                futures.append(pool.submit(grade_shard, plan, shard, workdir,
                                           options.shard_timeout_s, options.interactive))
            for future in as_completed(futures):
                for doc in future.result():
                    finished(doc, doc["status"])
    ordered = [docs[sub.id] for sub in submissions]
    if out_dir is not None:
        write_class_csv(ordered, out_dir / "class.csv")
        _write_atomically(out_dir / "dashboard.html", render_dashboard(ordered, plan.lang))
    return ordered
