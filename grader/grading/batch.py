"""Grading submissions: prepare each one, grade shards in parallel, write one report each.

The one grading path: `grade` runs it over a class with report files, `check` over one
submission with the public suite and no files. Each report is written, whole, as soon as its
submission finishes, so an interrupted run keeps every finished report, and `--resume` skips
submissions whose report matches their content.

Side: trusted process.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader import __version__
from grader.common.atomic import TEMPORARY_SUFFIX
from grader.common.labs import Lab
from grader.grading.sandbox.jail import available_isolation
from grader.grading.shard import GradingPlan, grade_shard, suites_for
from grader.grading.shard_record import ShardRecord
from grader.intake.collect import (
    PreparedSubmission,
    Submission,
    Ungradable,
    collect,
    prepare,
    source_label,
    unique_ids,
)
from grader.results.build import grader_error_document, ungradable_document
from grader.results.course_look import remembered_templates
from grader.results.render import report_texts
from grader.results.report_folder import SHARD_RECORD, OutputUnwritable, reserved_ids
from grader.results.report_folder import write_file as _write_atomically
from grader.results.score_document import as_document, parse, to_json_or_none

if TYPE_CHECKING:  # imported where used: a student's check never waits on a pool
    from concurrent.futures import Future

DEFAULT_SEED = "minigrad-labs"  # the public seed of `check`: the public checks are fixed
# progress(done, total, doc, kept): called once per submission, as soon as its report exists;
# kept is True for a report --resume kept from an earlier run.
Progress = Callable[[int, int, dict[str, Any], bool], None]


class StopRequested(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that one path stops grading for both."""

    signum = signal.SIGTERM


class GradingInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped grading; the finished submissions' reports were written."""

    def __init__(self, written: int, total: int, signum: int) -> None:
        super().__init__(f"interrupted: {written} of {total} reports written")
        self.written = written
        self.total = total
        self.signum = signum


@dataclass(frozen=True)
class BatchOptions:
    """How to grade a class."""

    out_dir: Path | None  # None: no report files (`check`), only the documents returned
    workers: int = max(1, os.cpu_count() or 1)
    shard_size: int = 0  # 0: split the class evenly over the workers, at most MAX_SHARD each
    keep_order: bool = False  # shards are contiguous slices of the class (else: dealt, see deal)
    resume: bool = False
    # A shard's limit: this, plus each of its submissions' budget (GradingPlan.budget_s), so
    # that no submission's report depends on how long the others of its shard take.
    shard_timeout_s: float = 600.0
    interactive: bool = False  # the student's terminal reaches their code (`check --debug`)
    shard: tuple[int, int] | None = None  # (K, N): grade only shard K of N, by submission id
    points: float | None = None  # gradebook grades scaled to this many points
    canvas_column: str | None = None  # Canvas import column, "Title (assignment id)"
    gradebook: Path | None = None  # the gradebook the LMS exported, to fill in
    templates: Path | None = None  # a course's template overrides (course_config.course_templates)


# What write_reports leaves while it writes: hidden folders named by tempfile.mkdtemp
# (`.<id>.` or `.<id>.old.` and 8 characters), each removed by the next run if still there.
STAGING = re.compile(r"^\.[A-Za-z0-9][A-Za-z0-9._-]*\.[a-z0-9_]{8}$")


def remove_staging(out_dir: Path) -> None:
    """Remove what an earlier run stopped in the middle of writing left in the folder."""
    for entry in out_dir.iterdir():
        if entry.is_dir() and not entry.is_symlink() and STAGING.match(entry.name):
            shutil.rmtree(entry, ignore_errors=True)
        elif (entry.name.endswith(TEMPORARY_SUFFIX) and entry.is_file()
              and entry.name.removesuffix(TEMPORARY_SUFFIX) in reserved_ids()):
            entry.unlink(missing_ok=True)


def write_reports(doc: dict[str, Any], out_dir: Path, templates: Path | None = None) -> Path:
    """Write scores.json and the feedback files of one submission, all or none (`templates`:
    a course's template overrides, else those the folder remembers, `course_look`).

    The files are written in a hidden folder beside the report and renamed into place, so a
    report folder is complete or absent, whenever the run is stopped.
    """
    folder = out_dir / as_document(doc).submission.id
    templates = templates if templates is not None else remembered_templates(out_dir)
    staging: Path | None = None
    writing = folder
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=out_dir))
        for name, text in report_texts(doc, templates).items():
            writing = folder / name
            (staging / name).write_text(text, encoding="utf-8")
        staging.chmod(0o755)
        writing = folder
        _replace_folder(staging, folder, out_dir)
    except OSError as exc:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        raise OutputUnwritable(writing, exc) from exc
    return folder


