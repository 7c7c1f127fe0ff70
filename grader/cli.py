"""The command line: `python -m grader check | grade | merge | export | render | build-labs | labs | semester`.

Exit codes: 0 the command finished (whatever the scores), 1 `build-labs --check` found
stale stubs, 2 usage error, 3 the grader failed, 130 (143) stopped by Ctrl-C (SIGTERM).
Every line printed comes from the catalogue (`cli.*`), in the language of --lang or the locale.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib.util
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from grader.common.keyed_error import KeyedError
from grader.common.labs import COURSE_ROOT, LABS, Lab
from grader.grading.batch import (
    DEFAULT_SEED,
    BatchOptions,
    GradingInterrupted,
    StopRequested,
    check_submission,
    grade_class,
)
from grader.grading.checking.todos import public_checks_by_todo
from grader.grading.sandbox.jail import available_isolation
from grader.grading.shard import GradingPlan, suites_for
from grader.intake import lms
from grader.intake.collect import Submission
from grader.results.console import print_summary, progress_display, say
from grader.results.course_look import remembered_templates
from grader.results.i18n import LANGUAGES, Catalogue, default_language, format_number
from grader.results.render import isolation_notes, render_feedback, render_summary
from grader.results.report_folder import SHARD_RECORD, OutputUnwritable, read_reports
from grader.results.score_document import as_document

EXIT_OK, EXIT_STALE, EXIT_USAGE, EXIT_GRADER = 0, 1, 2, 3
EXIT_SIGNAL = 128  # plus the signal's number, as shells report it: 130 Ctrl-C, 143 SIGTERM


class UsageError(KeyedError):
    """A bad command line: a catalogue key under cli.errors and its parameters, one line."""


def _lab(name: str) -> Lab:
    if name not in LABS:
        raise UsageError("unknown_lab", lab=name, known=", ".join(sorted(LABS)))
    return LABS[name]


def _labs_here() -> list[str]:
    """The labs whose folder is here: all of them in the repository, the release's in a kit."""
    return [name for name, lab in LABS.items() if lab.public_tests.is_dir()]


def _todos_of_checks(lab: Lab) -> dict[str, tuple[int, ...]]:
    """The TODOs each public check of the lab judges (the `todo=` of its marker)."""
    found: dict[str, tuple[int, ...]] = {}
    for todo, ids in public_checks_by_todo(lab).items():
        for check_id in ids:
            found[check_id] = (*found.get(check_id, ()), todo)
    return found


def cmd_check(args: argparse.Namespace) -> int:
    """Public checks on the student's own lab folder, feedback to the terminal."""
    lab = _lab(args.lab)
    if not lab.public_tests.is_dir():
        raise UsageError("not_in_kit", lab=lab.name, labs=", ".join(_labs_here()))
    path = Path(args.path) if args.path else lab.student_dir
    if not path.exists():
        raise UsageError("no_such_path", path=str(path))
    started = time.perf_counter()
    doc = check_submission(lab, path, args.lang, debug=args.debug, seed=args.seed, here=True)
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    terminal = args.format == "terminal"
    brief = None if args.all or not terminal else _todos_of_checks(lab)
    print(render_feedback(doc, args.format, color=color and terminal, brief=brief))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    say("cli.elapsed", args.lang,
        seconds=format_number(round(time.perf_counter() - started, 2), args.lang))
    if args.verbose:
        for note in isolation_notes([doc], Catalogue.load(args.lang)):
            print(note["text"], file=sys.stderr)
    return EXIT_GRADER if as_document(doc).status == "grader-error" else EXIT_OK


def _writable_out(out: str) -> Path:
    """The --out folder, created if need be; a usage error if it is a file or unwritable."""
    out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError("out_is_file", path=out)
    try:  # trying is the only honest test: root passes every access() check
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as exc:
        raise UsageError("out_unwritable", path=out, reason=exc.strerror or str(exc)) from None
    return out_dir


