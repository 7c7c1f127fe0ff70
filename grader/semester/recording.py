"""From a grading run's report folder to ledger rows: one `grade` (or `regrade`) row per score document.

Side: trusted process. Each row keeps what replaying the grading needs: the document's digest
and path, the submission's source (absolute, when it is still on disk) and digest, the seed (the
document records only its hash, so the seed given is checked against it), the options, the
isolation, and the suite version (the grader's version and a digest of the lab's suite files).
Submission times come from a CSV the instructor provides (`student,submitted_at`), else from the
document (`submission.submitted_at`: Gradescope's submission_metadata.json `created_at`), else they
are unknown (Canvas's and Moodle's downloads carry no time: Canvas's names carry a LATE marker, the
document's `late`, which the policy's `unknown_time` rule reads); the row says where its time came from.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import __version__
from grader.common.labs import Lab
from grader.grading.batch import report_options
from grader.grading.shard import GradingPlan, suites_for
from grader.results.render import json_text
from grader.results.score_document import ScoreDocument, parse, to_json_or_none
from grader.semester.ledger import Entry, content_digest
from grader.semester.policy import utc_text


class RecordRefused(ValueError):
    """A report folder or times file that cannot be recorded as given; one line saying why."""


@dataclass(frozen=True)
class StoredDocument:
    """A score document read from a report folder (its typed records), with its path and digest."""

    path: Path
    doc: ScoreDocument
    digest: str

    @property
    def student(self) -> str:
        """The student: the id the LMS gave, else the submission id."""
        return self.doc.submission.student_id or self.doc.submission.id


def document_digest(raw: bytes) -> str:
    """The digest of a score document: of its JSON as `grade` writes it (json_text), less its
    `semester` section (added after the grading was recorded, see grader.semester.annotation);
    a file that is not a JSON object: of its bytes."""
    try:
        doc = json.loads(raw)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        doc.pop("semester", None)
        raw = json_text(doc).encode("utf-8")
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def read_document(path: Path) -> ScoreDocument:
    """The typed records of a stored score document; RecordRefused if it cannot be read or is
    not shaped as the schema says."""
    try:
        return parse(json.loads(path.read_bytes()))
    except (OSError, ValueError) as exc:  # DocumentError is a ValueError
        raise RecordRefused(f"{path}: the recorded document cannot be read ({exc})") from None


def read_documents(out_dir: Path, lab: str) -> list[StoredDocument]:
    """The graded score documents of `lab` in a report folder (`<id>/scores.json`), by id."""
    found = []
    for path in sorted(out_dir.glob("*/scores.json")):
        raw = path.read_bytes()
        doc = read_document(path)
        if doc.lab != lab:
            raise RecordRefused(f"{path} is a document of {doc.lab}, not {lab}")
        found.append(StoredDocument(path.resolve(), doc, document_digest(raw)))
    if not found:
        raise RecordRefused(f"{out_dir} holds no score document (<submission>/scores.json)")
    return found


def _suite_paths(suite: Path) -> list[Path]:
    """A suite folder's files, in a stable order (compiled caches left out)."""
    return sorted(p for p in suite.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def suite_version(lab: Lab, public_only: bool = False) -> str:
    """The grader's version and a digest of the suite files a grading of `lab` runs."""
    digest = hashlib.sha256()
    for suite in suites_for(lab, hidden=not public_only):
        for path in _suite_paths(suite):
            digest.update(str(path.relative_to(suite.parent)).encode("utf-8") + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return f"{__version__}+sha256:{digest.hexdigest()[:16]}"


def hidden_suite_files(lab: Lab) -> dict[str, bytes]:
    """The hidden suite's files as a grading runs them now, by path in the suite's folder: what
    the ledger keeps so that the grading replays with them after the suite changed."""
    return {path.relative_to(lab.hidden_tests).as_posix(): path.read_bytes()
            for path in _suite_paths(lab.hidden_tests)}


def public_only(doc: ScoreDocument) -> bool:
    """The document was graded with the public suite only (its recorded options say so)."""
    return doc.options is not None and doc.options.public_only


def isolation_how(doc: ScoreDocument) -> str | None:
    """How the document's grading kept student code apart (None: not recorded, schema 1.0)."""
    return doc.isolation.how if doc.isolation is not None else None


def plan_of(lab: Lab, doc: ScoreDocument, seed: str,
            hidden_suite: Path | None = None) -> GradingPlan:
    """The grading plan that produced `doc`, with `seed` (course weights as the document recorded);
    `hidden_suite`: a folder holding the hidden suite as it was then, in place of today's."""
    public = public_only(doc)
    suites = suites_for(lab, hidden=not public)
    if hidden_suite is not None and not public:
        suites = (*suites_for(lab, hidden=False), hidden_suite)
    return GradingPlan(lab, suites, seed, doc.lang, in_process=isolation_how(doc) == "in-process",
                       weights=dict(doc.config.weights) if doc.config else {},
                       config=to_json_or_none(doc.config))


def check_seed(lab: Lab, document: StoredDocument, seed: str) -> None:
    """RecordRefused unless the document was graded with `seed` and the options it records."""
    if report_options(plan_of(lab, document.doc, seed)) != to_json_or_none(document.doc.options):
        raise RecordRefused(f"{document.path} was not graded with this seed (or these options); "
                            "give --seed as given to grade")


def read_times(path: Path) -> dict[str, str]:
    """student -> submitted_at (ISO 8601 UTC) from the instructor's CSV (`student,submitted_at`)."""
    times = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), 2):
            try:
                times[row["student"]] = utc_text(row["submitted_at"])
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise RecordRefused(f"{path}:{line}: needs student and submitted_at, an ISO 8601 "
                                    f"time with a zone ({exc})") from None
    return times


