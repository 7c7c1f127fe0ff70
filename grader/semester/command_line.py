"""The handlers of `python -m grader semester ACTION` (the parser is in `command_parser`).

Side: trusted process. Each handler prints its lines from the catalogue (`semester.cli.*`) and
returns the exit code: 0 done, 2 a usage problem (a bad file, a damaged ledger: nothing is
written), 3 a replay that found a difference.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from grader.common.atomic import write_atomically
from grader.common.labs import LABS
from grader.grading.batch import DEFAULT_SEED
from grader.results.console import say
from grader.results.i18n import Catalogue, format_number
from grader.semester.annotation import annotate_recorded
from grader.semester.attempts import Attempt, attempts_by_student, semester_grades
from grader.semester.export import ExportRefused, gradebook_text
from grader.semester.grades_table import grades_csv
from grader.semester.ledger import Entry, Ledger, LedgerDamaged, open_ledger
from grader.semester.policy import Policy, PolicyError, load_policy, policy_in_force, utc_text
from grader.semester.recording import (
    RecordRefused,
    check_points,
    check_seed,
    entry_of,
    read_documents,
    read_times,
    suite_files_of,
    time_of,
)
from grader.semester.regrade import compare, diff_lines, regrade_entries, write_diff
from grader.semester.replay import replay

EXIT_OK, EXIT_USAGE, EXIT_DIFFERS = 0, 2, 3
PROBLEMS = (LedgerDamaged, PolicyError, RecordRefused, ExportRefused, OSError, ValueError)


class SemesterUsage(ValueError):
    """A command line the semester tools cannot act on; the message is one line."""


def _lab(name: str) -> str:
    if name not in LABS:
        raise SemesterUsage(f"unknown lab {name!r} (known: {', '.join(sorted(LABS))})")
    return name


def _policy(args: argparse.Namespace, ledger: Ledger) -> Policy | None:
    """The --policy file, recorded in the ledger when it changed; else the ledger's latest."""
    given = getattr(args, "policy", None)
    return policy_in_force(ledger, load_policy(Path(given)) if given else None,
                           str(given) if given else None, args.by)


def _seed(args: argparse.Namespace) -> str:
    return str(args.seed or os.environ.get("GRADER_SEED") or DEFAULT_SEED)


def cmd_record(args: argparse.Namespace, ledger: Ledger) -> int:
    """Record a report folder's score documents as attempts."""
    lab = LABS[_lab(args.lab)]
    documents = read_documents(Path(args.out_dir), lab.name)
    seed = _seed(args)
    for document in documents:
        check_seed(lab, document, seed)
    times = read_times(Path(args.times)) if args.times else {}
    known = {(e.student, e.doc_digest) for e in ledger.entries(lab.name) if e.kind == "grade"}
    rows = []
    for document in documents:
        if (document.student, document.digest) not in known:
            when, source = time_of(document, times)
            rows.append(entry_of(lab, document, seed, when, Path.cwd(), time_source=source))
    _policy(args, ledger)
    ledger.append(rows, who=args.by, suite_files=suite_files_of(lab, rows))
    _annotate(args, ledger)
    say("semester.cli.recorded", args.lang, stream=sys.stdout, count=str(len(rows)),
        lab=lab.name, known=str(len(documents) - len(rows)), ledger=str(ledger.path))
    return EXIT_OK


def cmd_grades(args: argparse.Namespace, ledger: Ledger) -> int:
    """The counted grade per student and lab, after the policy, as CSV."""
    policy = _policy(args, ledger)
    if policy is None:
        raise SemesterUsage("the ledger holds no policy yet: give --policy semester.toml")
    entries = ledger.entries()
    grades = [g for g in semester_grades(entries, policy) if not args.lab or g.lab == args.lab]
    text = grades_csv(grades, Catalogue.load(args.lang))
    if args.out:
        write_atomically(Path(args.out), text)
        say("semester.cli.grades_written", args.lang, stream=sys.stdout, count=str(len(grades)),
            out=str(args.out))
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_extend(args: argparse.Namespace, ledger: Ledger) -> int:
    """Give a student a later due date for a lab."""
    until = utc_text(args.until)
    ledger.append([Entry("extension", args.student, _lab(args.lab),
                         detail={"until": until, "reason": args.reason})], who=args.by)
    say("semester.cli.extended", args.lang, stream=sys.stdout, student=args.student, lab=args.lab,
        until=until)
    _annotate(args, ledger)
    return EXIT_OK


def cmd_override(args: argparse.Namespace, ledger: Ledger) -> int:
    """Set a student's grade for a lab, or one check's status, with a reason; the grader's stays
    in the ledger."""
    lab = _lab(args.lab)
    attempts = attempts_by_student(ledger.entries(lab), lab).get(args.student)
    if not attempts:
        raise SemesterUsage(f"{args.student} has no recorded attempt of {lab}")
    if (args.score is None) == (args.check is None) or (args.check is None) != (args.status is None):
        raise SemesterUsage("give either --score, or --check with --status")
    if args.check is not None:
        return _override_check(args, ledger, lab, attempts[-1])
    maximum = attempts[-1].graded.max_score or 0.0
    if not 0 <= args.score <= maximum:
        raise SemesterUsage(f"--score {args.score} is outside 0..{format_number(maximum)}")
    ledger.append([Entry("override", args.student, lab, score=args.score, max_score=maximum,
                         detail={"reason": args.reason})], who=args.by)
    say("semester.cli.overridden", args.lang, stream=sys.stdout, student=args.student, lab=lab,
        score=format_number(args.score, args.lang))
    _annotate(args, ledger)
    return EXIT_OK