def _on_sigterm(signum: int, frame: FrameType | None) -> NoReturn:
    raise StopRequested()


def _course_config(path: str) -> Any:
    """The course file (`--config`), checked with its template overrides; a usage error else."""
    from grader.grading.course_config import (  # a course's own file
        ConfigError,
        load_course_config,
    )

    try:
        return load_course_config(Path(path))
    except ConfigError as exc:
        raise UsageError("course_config", message=str(exc)) from None


def _shard(text: str | None) -> tuple[int, int] | None:
    """K/N as (K, N), 1 <= K <= N."""
    if text is None:
        return None
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise UsageError("shard_format", text=repr(text))
    return int(index), int(count)


def _class_submissions(kind: str, export: Path, scratch: Path, lang: str) -> list[Submission]:
    """The submissions of an LMS export, each carrying what the LMS says of its student."""
    from grader.results.lms.registry import read_class  # class files: `check` never imports them

    try:
        members = read_class(kind, export, scratch)
    except lms.ExportError as exc:
        reason = Catalogue.load(lang).text(f"cli.errors.lms.{exc.key}", **exc.params)
        raise UsageError("lms_export", reason=reason) from None
    return [Submission(m.submission_id, m.source, {
        "student_id": m.student_id, "name": m.name, "lms": m.lms, "late": m.late,
        "duplicates": list(m.duplicates), "label": m.label}) for m in members]


def _refuse_classes(lab: Lab, paths: Sequence[Path]) -> None:
    """A folder that holds a class is not one submission, nor is each file of an LMS download
    one student: say how to grade it (refused, not warned: graded anyway, a student's attempt
    would be split into several "students" and their grades into several rows)."""
    from grader.results.lms.registry import (  # class files: not `check`
        download_naming,
        guess_class,
        target_named,
    )

    kind = download_naming(paths)
    if kind is not None:
        what = str(paths[0]) if len(paths) == 1 else f"{paths[0]} (+{len(paths) - 1})"
        raise UsageError("looks_like_lms_download", what=what, kind=kind)
    for path in paths:
        kind = guess_class(path, lab)
        if kind is not None and target_named(kind) is not None:
            raise UsageError("looks_like_lms_download", what=str(path), kind=kind)
        if kind is not None:
            raise UsageError("looks_like_class", path=str(path), kind=kind)


def _gradebook_options(args: argparse.Namespace, lab: Lab, lms_kind: str | None,
                       merging: bool = False) -> None:
    """Refuse, before grading, gradebook options the LMS would not import as meant."""
    from grader.results.lms import fill_in  # class files: `check` never imports them
    from grader.results.lms.registry import target_named  # class files: not `check`

    if args.gradebook:
        path = Path(args.gradebook)
        try:
            kind = fill_in.check(path.read_bytes(), path.name, lab.name, args.points,
                                 args.canvas_column)
        except OSError as exc:
            raise UsageError("gradebook", path=str(path), reason=exc.strerror or str(exc)) from None
        except fill_in.GradebookError as exc:
            raise UsageError("gradebook", path=str(path), reason=str(exc)) from None
        if lms_kind != kind and not merging:
            raise UsageError("gradebook", path=str(path), reason=f"a {kind} gradebook fills in "
                             f"the grades of a class graded with --lms {kind}")
        return
    target = target_named(lms_kind)
    problem = target.option_problem(args.points, args.canvas_column) if target else None
    if problem is not None:
        key, params = problem
        raise UsageError(key, **params)


def _say_gradebook_absent(args: argparse.Namespace, out_dir: Path) -> None:
    """Name the graded students the downloaded gradebook has no row for (they get no grade)."""
    if not args.gradebook:
        return
    from grader.results.lms import fill_in  # class files: `check` never imports them

    path = Path(args.gradebook)
    missing = fill_in.absent(path.read_bytes(), path.name, read_reports(out_dir))
    if missing:
        say("cli.gradebook_absent", args.lang, count=str(len(missing)), students=", ".join(missing))