def _replace_folder(staging: Path, folder: Path, out_dir: Path) -> None:
    """Put the complete staging folder in the report's place (a regrade's old one goes away)."""
    if folder.exists():  # a regrade: the old report goes aside first, then away
        old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.old.", dir=out_dir))
        os.replace(folder, old / folder.name)
        os.replace(staging, folder)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staging, folder)


def report_options(plan: GradingPlan) -> dict[str, Any]:
    """The options that change a report, as recorded in its document (the seed only hashed)."""
    seed = hashlib.sha256(b"minigrad-labs seed\0" + plan.seed.encode("utf-8")).hexdigest()
    options: dict[str, Any] = {"seed": f"sha256:{seed[:16]}",
                               "public_only": plan.suites == suites_for(plan.lab, hidden=False)}
    if plan.config:  # a course file's weights: a report scored with others is not kept
        weights = json.dumps(plan.weights, sort_keys=True).encode("utf-8")
        options["config"] = f"sha256:{hashlib.sha256(weights).hexdigest()[:16]}"
    return options


def _previous(out_dir: Path, sub: PreparedSubmission, plan: GradingPlan) -> dict[str, Any] | None:
    """The existing report for this exact content, lab, grader version, report options and
    isolation (a report graded under weaker isolation is graded again)."""
    path = out_dir / sub.id / "scores.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        doc = parse(raw)
    except (OSError, ValueError):  # DocumentError is a ValueError
        return None
    same = (doc.lab == plan.lab.name and doc.grader_version == __version__
            and doc.submission.digest == sub.digest
            and doc.lang == plan.lang and to_json_or_none(doc.options) == report_options(plan)
            and to_json_or_none(doc.isolation) == plan.isolation() and doc.status == "graded")
    return raw if same else None


def in_shard(submission_id: str, shard: tuple[int, int]) -> bool:
    """Whether the submission belongs to shard K of N: a hash of its id, the same on every machine."""
    index, count = shard
    number = int.from_bytes(hashlib.sha256(submission_id.encode("utf-8")).digest()[:8], "big")
    return number % count == index - 1


# Submissions per shard when BatchOptions.shard_size is 0. A shard is one pytest session (its
# start and collection, and its shard zygote's, are paid once per shard) that streams each
# submission's document as it finishes, so a large shard costs neither progress nor interrupts.
MAX_SHARD = 100
ORDERED_SHARD = 25  # keep_order's slices, as grading cut shards before dealing


