"""`grade --ledger`: the run's score documents recorded as attempts as soon as grading ends.

Side: trusted process. The ledger and the policy are opened and checked before anything is
graded (a damaged ledger or a bad policy is a usage error, and nothing is graded); after the run,
its documents are appended in one transaction with the hidden suite files they were graded with,
and this run's reports get their semester note. Two `grade` runs writing one ledger at once
each wait for the other's transaction (the ledger's BEGIN IMMEDIATE and busy timeout): neither
loses a row.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.common.labs import Lab
from grader.results.console import say
from grader.results.score_document import Document, as_document
from grader.semester.annotation import annotate_folder, sections_by_document
from grader.semester.ledger import LedgerDamaged, open_ledger
from grader.semester.policy import Policy, PolicyError, load_policy, policy_in_force
from grader.semester.recording import (
    RecordRefused,
    StoredDocument,
    document_digest,
    entry_of,
    read_times,
    suite_files_of,
    time_of,
)

RunRefused = (LedgerDamaged, PolicyError, RecordRefused, OSError)  # said as one usage line


@dataclass(frozen=True)
class LedgerRun:
    """What `grade --ledger` records into, checked before grading."""

    ledger: Path
    policy: Policy | None
    policy_source: str | None
    times: Mapping[str, str]
    by: str | None

    @classmethod
    def open(cls, args: argparse.Namespace) -> LedgerRun:
        """Check the ledger (opened whole), the policy and the times file; RunRefused else."""
        with open_ledger(Path(args.ledger)):
            pass
        policy = load_policy(Path(args.policy)) if args.policy else None
        times = read_times(Path(args.times)) if args.times else {}
        return cls(Path(args.ledger), policy, args.policy, times, args.by)

    def record(self, lab: Lab, out_dir: Path, docs: Sequence[Document], seed: str,
               lang: str) -> int:
        """Append this run's graded documents as attempts (those already recorded are not), then
        give this run's reports their semester note; the number of rows appended."""
        documents = []
        for doc in map(as_document, docs):
            path = out_dir / doc.submission.id / "scores.json"
            raw = path.read_bytes()
            documents.append(StoredDocument(path.resolve(), doc, document_digest(raw)))
        with open_ledger(self.ledger) as ledger:
            known = {(e.student, e.doc_digest) for e in ledger.entries(lab.name) if e.kind == "grade"}
            rows = []
            for document in documents:
                if (document.student, document.digest) not in known:
                    when, source = time_of(document, self.times)
                    rows.append(entry_of(lab, document, seed, when, Path.cwd(), time_source=source))
            policy = policy_in_force(ledger, self.policy, self.policy_source, self.by)
            ledger.append(rows, who=self.by, suite_files=suite_files_of(lab, rows))
            if policy is not None:
                annotate_folder(out_dir, sections_by_document(ledger.entries(), policy, lab.name))
        say("semester.cli.recorded", lang, stream=sys.stdout, count=str(len(rows)), lab=lab.name,
            known=str(len(documents) - len(rows)), ledger=str(self.ledger))
        return len(rows)

