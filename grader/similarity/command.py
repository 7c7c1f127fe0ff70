"""`python -m grader similarity` and `grade --similarity`: read a class, compare, write the report.

Side: trusted process; submissions are read, never run. Nothing is sent anywhere: the report is
two files in the output folder (`similarity.html`, `similarity.json`), and with pseudonyms a
third, `similarity-ids.json`, the only file that links a pseudonym to a student.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from grader.common.atomic import write_atomically
from grader.common.labs import Lab
from grader.intake.collect import Submission
from grader.results.i18n import Catalogue
from grader.results.render import render_template
from grader.results.report_folder import (
    SIMILARITY_HTML,
    SIMILARITY_IDS,
    SIMILARITY_JSON,
    read_reports,
)
from grader.similarity.boilerplate import boilerplate_hashes, course_code, extra_code
from grader.similarity.fingerprints import Fingerprinted, fingerprint
from grader.similarity.ranking import rank_class
from grader.similarity.report import ClassEvidence, ReportOptions, build_report, pseudonym
from grader.similarity.sources import HandedIn, Unreadable, read_one
from grader.similarity.wrong_outputs import graded_count, shared_wrong_values

TEMPLATE = "similarity.html.j2"
HTML_FILE, JSON_FILE, IDS_FILE = SIMILARITY_HTML, SIMILARITY_JSON, SIMILARITY_IDS  # reserved


@dataclass(frozen=True)
class SimilarityRun:
    """How to compare a class: the report's options, score documents, extra boilerplate."""

    lang: str
    report: ReportOptions = field(default_factory=ReportOptions)
    scores: Path | None = None  # a `grade` output folder (its `<id>/scores.json`)
    base_files: tuple[Path, ...] = ()
    pseudonyms: bool = False
    workers: int = 1


@dataclass(frozen=True)
class Written:
    """The files written and what the report lists."""

    html: Path
    json: Path
    ids: Path | None
    listed: int
    above_cut: int


def _read_and_fingerprint(submission: Submission, lab: Lab,
                          base: frozenset[int]) -> tuple[HandedIn | Unreadable, Fingerprinted | None]:
    """One submission read as grading reads it, and its fingerprints (None: unreadable)."""
    read = read_one(submission, lab)
    return read, fingerprint(read.id, read.files, base) if isinstance(read, HandedIn) else None


def fingerprint_class(submissions: Sequence[Submission], lab: Lab, base: frozenset[int],
                      workers: int = 1) -> list[tuple[HandedIn | Unreadable, Fingerprinted | None]]:
    """Every submission read and fingerprinted, in a pool of `workers` processes when there are
    many (reading and tokenizing are most of the time)."""
    one = partial(_read_and_fingerprint, lab=lab, base=base)
    if workers <= 1 or len(submissions) < 50:
        return [one(submission) for submission in submissions]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, submissions, chunksize=16))


def compare_class(lab: Lab, submissions: Sequence[Submission], run: SimilarityRun) -> ClassEvidence:
    """Read, fingerprint and rank the class; the shared rare wrong values when scores are given."""
    base = boilerplate_hashes({**course_code(), **extra_code(run.base_files)})
    done = fingerprint_class(submissions, lab, base, run.workers)
    handed = [read for read, _printed in done if isinstance(read, HandedIn)]
    unreadable = [read for read, _printed in done if isinstance(read, Unreadable)]
    printed = [one for _read, one in done if one is not None]
    ranking = rank_class(printed, run.report.cut)
    docs = read_reports(run.scores) if run.scores is not None else None
    known = {one.id for one in handed}
    wrong = {} if docs is None else {
        pair: values for pair, values in shared_wrong_values(docs).items()
        if pair[0] in known and pair[1] in known}
    return ClassEvidence(lab.name, handed, unreadable, {doc.id: doc for doc in printed}, ranking,
                         wrong, None if docs is None else graded_count(docs))


def write_similarity(lab: Lab, submissions: Sequence[Submission], out_dir: Path,
                     run: SimilarityRun) -> Written:
    """Compare the class and write the report's HTML and JSON (and the pseudonyms' key)."""
    key = secrets.token_bytes(16) if run.pseudonyms else None
    options = replace(run.report, pseudonym_key=key)
    evidence = compare_class(lab, submissions, run)
    catalogue = Catalogue.load(run.lang)
    report = build_report(evidence, options, catalogue)
    out_dir.mkdir(parents=True, exist_ok=True)
    html, data = out_dir / HTML_FILE, out_dir / JSON_FILE
    write_atomically(data, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    write_atomically(html, render_template(TEMPLATE, report=report, t=catalogue.text,
                                           lang=catalogue.lang))
    ids = None
    if key is not None:
        ids = out_dir / IDS_FILE
        students = [one.id for one in evidence.handed] + [one.id for one in evidence.unreadable]
        write_atomically(ids, json.dumps({pseudonym(s, key): s for s in students},
                                         indent=1, ensure_ascii=False) + "\n")
        os.chmod(ids, 0o600)
    return Written(html, data, ids, len(report["pairs"]), report["distribution"]["above_cut"])