def _say_what_goes_back(out_dir: Path, lang: str) -> None:
    """The closing lines (late submissions, the files to upload to the LMS), from every report
    in the folder; writes the LMS's feedback zip."""
    from grader.results.lms_summary import say_what_goes_back  # class files: not `check`

    say_what_goes_back(out_dir, read_reports(out_dir), lang)


def _ledger_run(args: argparse.Namespace) -> Any:
    """The semester ledger `grade --ledger` records into, opened and checked before grading."""
    if not getattr(args, "ledger", None):
        return None
    from grader.semester.grading_run import (  # not in the student kit: the semester's tools
        LedgerRun,
        RunRefused,
    )

    try:
        return LedgerRun.open(args)
    except RunRefused as exc:
        raise UsageError("semester_ledger", message=str(exc)) from None


def cmd_grade(args: argparse.Namespace) -> int:
    """Hidden and public checks on every submission; reports per submission and class files."""
    lab = _lab(args.lab)
    paths = [Path(p) for p in args.submissions]
    if not paths:
        raise UsageError("no_submissions")
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError("no_such_submission", paths=", ".join(missing))
    if args.lms and len(paths) != 1:
        raise UsageError("lms_one_export")
    try:
        suites = suites_for(lab, hidden=not args.public_only)
    except FileNotFoundError:
        raise UsageError("no_hidden_suite", lab=lab.name, path=str(lab.hidden_tests)) from None
    weights: dict[str, float] = {}
    record = None
    templates = None
    if args.config:
        config = _course_config(args.config)
        weights, record, templates = config.resolved(lab), config.record(lab), config.templates
    isolation = available_isolation()
    if not isolation.at_least("uid") and not args.allow_unisolated:
        catalogue = Catalogue.load(args.lang)
        raise UsageError("isolation_refused", **{
            key: catalogue.text(f"ui.isolation_{key}.{value}")
            for key, value in isolation.as_dict().items() if key != "memory"})
    shard = _shard(args.shard)
    if not args.lms:
        _refuse_classes(lab, paths)
    _gradebook_options(args, lab, None if args.lms in (None, lms.FOLDERS) else args.lms)
    ledger_run = _ledger_run(args)  # a damaged ledger or a bad policy: nothing is graded
    out_dir = _writable_out(args.out)  # last: a usage error leaves no folder behind
    seed = args.seed or os.environ.get("GRADER_SEED") or ""
    plan = GradingPlan(lab, suites, seed or DEFAULT_SEED, args.lang,
                       in_process=isolation.how == "in-process",  # only with --allow-unisolated
                       weights=weights, config=record)
    options = BatchOptions(out_dir=out_dir, workers=args.workers, resume=args.resume,
                           shard=shard, points=args.points, canvas_column=args.canvas_column,
                           gradebook=Path(args.gradebook) if args.gradebook else None,
                           templates=templates)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="minigrad-export-") as scratch:
        if args.lms:
            items: list[Path | Submission] = [
                *_class_submissions(args.lms, paths[0], Path(scratch), args.lang)]
        else:
            items = [*paths]
        if not seed:  # after every usage check: a usage error stays one line
            say("cli.seed_warning", args.lang)
        display = progress_display(args.lang)
        signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            docs = grade_class(plan, items, options, display)
        except GradingInterrupted as stopped:
            display.close()
            say("cli.interrupted", args.lang, written=str(stopped.written),
                total=str(stopped.total), out=str(out_dir))
            return EXIT_SIGNAL + stopped.signum
        except OutputUnwritable as failed:
            display.close()
            say_unwritable(failed, args.lang)
            return EXIT_GRADER
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        display.close()
        if ledger_run is not None:  # the semester's ledger: this run's documents are attempts
            ledger_run.record(lab, out_dir, docs, plan.seed, args.lang)
        if args.similarity:  # inside the export's scratch folder: it reads the submissions again
            _similarity_after_grading(args, lab, items, out_dir)
    elapsed = time.perf_counter() - started
    print_summary(docs, args.lang, templates=templates)
    _say_gradebook_absent(args, out_dir)
    _say_what_goes_back(out_dir, args.lang)
    say("cli.finished", args.lang, stream=sys.stdout, count=str(len(docs)),
        seconds=format_number(round(elapsed, 2), args.lang), out=str(out_dir), csv=str(out_dir / "class.csv"),
        dashboard=str(out_dir / "dashboard.html"))
    return EXIT_GRADER if any(as_document(d).status == "grader-error" for d in docs) else EXIT_OK