def _override_check(args: argparse.Namespace, ledger: Ledger, lab: str, latest: Attempt) -> int:
    """An override of one check's status: its points come from the latest attempt's document."""
    checks = check_points(Path(latest.graded.doc_path or ""))
    if args.check not in checks:
        raise SemesterUsage(f"{args.student}'s latest attempt of {lab} has no check {args.check!r}")
    was = latest.graded.detail.get("checks", {}).get(args.check, "absent")
    ledger.append([Entry("override", args.student, lab, detail={
        "check": args.check, "status": args.status, "was": was, "points": checks[args.check],
        "reason": args.reason})], who=args.by)
    say("semester.cli.check_overridden", args.lang, stream=sys.stdout, student=args.student,
        lab=lab, check=args.check, status=args.status, was=was)
    _annotate(args, ledger)
    return EXIT_OK


def _annotate(args: argparse.Namespace, ledger: Ledger) -> None:
    """Write the recorded reports again with their semester notes (the ledger's policy), and say so."""
    policy = _policy(args, ledger)
    if policy is None:
        return
    count = annotate_recorded(ledger.entries(), policy)
    if count:
        say("semester.cli.annotated", args.lang, stream=sys.stdout, count=str(count))


def cmd_regrade(args: argparse.Namespace, ledger: Ledger) -> int:
    """Diff a regrade's documents against the recorded attempts; record them unless --dry-run."""
    lab = LABS[_lab(args.lab)]
    out_dir = Path(args.out_dir)
    documents = read_documents(out_dir, lab.name)
    seed = _seed(args)
    for document in documents:
        check_seed(lab, document, seed)
    regrade = compare(ledger.entries(lab.name), lab.name, documents)
    for line in diff_lines(regrade, Catalogue.load(args.lang)):
        print(line)
    written = write_diff(regrade, out_dir)
    if args.dry_run:
        say("semester.cli.dry_run", args.lang, stream=sys.stdout, diff=str(written))
        return EXIT_OK
    rows = regrade_entries(lab, regrade, seed, Path.cwd())
    ledger.append(rows, who=args.by, suite_files=suite_files_of(lab, rows))
    _annotate(args, ledger)
    say("semester.cli.regraded", args.lang, stream=sys.stdout, count=str(len(rows)),
        diff=str(written), ledger=str(ledger.path))
    return EXIT_OK


def cmd_export(args: argparse.Namespace, ledger: Ledger) -> int:
    """Write the LMS's gradebook file with the counted grades of one lab."""
    lab = _lab(args.lab)
    policy = _policy(args, ledger)
    if policy is None:
        raise SemesterUsage("the ledger holds no policy yet: give --policy semester.toml")
    _refuse_gradebook_options(args)
    grades = [g for g in semester_grades(ledger.entries(), policy) if g.lab == lab]
    if not grades:
        raise SemesterUsage(f"the ledger holds no attempt of {lab}")
    text = gradebook_text(grades, args.lms, args.points, args.canvas_column, args.lang,
                          Path(args.gradebook) if args.gradebook else None)
    write_atomically(Path(args.out), text)
    say("semester.cli.exported", args.lang, stream=sys.stdout, lms=args.lms, lab=lab,
        out=str(args.out), left_out=str(sum(g.counted is None for g in grades)))
    return EXIT_OK


def _refuse_gradebook_options(args: argparse.Namespace) -> None:
    """A fresh gradebook the LMS would not import as meant (its target's `option_problem`)."""
    from grader.results.lms.registry import target_named  # the LMS targets: export alone

    target = target_named(args.lms)
    problem = None if args.gradebook or target is None else target.option_problem(
        args.points, args.canvas_column)
    if problem is not None:
        key, params = problem
        raise SemesterUsage(Catalogue.load(args.lang).text(f"cli.errors.{key}", **params))


def cmd_verify(args: argparse.Namespace, ledger: Ledger) -> int:
    """Replay recorded gradings and report any document that differs."""
    results = replay(ledger.entries(), args.sample, args.sample_seed,
                     suite_file=ledger.suite_file)
    bad = 0
    for result in results:
        entry = result.entry
        if result.version:
            say("semester.cli.other_version", args.lang, stream=sys.stdout, seq=str(entry.seq),
                version=result.version)
        if result.outcome != "identical":
            bad += 1
            say(f"semester.cli.replay_{result.outcome}", args.lang, stream=sys.stdout,
                seq=str(entry.seq), student=entry.student, lab=entry.lab,
                fields=", ".join(result.fields), path=str(entry.doc_path),
                source=str(entry.detail.get("source")))
    say("semester.cli.verified", args.lang, stream=sys.stdout, count=str(len(results)),
        identical=str(len(results) - bad))
    return EXIT_DIFFERS if bad else EXIT_OK


def run(handler: Callable[[argparse.Namespace, Ledger], int]) -> Callable[[argparse.Namespace], int]:
    """The handler with its ledger opened and closed, and its problems said in one line."""
    def handle(args: argparse.Namespace) -> int:
        try:
            with open_ledger(Path(args.ledger)) as ledger:
                return handler(args, ledger)
        except (SemesterUsage, *PROBLEMS) as exc:
            say("cli.error", args.lang, message=str(exc))
            return EXIT_USAGE
    return handle
