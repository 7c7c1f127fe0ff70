"""Replay: grade recorded submissions again with the recorded seed and options; compare the documents.

Side: trusted process (the submissions run in the sandbox, through `grading`). Two gradings of
the same submission differ only in when they ran and how long they took (`VOLATILE`); any other
difference is reported by field. Each grading replays with the hidden suite files it was graded
with, as the ledger kept them (`detail.suite_files`), so a grade recorded before a fix to a check
reproduces; a row recorded without them replays with today's suite. A recorded grade made by
another grader version is replayed all the same, and its result says so.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import __version__
from grader.common.labs import LABS
from grader.grading.batch import BatchOptions, grade_class
from grader.intake.collect import Submission
from grader.results.build import SUBMISSION_EXTRAS
from grader.results.score_document import ScoreDocument, parse, to_json, to_json_or_none
from grader.semester.ledger import Entry
from grader.semester.recording import document_digest, isolation_how, plan_of

VOLATILE = ("graded_at", "duration_s")  # when a grading ran and how long it took
APPLIED = ("semester",)  # what the semester's tools added after the grading (annotation.py)


@dataclass(frozen=True)
class Replayed:
    """The outcome of replaying one recorded grading."""

    entry: Entry
    outcome: str  # identical | differs | document_changed | source_missing
    fields: tuple[str, ...] = ()  # the top-level fields that differ
    version: str = ""  # the grader version that recorded it, when not this one


def comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """A document less its VOLATILE fields and what was APPLIED after the grading."""
    return {key: value for key, value in doc.items() if key not in (*VOLATILE, *APPLIED)}


def sample(entries: Sequence[Entry], count: int | None, seed: int = 0) -> list[Entry]:
    """The recorded gradings to replay: all, or `count` of them drawn with `seed`."""
    graded = [e for e in entries if e.kind in ("grade", "regrade") and e.doc_path]
    if count is None or count >= len(graded):
        return graded
    return sorted(random.Random(seed).sample(graded, count), key=lambda e: e.seq)


def _submission(doc: ScoreDocument, source: str) -> Submission:
    """The submission as graded: its id, its recorded source label and what the LMS said."""
    recorded = to_json(doc.submission)  # the extras as the document holds them (JSON)
    meta = {key: value for key, value in recorded.items() if key in SUBMISSION_EXTRAS}
    return Submission(doc.submission.id, Path(source), {**meta, "label": doc.submission.source})


def _other_version(entry: Entry) -> str:
    """The grader version that recorded the entry, when it is not this one; else ''."""
    recorded = str(entry.detail.get("grader_version"))
    return "" if recorded == __version__ else recorded


def _checked(entry: Entry) -> Replayed | ScoreDocument:
    """The recorded document (its typed records), or why the entry cannot be replayed (changed
    document, no source)."""
    version = _other_version(entry)
    try:
        raw = Path(entry.doc_path or "").read_bytes()
    except OSError:
        return Replayed(entry, "document_changed", version=version)
    if document_digest(raw) != entry.doc_digest:
        return Replayed(entry, "document_changed", version=version)
    source = entry.detail.get("source")
    if not source or not Path(source).exists():
        return Replayed(entry, "source_missing", version=version)
    return parse(json.loads(raw))


def _batches(entries: Sequence[tuple[Entry, ScoreDocument]]) -> list[list[tuple[Entry, ScoreDocument]]]:
    """The entries grouped by how they were graded (lab, seed, options, language, isolation,
    weights), each group cut into batches where no submission id appears twice."""
    groups: dict[str, list[list[tuple[Entry, ScoreDocument]]]] = {}
    for entry, doc in entries:
        key = json.dumps([entry.lab, entry.seed, to_json_or_none(doc.options), doc.lang,
                          isolation_how(doc), to_json_or_none(doc.config),
                          entry.detail.get("suite_files")], sort_keys=True)
        rounds = groups.setdefault(key, [])
        target = next((r for r in rounds
                       if all(d.submission.id != doc.submission.id for _, d in r)), None)
        if target is None:
            rounds.append(target := [])
        target.append((entry, doc))
    return [batch for rounds in groups.values() for batch in rounds]


def _compare(entry: Entry, recorded: ScoreDocument, new: dict[str, Any]) -> Replayed:
    version = _other_version(entry)
    old, again = comparable(to_json(recorded)), comparable(new)
    fields = tuple(sorted(k for k in set(old) | set(again) if old.get(k) != again.get(k)))
    return Replayed(entry, "differs" if fields else "identical", fields, version)


def write_suite(files: Mapping[str, str], suite_file: Callable[[str], bytes], folder: Path) -> Path:
    """The kept hidden suite (name -> digest) written out under `folder`; the suite's folder."""
    for name, digest in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(suite_file(digest))
    return folder


def replay(entries: Sequence[Entry], count: int | None = None, seed: int = 0,
           workers: int = 1, suite_file: Callable[[str], bytes] | None = None) -> list[Replayed]:
    """Replay a sample of the recorded gradings (all when count is None), in recorded order, each
    with its kept hidden suite (`suite_file`: a kept file's content by digest, the ledger's)."""
    results: dict[int, Replayed] = {}
    ready = []
    for entry in sample(entries, count, seed):
        checked = _checked(entry)
        if isinstance(checked, Replayed):
            results[entry.seq] = checked
        else:
            ready.append((entry, checked))
    with tempfile.TemporaryDirectory(prefix="minigrad-replay-") as scratch:
        for index, batch in enumerate(_batches(ready)):
            first_entry, first_doc = batch[0]
            kept = first_entry.detail.get("suite_files")
            suite = (write_suite(kept, suite_file, Path(scratch) / str(index) / first_entry.lab)
                     if kept and suite_file is not None else None)
            plan = plan_of(LABS[first_entry.lab], first_doc, first_entry.seed or "", suite)
            items = [_submission(doc, str(entry.detail["source"])) for entry, doc in batch]
            new_docs = grade_class(plan, items, BatchOptions(out_dir=None, workers=workers),
                                   lambda *_: None)
            for (entry, doc), new in zip(batch, new_docs, strict=True):
                results[entry.seq] = _compare(entry, doc, new)
    return [results[seq] for seq in sorted(results)]