# What went wrong with the report folder, by errno: the catalogue's cli.out_reason and
# cli.out_advice keys (anything else: "other", with the system's own words).
OUT_PROBLEMS = {errno.ENOSPC: "no_space", errno.EDQUOT: "no_space", errno.EROFS: "read_only",
                errno.EACCES: "denied", errno.EPERM: "denied", errno.ENOENT: "gone",
                errno.ENOTDIR: "gone"}


def say_unwritable(failed: OutputUnwritable, lang: str) -> None:
    """The one line that says which report could not be written, why, and what to do."""
    catalogue = Catalogue.load(lang)
    problem = OUT_PROBLEMS.get(failed.errno, "other")
    say("cli.out_unwritable", lang, path=str(failed.path), kept=str(failed.kept),
        reason=catalogue.text(f"cli.out_reason.{problem}", error=os.strerror(failed.errno)),
        advice=catalogue.text(f"cli.out_advice.{problem}"))


def cmd_merge(args: argparse.Namespace) -> int:
    """Join the report folders of shards into one, with one class CSV and one dashboard."""
    from grader.grading.merging import MergeRefused, merge  # not a student's check

    folders = [Path(folder) for folder in args.folders]
    missing = [str(folder) for folder in folders if not folder.is_dir()]
    if missing:
        raise UsageError("no_report_folder", paths=", ".join(missing))
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError("out_is_file", path=str(out_dir))
    options = None
    if args.gradebook or args.points is not None or args.canvas_column:
        record = folders[0] / SHARD_RECORD
        if args.gradebook and record.is_file():  # no record: merge refuses it below
            _gradebook_options(args, _lab(json.loads(record.read_text(encoding="utf-8"))["lab"]),
                               None, merging=True)
        options = BatchOptions(out_dir=out_dir, points=args.points,
                               canvas_column=args.canvas_column,
                               gradebook=Path(args.gradebook) if args.gradebook else None)
    try:
        merged = merge(folders, out_dir, args.lang, args.allow_partial, options)
    except MergeRefused as refused:
        raise UsageError(refused.key, **refused.params) from None
    docs = merged.docs
    print(render_summary(docs, args.lang, remembered_templates(out_dir)))
    if merged.missing:
        say("cli.merged_partial", args.lang, count=str(len(merged.missing)),
            students=", ".join(merged.missing))
    _say_what_goes_back(out_dir, args.lang)
    say("cli.merged", args.lang, stream=sys.stdout, count=str(len(docs)),
        folders=str(len(folders)), out=str(out_dir), csv=str(out_dir / "class.csv"),
        dashboard=str(out_dir / "dashboard.html"))
    return EXIT_GRADER if any(as_document(d).status == "grader-error" for d in docs) else EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Write a grading platform's bundle for one lab (`grader.platforms.registry`)."""
    from grader.platforms.platform import ExportUsage  # not in the student kit: instructors export
    from grader.platforms.registry import (  # not in the student kit: instructors export
        platform_named,
    )

    lab = _lab(args.lab)
    if not lab.hidden_tests.is_dir():
        raise UsageError("no_hidden_suite", lab=lab.name, path=str(lab.hidden_tests))
    out = Path(args.out)
    if args.seed == "":
        raise UsageError("empty_seed")
    seed = args.seed or os.environ.get("GRADER_SEED") or ""
    platform = platform_named(args.platform)
    try:
        platform.refuse(out, args)
    except ExportUsage as refused:
        raise UsageError(refused.key, **refused.params) from None
    if not seed:  # after every usage check
        say("cli.export_seed_warning", args.lang)
    for key, params in platform.export(lab, out, args, seed or DEFAULT_SEED):
        say(key, args.lang, stream=sys.stdout, **params)
    return EXIT_OK


