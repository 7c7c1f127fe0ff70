"""The `semester` section of a score document: what the policy and the instructor made of that attempt.

Side: trusted process. After a grading is recorded, each of its documents gets a language-free
section (grader.results.semester_note turns it into sentences): the attempt's time and lateness,
the penalty, its score after the instructor's check overrides and after the penalty, whether it is
the attempt that counts and the grade that counts, the extension and the overrides with who and
why. The feedback, class.csv, the dashboard and the gradebook files are then written again from
the documents. The section is not part of the grading: a document's recorded digest leaves it
out (`recording.document_digest`), and so does a replay's comparison.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from grader.grading.batch import write_reports
from grader.results.class_files import write_class_files
from grader.results.score_document import Semester, parse, to_json
from grader.semester.attempts import (
    Attempt,
    Grade,
    attempt_score,
    attempts_by_student,
    semester_grades,
)
from grader.semester.late import record
from grader.semester.ledger import Entry
from grader.semester.policy import Policy
from grader.semester.recording import document_digest


def section_of(grade: Grade, attempt: Attempt) -> Semester:
    """The section of one attempt of a student's lab, given the lab's grade under the policy."""
    late, penalised_score = grade.each[attempt.row.seq]
    override = grade.override
    return Semester(
        submitted_at=attempt.row.submitted_at,
        time_source=attempt.row.detail.get("time_source"),
        late=record(late),
        score=attempt_score(attempt, grade.check_overrides),
        max_score=attempt.graded.max_score or 0.0,
        penalised_score=penalised_score,
        counts=grade.counted is not None and grade.counted.row.seq == attempt.row.seq,
        counted_score=grade.final,
        extension=({"until": grade.extension.until, "reason": grade.extension.reason}
                   if grade.extension else None),
        override=({"who": override.who, "reason": str(override.detail.get("reason", "")),
                   "score": override.score} if override else None),
        check_overrides=tuple(
            {"check": o.detail["check"], "status": o.detail["status"], "was": o.detail["was"],
             "who": o.who, "reason": o.detail["reason"]}
            for o in grade.check_overrides
            if o.detail["check"] in attempt.graded.detail.get("checks", {})),
    )


def sections_by_document(entries: Sequence[Entry], policy: Policy, lab: str) -> dict[str, Semester]:
    """Each recorded document of `lab` (by its digest, grades and regrades) -> its section."""
    attempts = {a.row.seq: a for each in attempts_by_student(entries, lab).values() for a in each}
    found: dict[str, Semester] = {}
    for grade in semester_grades(entries, policy):
        if grade.lab != lab:
            continue
        for seq in grade.each:
            section = section_of(grade, attempts[seq])
            for row in (attempts[seq].row, attempts[seq].graded):
                if row.doc_digest:
                    found[row.doc_digest] = section
    return found


def annotate_folder(out_dir: Path, sections: Mapping[str, Semester]) -> int:
    """Give every recorded document in a report folder its section and write its report again,
    then the class files (only when a section changed); the number of reports written again."""
    changed = 0
    lang = None
    for path in sorted(out_dir.glob("*/scores.json")):
        raw = path.read_bytes()
        section = sections.get(document_digest(raw))
        if section is None:
            continue
        doc = parse(json.loads(raw))
        lang = lang or doc.lang
        if doc.semester != section:
            write_reports(to_json(replace(doc, semester=section)), out_dir)
            changed += 1
    if changed and lang:
        write_class_files(out_dir, lang)
    return changed


def annotate_recorded(entries: Sequence[Entry], policy: Policy) -> int:
    """Annotate every report folder the ledger recorded a document in (late days span labs, so a
    new attempt can change another lab's notes); the number of reports written again."""
    folders: dict[str, set[Path]] = {}
    for entry in entries:
        if entry.kind in ("grade", "regrade") and entry.doc_path and entry.lab in policy.due:
            folder = Path(entry.doc_path).parent.parent
            if folder.is_dir():
                folders.setdefault(entry.lab, set()).add(folder)
    return sum(annotate_folder(folder, sections_by_document(entries, policy, lab))
               for lab, found in sorted(folders.items()) for folder in sorted(found))
