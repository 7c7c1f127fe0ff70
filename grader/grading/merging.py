"""Joining the report folders of `grade --shard K/N` into one class, or refusing a wrong class.

Side: trusted process. Every shard folder holds the record of how it was graded
(`batch.shard_record`: shard spec, lab, grader version, seed digest, suites, weights, language,
gradebook settings, the class's submission ids). `merge` joins shards only when they are the N
shards of one grading: each K once, all graded alike; a missing shard is named with the students
it would lack, and joined anyway only with `allow_partial`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.common.keyed_error import KeyedError
from grader.grading.batch import BatchOptions, in_shard
from grader.grading.shard_record import NotAShardRecord, ShardRecord, read_shard_record
from grader.results.class_files import write_class_files
from grader.results.report_folder import (
    COURSE_TEMPLATES,
    GRADEBOOK_DOWNLOAD,
    GRADEBOOK_SETTINGS,
    SHARD_RECORD,
    read_reports,
)
from grader.results.score_document import ScoreDocument, as_document


class MergeRefused(KeyedError):
    """The folders are not the shards of one grading: a catalogue key under cli.errors."""


@dataclass(frozen=True)
class Merged:
    """The joined class: its documents, and who is missing (only with allow_partial)."""

    docs: list[ScoreDocument]
    missing: tuple[str, ...]


def _record(folder: Path) -> ShardRecord:
    try:
        raw = json.loads((folder / SHARD_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise MergeRefused("merge_no_record", folder=str(folder)) from None
    try:
        return read_shard_record(raw)
    except NotAShardRecord:
        raise MergeRefused("merge_not_a_shard", folder=str(folder)) from None


def check_shards(folders: Sequence[Path]) -> tuple[list[str], ShardRecord]:
    """The students of missing shards, and the record they share; MergeRefused when the folders
    are not shards of one grading (a duplicate, another N, anything graded differently)."""
    records = [_record(folder) for folder in folders]
    first = records[0]
    count = first.shard[1] if first.shard else 0
    taken: dict[int, Path] = {}
    for folder, record in zip(folders, records, strict=True):
        index, total = record.shard or (0, 0)
        if total != count:
            raise MergeRefused("merge_differs", what="shard count", first=str(folders[0]),
                               other=str(folder))
        differs = record.first_difference(first)
        if differs is not None:
            raise MergeRefused("merge_differs", what=differs, first=str(folders[0]),
                               other=str(folder))
        if index in taken:
            raise MergeRefused("merge_duplicate", shard=f"{index}/{count}",
                               first=str(taken[index]), other=str(folder))
        taken[index] = folder
    absent = [k for k in range(1, count + 1) if k not in taken]
    missing = sorted(sid for sid in first.class_ids for k in absent if in_shard(sid, (k, count)))
    return missing, first


def merge(folders: Sequence[Path], out_dir: Path, lang: str, allow_partial: bool = False,
          options: BatchOptions | None = None) -> Merged:
    """Join the shards' reports into `out_dir` and write the class files once (with the
    gradebook settings the shards recorded, or those `options` give)."""
    missing, _ = check_shards(folders)
    if missing and not allow_partial:
        raise MergeRefused("merge_missing", count=str(len(missing)), students=", ".join(missing))
    out_dir.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        for doc in read_reports(folder):
            key = as_document(doc).submission.id
            report = folder / key
            if report.resolve() != (out_dir / key).resolve():
                shutil.rmtree(out_dir / key, ignore_errors=True)
                shutil.copytree(report, out_dir / key)
    for name in (GRADEBOOK_SETTINGS, GRADEBOOK_DOWNLOAD, COURSE_TEMPLATES):
        source = folders[0] / name
        if source.is_file() and source.resolve() != (out_dir / name).resolve():
            shutil.copyfile(source, out_dir / name)
    write_class_files(out_dir, lang, options)
    return Merged(read_reports(out_dir), tuple(missing))