def shard_count(count: int, workers: int, size: int = 0) -> int:
    """How many shards `count` submissions make: `size` each when given, else a multiple of
    the workers with at most MAX_SHARD each (so every worker gets as many shards)."""
    if count <= 0:
        return 0
    if size:
        return -(-count // size)
    workers = max(1, workers)
    return min(count, workers * -(-count // (workers * MAX_SHARD)))


def deal(costs: Sequence[float], workers: int, size: int = 0,
         keep_order: bool = False) -> list[list[int]]:
    """Indices of the submissions in each shard, the costliest shard first.

    Balanced (the default): longest expected first, each submission goes to the shard with
    the least expected time so far among those with room (no shard holds more than the
    class divided evenly, rounded up), so no worker idles while another has a queue; each
    shard keeps the class's order. keep_order: contiguous slices of the class in its order,
    `size` each (0: the class over the workers, at most ORDERED_SHARD), as grading did before
    dealing (the red-team corpus puts each attack beside the control that shows its harm).
    """
    if keep_order:
        size = size or max(1, min(ORDERED_SHARD, -(-len(costs) // max(1, workers))))
        return [list(range(i, min(i + size, len(costs)))) for i in range(0, len(costs), size)]
    count = shard_count(len(costs), workers, size)
    if count == 0:
        return []
    room = -(-len(costs) // count)
    shards: list[list[int]] = [[] for _ in range(count)]
    totals = [0.0] * count
    for item in sorted(range(len(costs)), key=lambda i: (-costs[i], i)):
        target = min((i for i in range(count) if len(shards[i]) < room),
                     key=lambda i: (totals[i], len(shards[i]), i))
        shards[target].append(item)
        totals[target] += costs[item]
    order = sorted(range(count), key=lambda i: (-totals[i], i))
    return [sorted(shards[i]) for i in order]


def _expected_costs(items: Sequence[PreparedSubmission], out_dir: Path | None,
                    resume: bool) -> list[float]:
    """Each submission's expected grading time: the last run's (its report's duration_s, with
    --resume), else its size scaled by the seconds per byte of those with one (bytes alone
    when none has)."""
    sizes = [float(max(1, sum(p.stat().st_size for p in sub.workdir.rglob("*") if p.is_file())))
             for sub in items]
    last = [_last_duration(out_dir, sub) if resume and out_dir is not None else None
            for sub in items]
    rates = sorted(t / b for t, b in zip(last, sizes, strict=True) if t)
    rate = rates[len(rates) // 2] if rates else 1.0
    return [t if t else b * rate for t, b in zip(last, sizes, strict=True)]


def _last_duration(out_dir: Path, sub: PreparedSubmission) -> float | None:
    """How long the submission's previous report took to grade (None: no such report)."""
    try:
        doc = parse(json.loads((out_dir / sub.id / "scores.json").read_text(encoding="utf-8")))
        duration = float(doc.duration_s or 0.0)
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return duration if duration > 0 else None


def _shards(items: Sequence[PreparedSubmission], options: BatchOptions) -> list[list[Any]]:
    costs = _expected_costs(items, options.out_dir, options.resume)
    return [[items[i] for i in shard] for shard in
            deal(costs, options.workers, options.shard_size, options.keep_order)]


def shard_record(plan: GradingPlan, options: BatchOptions, settings: dict[str, Any],
                 class_ids: Sequence[str]) -> dict[str, Any]:
    """What a report folder was graded with, for `merge` to compare: the shard spec, lab, grader
    version, report options (seed digest, suites, weights), language, gradebook settings, and
    every submission id of the class (so a missing shard names the students it holds)."""
    return ShardRecord(shard=options.shard, lab=plan.lab.name, grader_version=__version__,
                       options=report_options(plan), lang=plan.lang, gradebook=settings,
                       class_ids=tuple(sorted(class_ids))).to_json()


def write_shard_record(out_dir: Path, plan: GradingPlan, options: BatchOptions,
                       class_ids: Sequence[str]) -> None:
    """Write the folder's shard.json (see `shard_record`)."""
    from grader.results.class_files import gradebook_settings  # class files: not a student's check

    settings = gradebook_settings(out_dir, options)
    record = shard_record(plan, options, settings, class_ids)
    _write_atomically(out_dir / SHARD_RECORD, json.dumps(record, indent=2) + "\n")


def class_members(items: Sequence[Path | Submission], lab: Lab,
                  writes_folder: bool = True) -> list[Submission]:
    """The class as grading names it: paths and LMS submissions, each with its unique id, never
    a name of the report folder's own files (`check` writes no folder: no name is reserved)."""
    paths = [item for item in items if isinstance(item, Path)]
    return unique_ids([*collect(paths, lab), *(i for i in items if isinstance(i, Submission))],
                      reserved_ids() if writes_folder else ())


def grade_class(plan: GradingPlan, items: Sequence[Path | Submission], options: BatchOptions,
                progress: Progress) -> list[dict[str, Any]]:
    """Grade every submission (paths, or submissions an LMS export named); returns the
    documents in the order given, only those of shard K of N when `options.shard` is set.

    Each report is written as soon as its submission has finished. On KeyboardInterrupt (the
    CLI turns SIGTERM into one too) the running shards are stopped within about a second,
    the class files are written from the reports on disk, and GradingInterrupted says how
    many of this run's submissions have one.
    """
    out_dir = options.out_dir
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        remove_staging(out_dir)
    submissions = class_members(items, plan.lab, writes_folder=out_dir is not None)
    recorded = report_options(plan)
    if out_dir is not None:
        write_shard_record(out_dir, plan, options, [sub.id for sub in submissions])
    if options.shard is not None:
        submissions = [sub for sub in submissions if in_shard(sub.id, options.shard)]
    docs: dict[str, dict[str, Any]] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def finished(doc: dict[str, Any], kept: bool = False) -> None:
        with lock:
            if not kept:
                doc["options"] = recorded
                if out_dir is not None:
                    try:
                        write_reports(doc, out_dir, options.templates)
                    except OutputUnwritable as failed:
                        stop.set()  # every shard stops: no report can be written any more
                        failed.kept = sum(sub.id in docs for sub in submissions)
                        raise
            docs[as_document(doc).submission.id] = doc
            progress(len(docs), len(submissions), doc, kept)

    with tempfile.TemporaryDirectory(prefix="minigrad-grader-",
                                     ignore_cleanup_errors=True) as scratch_name:
        scratch = Path(scratch_name)
        os.chmod(scratch, 0o711)
        try:
            pending = _prepare_all(plan, submissions, options, scratch, finished)
            _grade_pending(plan, pending, options, scratch, finished, stop)
        except KeyboardInterrupt as interrupt:
            stop.set()
            with lock:
                written = sum(sub.id in docs for sub in submissions)
            if out_dir is not None:
                _write_class_files(out_dir, plan.lang, options)
            signum = getattr(interrupt, "signum", signal.SIGINT)
            raise GradingInterrupted(written, len(submissions), signum) from None
    ordered = [docs[sub.id] for sub in submissions]
    if out_dir is not None:
        _write_class_files(out_dir, plan.lang, options)
    return ordered


def _write_class_files(out_dir: Path, lang: str, options: BatchOptions) -> None:
    """class.csv, the dashboard and the gradebooks, from every report in the folder."""
    from grader.results.class_files import write_class_files  # class files: not a student's check

    write_class_files(out_dir, lang, options)


def check_submission(lab: Lab, path: Path, lang: str, debug: bool = False,
                     seed: str = DEFAULT_SEED, here: bool = False) -> dict[str, Any]:
    """The score document of the public checks on one lab folder, file or notebook (`check`).

    `make check` and the notebook's check cell both come here, so both say the same. `here`:
    pytest in this process (GradingPlan.here), for a command line that ends after it; a
    notebook's kernel lives on, and gets a pytest process of its own. --debug runs pytest in
    a child, so that the student's breakpoint() has the terminal.
    """
    # Where no sandbox can run (Windows outside WSL), the student's own code runs in-process,
    # as with --debug: it is their code on their machine.
    in_process = debug or available_isolation().how == "in-process"
    plan = GradingPlan(lab, suites_for(lab, hidden=False), seed, lang, in_process=in_process,
                       student=True, here=here and not debug)
    options = BatchOptions(out_dir=None, workers=1, shard_timeout_s=300, interactive=debug)
    [doc] = grade_class(plan, [path], options, progress=lambda *_: None)
    return doc


def _prepare_all(plan: GradingPlan, submissions: Sequence[Any], options: BatchOptions,
                 scratch: Path, finished: Callable[..., None]) -> list[PreparedSubmission]:
    """Copy each submission into the scratch folder; report the unreadable and the unchanged."""
    pending = []
    for sub in submissions:
        record = {**sub.meta, "id": sub.id, "source": source_label(sub), "digest": ""}
        try:
            prepared = prepare(sub, plan.lab, scratch, student=plan.student)
        except Ungradable as exc:
            finished(ungradable_document(plan.lab.name, record, exc.detail, plan.lang,
                                         plan.isolation()))
            continue
        except Exception as exc:  # the grader's own fault, but this submission's report alone
            reference = {"kind": "reference-preparing", "params": {
                "error": f"{type(exc).__name__}: {str(exc)[:200]}"}}
            finished(grader_error_document(plan.lab.name, record, reference, plan.lang,
                                           plan.isolation()))
            continue
        previous = (_previous(options.out_dir, prepared, plan)
                    if options.resume and options.out_dir is not None else None)
        if previous is not None:
            finished(previous, kept=True)
        else:
            pending.append(prepared)
    return pending


SIGNAL_POLL_S = 0.2  # the longest a signal waits for the main thread to see it


def wait_for_each(futures: Sequence[Future[Any]]) -> None:
    """Wait until every future is done, raising the first failure as soon as it is known.

    The waits are timed: a signal sent to the process may be delivered to any of its threads,
    and Python runs its handler (Ctrl-C's KeyboardInterrupt, SIGTERM's StopRequested) only in
    the main thread, at its next instruction. A main thread blocked in an untimed wait would
    not reach one until a shard ended, which can be minutes away.
    """
    from concurrent.futures import FIRST_EXCEPTION, wait

    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=SIGNAL_POLL_S, return_when=FIRST_EXCEPTION)
        for future in done:
            future.result()


def _grade_pending(plan: GradingPlan, pending: Sequence[PreparedSubmission],
                   options: BatchOptions, scratch: Path, finished: Callable[..., None],
                   stop: threading.Event) -> None:
    """Grade the shards in parallel; every document reaches `finished` as it is built."""
    shards = _shards(pending, options)
    if plan.here:  # pytest in this process: in its main thread, one shard after the other
        for index, shard in enumerate(shards):
            workdir = scratch / f"shard-{index}"
            workdir.mkdir()
            grade_shard(plan, shard, workdir, options.shard_timeout_s, options.interactive,
                        finished, stop)
        return
    from concurrent.futures import ThreadPoolExecutor  # here: a check has no pool

    pool = ThreadPoolExecutor(max_workers=options.workers)
    futures = []
    try:
        for index, shard in enumerate(shards):
            workdir = scratch / f"shard-{index}"
            workdir.mkdir()
            limit = options.shard_timeout_s + len(shard) * plan.budget_s
            futures.append(pool.submit(grade_shard, plan, shard, workdir,
                                       limit, options.interactive,
                                       finished, stop))
        wait_for_each(futures)
    except BaseException:
        stop.set()  # an interrupt or a failure: running shards stop, queued ones never start
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