def time_of(document: StoredDocument, times: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The attempt's time and where it came from: the instructor's CSV, else the platform's
    (the document's `submission.submitted_at`), else (None, None): unknown, never guessed."""
    if document.student in times:
        return times[document.student], "times-csv"
    submission = document.doc.submission
    if submission.submitted_at:
        return utc_text(submission.submitted_at), submission.lms or "document"
    return None, None


def checks_of(doc: ScoreDocument) -> dict[str, str]:
    """Each check's status in a document."""
    return {check.id: check.status for check in doc.checks}


def check_points_of(doc: ScoreDocument) -> dict[str, float]:
    """Each check's points (its max_score) in a document."""
    return {check.id: float(check.max_score) for check in doc.checks}


def check_points(doc_path: Path) -> dict[str, float]:
    """Each check's points in a recorded document; RecordRefused if it cannot be read."""
    return check_points_of(read_document(doc_path))


def source_of(doc: ScoreDocument, base: Path) -> str | None:
    """The submission's folder or file, absolute, if it is still on disk (a replay needs it)."""
    source = base / doc.submission.source
    return str(source.resolve()) if source.exists() else None


def entry_of(lab: Lab, document: StoredDocument, seed: str, submitted_at: str | None,
             base: Path, kind: str = "grade", regrades: int | None = None,
             time_source: str | None = None) -> Entry:
    """The ledger row of one score document."""
    doc = document.doc
    detail: dict[str, Any] = {"time_source": time_source,
        "checks": checks_of(doc), "check_points": check_points_of(doc), "status": doc.status,
        "submission_id": doc.submission.id, "submission_digest": doc.submission.digest,
        "source": source_of(doc, base), "grader_version": doc.grader_version,
        "options": to_json_or_none(doc.options)}
    if regrades is not None:
        detail["regrades"] = regrades
    public = public_only(doc)
    if not public:  # the suite's files are kept in the ledger by their digests (replay)
        detail["suite_files"] = {name: content_digest(content)
                                 for name, content in hidden_suite_files(lab).items()}
    return Entry(kind, document.student, lab.name, submitted_at=submitted_at,
                 late=doc.submission.late, doc_digest=document.digest,
                 doc_path=str(document.path), score=doc.score, max_score=doc.max_score,
                 suite_version=suite_version(lab, public), seed=seed,
                 isolation=json.dumps(to_json_or_none(doc.isolation), sort_keys=True),
                 detail=detail)


def suite_files_of(lab: Lab, rows: Sequence[Entry]) -> list[bytes]:
    """The hidden suite's files to keep with rows that name them (none when no row does)."""
    return list(hidden_suite_files(lab).values()) if any("suite_files" in r.detail for r in rows) else []