def cmd_render(args: argparse.Namespace) -> int:
    """Re-render a scores.json in another language or format."""
    try:
        doc = json.loads(Path(args.scores).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError("cannot_read", path=args.scores, reason=str(exc)) from None
    templates = _course_config(args.config).templates if args.config else None
    print(render_feedback(doc, args.format, lang=args.lang, templates=templates))
    return EXIT_OK


def cmd_build_labs(args: argparse.Namespace) -> int:
    """Regenerate the stubs in labs/ from solutions/ and the docs' generated tables, or report drift
    with --check."""
    from grader.authoring import contract_clauses  # not in the student kit: authoring
    from grader.authoring.build import build_labs  # not in the student kit: authoring
    from grader.authoring.readme_tables import ReadmeTableError  # not in the student kit: authoring
    from grader.authoring.stubgen import MarkerError  # not in the student kit: authoring
    from grader.grading.checking.declared import declared_by_lab  # not in the student kit: tables

    lang = default_language()
    try:
        changed = build_labs(COURSE_ROOT, check=args.check, declared=declared_by_lab())
    except (MarkerError, ReadmeTableError, contract_clauses.ContractClauseError) as exc:
        say("cli.grader_failure", lang, reason=str(exc))
        return EXIT_GRADER
    if args.check:
        for name in changed:
            say("cli.stale", lang, name=str(name))
        return EXIT_STALE if changed else EXIT_OK
    for name in changed:
        say("cli.wrote", lang, stream=sys.stdout, name=str(name))
    return EXIT_OK


def cmd_kit(args: argparse.Namespace) -> int:
    """Build the student kit (folder and zip) without solutions or hidden checks."""
    from grader.authoring.student_kit import (  # not in the student kit: authoring
        KitError,
        build_kit,
    )

    _lab(args.release)
    lang = default_language()
    out = Path(args.out or f"dist/minigrad-labs-kit-{args.release}")
    try:
        archive = build_kit(out, args.release)
    except KitError as exc:
        say("cli.grader_failure", lang, reason=str(exc))
        return EXIT_GRADER
    say("cli.kit_built", lang, stream=sys.stdout, release=args.release, folder=str(out),
        archive=str(archive))
    return EXIT_OK


def cmd_similarity(args: argparse.Namespace) -> int:
    """Compare what each student wrote with the rest of the class: a report of pairs to look at."""
    from grader.intake.collect import collect  # not in the student kit: instructors compare
    from grader.similarity.command import (  # not in the student kit: instructors compare
        SimilarityRun,
        write_similarity,
    )
    from grader.similarity.report import ReportOptions  # not in the student kit: staff only

    lab = _lab(args.lab)
    paths = [Path(p) for p in args.submissions]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError("no_such_submission", paths=", ".join(missing))
    if args.scores and not Path(args.scores).is_dir():
        raise UsageError("no_scores_folder", path=args.scores)
    bases = [Path(p) for p in args.base]
    if any(not p.is_file() for p in bases):
        raise UsageError("no_such_base", paths=", ".join(str(p) for p in bases if not p.is_file()))
    if not args.cut >= 0:
        raise UsageError("similarity_cut", text=str(args.cut))
    _refuse_classes(lab, paths)
    out_dir = _writable_out(args.out)
    run = SimilarityRun(args.lang, ReportOptions(cut=args.cut, top=max(1, args.top)),
                        Path(args.scores) if args.scores else None, tuple(bases), args.hash_ids,
                        args.workers)
    written = write_similarity(lab, collect(paths, lab), out_dir, run)
    _say_similarity(written, len(paths), args.lang)
    return EXIT_OK


def _similarity_after_grading(args: argparse.Namespace, lab: Lab, items: list[Path | Submission],
                              out_dir: Path) -> None:
    """`grade --similarity`: the class compared, with the score documents just written."""
    from grader.grading.batch import class_members  # not in the student kit: instructors compare
    from grader.similarity.command import (  # not in the student kit: instructors compare
        SimilarityRun,
        write_similarity,
    )

    members = class_members(items, lab)
    run = SimilarityRun(args.lang, scores=out_dir, pseudonyms=False, workers=args.workers)
    _say_similarity(write_similarity(lab, members, out_dir, run), len(members), args.lang)


def _say_similarity(written: Any, count: int, lang: str) -> None:
    say("cli.similarity_written", lang, stream=sys.stdout, count=str(count), html=str(written.html),
        json=str(written.json), above=str(written.above_cut))
    if written.ids is not None:
        say("cli.similarity_ids", lang, stream=sys.stdout, ids=str(written.ids))


def cmd_labs(args: argparse.Namespace) -> int:
    """List the labs."""
    for name in _labs_here():
        print("\t".join((name, ", ".join(LABS[name].files))))
    return EXIT_OK


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the message and where to read more, exit code 2."""

    lang = "en"  # each command line's parsers are a subclass with its language (build_parser)

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("python -m grader").strip()
        say("cli.usage", self.lang, message=message, command=command)
        raise SystemExit(EXIT_USAGE)


# argparse's own strings (its gettext message ids) and the catalogue key that says each one in
# the reader's language (cli.argparse.*); `_argparse_speaks` hands them to argparse.
ARGPARSE_MESSAGES: dict[str, str] = {
    "usage: ": "usage",
    "positional arguments": "positional",
    "options": "options",
    "show this help message and exit": "help",
    "the following arguments are required: %s": "required",
    "invalid choice: %(value)r (choose from %(choices)s)": "invalid_choice",
    "unrecognized arguments: %s": "unrecognized",
    "expected one argument": "expected_one",
    "expected at most one argument": "expected_at_most_one",
    "expected at least one argument": "expected_at_least_one",
    "expected %s argument": "expected_n_one",
    "expected %s arguments": "expected_n_other",
    "argument %(argument_name)s: %(message)s": "argument",
    "invalid %(type)s value: %(value)r": "invalid_value",
    "ambiguous option: %(option)s could match %(matches)s": "ambiguous",
    "not allowed with argument %s": "not_allowed_with",
    "one of the arguments %s is required": "one_required",
    "ignored explicit argument %r": "ignored_explicit",
    "unexpected option string: %s": "unexpected_option",
    "can't open '%(filename)s': %(error)s": "cannot_open",
}


@contextlib.contextmanager
def _argparse_speaks(lang: str) -> Iterator[None]:
    """While parsing, argparse's own words (usage, headings, errors) come from the catalogue.

    argparse looks its strings up through the module's `_` and `ngettext` (gettext) at the
    moment it prints them; they are swapped for catalogue lookups here and put back after
    (Python 3.11's argparse: tests/test_private_reads.py fails on another)."""
    catalogue = Catalogue.load(lang)

    def translate(message: str) -> str:
        key = ARGPARSE_MESSAGES.get(message)
        return catalogue.text(f"cli.argparse.{key}") if key else message

    def translate_plural(singular: str, plural: str, count: int) -> str:
        return translate(singular if count == 1 else plural)

    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = translate, translate_plural  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]


def _asked_language(argv: Sequence[str]) -> str:
    """The language of this command line: its --lang, else GRADER_LANG or the locale."""
    args = list(argv)
    for index, arg in enumerate(args):
        value = arg.partition("=")[2] if arg.startswith("--lang=") else (
            args[index + 1] if arg == "--lang" and index + 1 < len(args) else "")
        if value in LANGUAGES:
            return value
    return default_language()


def build_parser(lang: str | None = None,
                 words: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser for every command, its help in lang (default: from the locale).

    Given the command line's `words`, the LMS targets (`grade --lms`) and the platforms' export
    options are read only when a word is `grade` or `export`: a student's `check` loads neither."""
    lang = lang or default_language()
    catalogue = Catalogue.load(lang)

    def text(key: str) -> str:
        return catalogue.text(f"cli.help.{key}")

    parser_class = type(f"_Parser_{lang}", (_Parser,), {"lang": lang})
    parser = parser_class(prog="python -m grader", description=text("description"))
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=parser_class)
    language = {"choices": LANGUAGES, "default": default_language(), "help": text("lang")}

    check = commands.add_parser("check", help=text("check"))
    check.add_argument("lab", nargs="?", default="lab01_graph", help=text("check_lab"))
    check.add_argument("--path", help=text("check_path"))
    check.add_argument("--lang", **language)  # type: ignore[arg-type]
    check.add_argument("--format", choices=("terminal", "markdown", "html"), default="terminal",
                       help=text("format"))
    check.add_argument("--debug", action="store_true", help=text("check_debug"))
    check.add_argument("--json", metavar="FILE", help=text("check_json"))
    check.add_argument("--seed", default=DEFAULT_SEED, help=argparse.SUPPRESS)
    check.add_argument("--verbose", action="store_true", help=text("check_verbose"))
    check.add_argument("--all", action="store_true", help=text("check_all"))
    check.set_defaults(handler=cmd_check)

    grade = commands.add_parser("grade", help=text("grade"))
    grade.add_argument("lab", help=text("lab"))
    grade.add_argument("submissions", nargs="*", help=text("grade_submissions"))
    grade.add_argument("--out", required=True, help=text("grade_out"))
    grade.add_argument("--lang", **language)  # type: ignore[arg-type]
    grade.add_argument("--workers", type=int, default=max(1, os.cpu_count() or 1),
                       help=text("grade_workers"))
    grade.add_argument("--resume", action="store_true", help=text("grade_resume"))
    grade.add_argument("--seed", default=None, help=text("grade_seed"))
    grade.add_argument("--public-only", action="store_true", help=text("grade_public_only"))
    lms_kinds: Sequence[str] = ()
    if words is None or "grade" in words:
        from grader.results.lms.registry import KINDS  # class files: not `check`

        lms_kinds = KINDS
    grade.add_argument("--lms", choices=lms_kinds, help=text("grade_lms"))
    grade.add_argument("--shard", metavar="K/N", help=text("grade_shard"))
    grade.add_argument("--points", type=float, metavar="N", help=text("gradebook_points"))
    grade.add_argument("--canvas-column", metavar="'TITLE (ID)'",
                       help=text("gradebook_canvas_column"))
    grade.add_argument("--gradebook", metavar="FILE", help=text("gradebook"))
    grade.add_argument("--allow-unisolated", action="store_true",
                       help=text("grade_allow_unisolated"))
    grade.add_argument("--config", metavar="COURSE_TOML", help=text("grade_config"))
    grade.add_argument("--similarity", action="store_true", help=text("grade_similarity"))
    grade.set_defaults(handler=cmd_grade)

    merge_parser = commands.add_parser("merge", help=text("merge"))
    merge_parser.add_argument("folders", nargs="+", help=text("merge_folders"))
    merge_parser.add_argument("--out", required=True, help=text("merge_out"))
    merge_parser.add_argument("--lang", **language)  # type: ignore[arg-type]
    merge_parser.add_argument("--allow-partial", action="store_true",
                              help=text("merge_allow_partial"))
    merge_parser.add_argument("--gradebook", metavar="FILE", help=text("gradebook"))
    merge_parser.add_argument("--points", type=float, metavar="N", help=text("gradebook_points"))
    merge_parser.add_argument("--canvas-column", metavar="'TITLE (ID)'",
                              help=text("gradebook_canvas_column"))
    merge_parser.set_defaults(handler=cmd_merge)

    if importlib.util.find_spec("grader.platforms") is not None:  # the student kit has none
        export = commands.add_parser("export", help=text("export"))
        if words is None or "export" in words:
            from grader.platforms.registry import (  # not in the student kit: instructors export
                add_export_parsers,
            )

            add_export_parsers(export, parser_class, text, language, cmd_export)

    render = commands.add_parser("render", help=text("render"))
    render.add_argument("scores", help=text("render_scores"))
    render.add_argument("--lang", choices=LANGUAGES, default=None, help=text("lang"))
    render.add_argument("--format", choices=("terminal", "markdown", "html"), default="terminal",
                        help=text("format"))
    render.add_argument("--config", metavar="COURSE_TOML", help=text("render_config"))
    render.set_defaults(handler=cmd_render)

    build = commands.add_parser("build-labs", help=text("build_labs"))
    build.add_argument("--check", action="store_true", help=text("build_labs_check"))
    build.set_defaults(handler=cmd_build_labs)

    kit = commands.add_parser("kit", help=text("kit"))
    kit.add_argument("--release", required=True, metavar="LAB", help=text("kit_release"))
    kit.add_argument("--out", help=text("kit_out"))
    kit.set_defaults(handler=cmd_kit)

    similarity = commands.add_parser("similarity", help=text("similarity"))
    similarity.add_argument("lab", help=text("lab"))
    similarity.add_argument("submissions", nargs="+", help=text("similarity_submissions"))
    similarity.add_argument("--out", required=True, help=text("similarity_out"))
    similarity.add_argument("--lang", **language)  # type: ignore[arg-type]
    similarity.add_argument("--scores", metavar="GRADE_OUT", help=text("similarity_scores"))
    similarity.add_argument("--base", action="append", default=[], metavar="FILE",
                            help=text("similarity_base"))
    similarity.add_argument("--cut", type=float, default=3.5, help=text("similarity_cut"))
    similarity.add_argument("--top", type=int, default=50, help=text("similarity_top"))
    similarity.add_argument("--hash-ids", action="store_true", help=text("similarity_hash_ids"))
    similarity.add_argument("--workers", type=int, default=max(1, os.cpu_count() or 1),
                            help=text("similarity_workers"))
    similarity.set_defaults(handler=cmd_similarity)

    labs = commands.add_parser("labs", help=text("labs"))
    labs.set_defaults(handler=cmd_labs)
    if importlib.util.find_spec("grader.semester") is not None:  # the student kit has none
        from grader.semester.command_parser import (  # not in the student kit: instructors' semester tools
            add_ledger_options,
            add_semester_parser,
        )

        lms_names: Sequence[str] = ()
        if words is None or "semester" in words:
            from grader.results.lms.registry import NAMES  # class files: not `check`

            lms_names = NAMES
        add_semester_parser(commands, parser_class, text, language, lms_names)
        add_ledger_options(grade, text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    asked = _asked_language(words)
    with _argparse_speaks(asked):
        args = build_parser(asked, words).parse_args(words)
    lang = getattr(args, "lang", None) or default_language()
    if getattr(args, "workers", 1) < 1:
        say("cli.error", lang, message=Catalogue.load(lang).text("cli.errors.workers"))
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except UsageError as exc:
        catalogue = Catalogue.load(lang)
        key = f"cli.errors.{exc.key}"
        message = catalogue.text(key, **exc.params)
        say("cli.error", lang, message=message)
        return EXIT_USAGE
    except KeyboardInterrupt as interrupt:
        say("cli.interrupted_no_out", lang)
        return EXIT_SIGNAL + getattr(interrupt, "signum", signal.SIGINT)
    except BrokenPipeError:  # the reader went away (`... | head`): not a failure
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # the grader's own failure: say so, with exit code 3
        say("cli.grader_failure", lang, reason=f"{type(exc).__name__}: {exc}")
        return EXIT_GRADER
