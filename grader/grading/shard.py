"""Grading one shard of prepared submissions in one pytest process, and reading back its documents.

Side: trusted process. The student code of the shard runs only in the sandbox children that the
pytest plugin starts.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.common.labs import COURSE_ROOT, PACKAGE_DIR, Lab
from grader.grading.manifest import ManifestSubmission, ShardManifest, write_manifest
from grader.grading.sandbox import shard_zygote
from grader.grading.sandbox.jail import IN_PROCESS, available_isolation, default_interpreter
from grader.grading.sandbox.sandbox import Limits
from grader.intake.collect import PreparedSubmission
from grader.results.build import entries_by_submission, graded_document, grader_error_document
from grader.results.score_document import as_document

PYTEST_INI = PACKAGE_DIR / "grading" / "pytest-grader.ini"
# pytest's root holds both the public suites (under the course) and the hidden ones (in the
# package): the checkout's root, or the package itself when installed from a wheel.
PYTEST_ROOT = Path(os.path.commonpath([COURSE_ROOT, PACKAGE_DIR]))
# Only the plugins grading needs: autoloading every installed plugin (hypothesis's among
# them) costs more start-up time than a whole submission's checks.
# pytest-json-report serializes the run (grader.grading.plugin streams its entries per submission);
# it writes no file (--json-report-file none): nothing would read one.
PLUGINS = ("pytest_jsonreport.plugin", "grader.grading.plugin")
# pytest's own plugins that grading never uses, left out on the command line (where `-p no:`
# also spares importing them; in the ini file it would only unregister them once imported).
# Kept: collection and running, the terminal, capture, skipping, assertion rewriting and
# legacypath (pytest-json-report reads the session's fspath).
UNUSED_PYTEST_PLUGINS = (
    "cacheprovider", "debugging", "doctest", "faulthandler", "junitxml", "logging", "monkeypatch",
    "pastebin", "recwarn", "setuponly", "setupplan", "stepwise", "subtests", "threadexception",
    "tmpdir", "unittest", "unraisableexception", "warnings",
)
REPORT_OMIT = ("collectors", "keywords", "log", "streams", "warnings", "traceback")
POLL_S = 0.05  # how often the stream of finished submissions is read
ENDED_EARLY = {"kind": "reference-ended-early", "params": {}}  # no document, and no failure seen


@dataclass(frozen=True)
class GradingPlan:
    """How to grade any number of submissions: the lab, which suites, the seed, the language."""

    lab: Lab
    suites: tuple[Path, ...]
    seed: str
    lang: str
    in_process: bool = False
    keyword: str = ""  # a pytest -k expression: grade with these checks only (project tests)
    # A student's own check (`check`): of an edited lab file and an edited notebook, one is
    # checked and the other named as not checked; grading calls that pair ungradable.
    student: bool = False
    # A course file's weights for this lab (check id -> weight) and what the documents record.
    weights: dict[str, float] = field(default_factory=dict)
    config: dict[str, Any] | None = None
    budget_s: float = Limits.budget_s  # wall-clock seconds per submission (Limits.budget_s)
    # pytest runs in this process (run_pytest_here), not in a child: one submission in a
    # process that ends after it (`check`, a platform's run), where a second Python costs more
    # than all its checks. The sandbox keeps student code out of this process all the same.
    here: bool = False

    def isolation(self) -> dict[str, str]:
        """The isolation student code gets under this plan (the strongest this machine has)."""
        return (IN_PROCESS if self.in_process else available_isolation()).as_dict()


def suites_for(lab: Lab, hidden: bool) -> tuple[Path, ...]:
    """The public suite, plus the hidden one when asked and present."""
    suites = [lab.public_tests]
    if hidden:
        if not lab.hidden_tests.is_dir():
            raise FileNotFoundError(f"no hidden suite for {lab.name} at {lab.hidden_tests}")
        suites.append(lab.hidden_tests)
    return tuple(suites)


def pytest_command(plan: GradingPlan, manifest: Path, quiet: bool = True,
                   stream: Path | None = None, plugin_flags: bool = True) -> list[str]:
    """The pytest invocation for one shard; without plugin_flags, for a pytest in this process
    that is handed the PLUGINS as modules (a `-p` name makes pytest search every installed
    distribution's entry points for it first)."""
    # The suites come first: --json-report-omit takes every word that follows it.
    return [
        sys.executable, "-m", "pytest", *(str(path) for path in plan.suites),
        # --tb=no: a failed check is said by its detail; pytest's traceback of it (source read
        # and parsed per failure) is read by nobody
        *(("-q", "--tb=no") if quiet else ("-v",)), "-c", str(PYTEST_INI),
        # the suites use no bare assert (a check says what failed by its detail): nothing for
        # pytest to rewrite, so no rewritten bytecode for a fresh container to make each run
        "--assert=plain",
        "--rootdir", str(PYTEST_ROOT),
        *(arg for name in PLUGINS if plugin_flags for arg in ("-p", name)),
        *(arg for name in UNUSED_PYTEST_PLUGINS for arg in ("-p", f"no:{name}")),
        "--grader-manifest", str(manifest),
        *(["--grader-stream", str(stream)] if stream else []),
        "--json-report", "--json-report-file", "none", "--json-report-omit", *REPORT_OMIT,
        # no capture: student code never writes in this process (its output comes through the
        # sandbox's pipe, or the in-process runner's own capture); pytest's fd capture around
        # every phase of every check would be read by nobody
        "-s",
        *(["-k", plan.keyword] if plan.keyword else []),
    ]


def _as_record(sub: PreparedSubmission) -> dict[str, Any]:
    return {**sub.meta, "id": sub.id, "source": sub.source, "digest": sub.digest,
            "notebook": sub.notebook, "unchecked": list(sub.unchecked),
            "other_lab": dict(sub.other_lab) if sub.other_lab else None}


def _grader_error(plan: GradingPlan, sub: PreparedSubmission,
                  reference: Mapping[str, Any]) -> dict[str, Any]:
    return grader_error_document(plan.lab.name, _as_record(sub), reference, plan.lang,
                                 plan.isolation())


OnDocument = Callable[[dict[str, Any]], None]


def grade_shard(plan: GradingPlan, shard: Sequence[PreparedSubmission], workdir: Path,
                timeout_s: float, interactive: bool = False,
                on_document: OnDocument | None = None,
                stop: threading.Event | None = None) -> list[dict[str, Any]]:
    """Grade the shard in one pytest process; one document per submission, in shard order.

    Each submission's document is handed to on_document as soon as its last check finishes,
    not when the shard ends. When `stop` is set, pytest is interrupted and only the
    submissions that had finished get a document; the others get none.
    """
    if stop is not None and stop.is_set():
        return []
    manifest = workdir / "manifest.json"
    stream = ShardStream(workdir / "finished.jsonl", plan, shard, on_document)
    write_manifest(ShardManifest(
        lab=plan.lab.name, seed=plan.seed, in_process=plan.in_process,
        weights=plan.weights, budget_s=plan.budget_s,
        submissions=tuple(ManifestSubmission(id=s.id, workdir=str(s.workdir), digest=s.digest,
                                             notebook=s.notebook, cells=s.cells)
                          for s in shard),
    ), manifest)
    command = pytest_command(plan, manifest, stream=stream.path, plugin_flags=not plan.here)
    returncode: int | None
    if plan.here:
        returncode, tail = run_pytest_here(command, sandboxed=not plan.in_process)
    else:
        returncode, tail = _run_pytest(command, timeout_s, interactive, stream, stop)
    stream.read()
    if stop is not None and stop.is_set():
        return [stream.documents[sub.id] for sub in shard if sub.id in stream.documents]
    # What went wrong, as a detail the catalogue says in words (details.reference-*).
    reference: dict[str, Any]
    if returncode is None:
        reference = {"kind": "reference-shard-timeout", "params": {"seconds": round(timeout_s)}}
        unfinished = [sub for sub in shard if sub.id not in stream.documents]
        if len(unfinished) > 1:
            # Only the submission being graded when the limit came is the grader's error; the
            # ones after it are graded in a shard of their own (each check's trusted time is
            # already charged to its own submission: grader.grading.trusted_time).
            stream.deliver(_grader_error(plan, unfinished[0], reference))
            rest = unfinished[1:]
            again = workdir / f"rest-{len(rest)}"
            again.mkdir(exist_ok=True)
            left = max(timeout_s - (len(shard) - len(rest)) * plan.budget_s,
                       len(rest) * plan.budget_s + 60.0)
            for doc in grade_shard(plan, rest, again, left, interactive, on_document, stop):
                stream.documents[as_document(doc).submission.id] = doc
            return [stream.documents[sub.id] for sub in shard if sub.id in stream.documents]
    elif returncode not in (0, 1):
        reference = {"kind": "reference-pytest-exited",
                     "params": {"code": returncode, "output": tail[:300]}}
    else:
        reference = ENDED_EARLY
    for sub in shard:
        if sub.id not in stream.documents:
            stream.deliver(_grader_error(plan, sub, reference))
    return [stream.documents[sub.id] for sub in shard]


class ShardStream:
    """The submissions a running shard has finished, read from the plugin's stream file."""

    def __init__(self, path: Path, plan: GradingPlan, shard: Sequence[PreparedSubmission],
                 on_document: OnDocument | None) -> None:
        self.path = path
        self.plan = plan
        self.by_id = {sub.id: sub for sub in shard}
        self.on_document = on_document
        self.documents: dict[str, dict[str, Any]] = {}
        self.offset = 0

    def read(self) -> None:
        """Build and deliver the documents of the complete lines written since the last read."""
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except FileNotFoundError:
            return
        complete = data[: data.rfind(b"\n") + 1]  # a line being written is left for later
        self.offset += len(complete)
        for line in complete.splitlines():
            self._document(json.loads(line))

    def _document(self, line: dict[str, Any]) -> None:
        sub = self.by_id.get(line.get("submission", ""))
        if sub is None or sub.id in self.documents:
            return
        entries = entries_by_submission({"tests": line["tests"]}).get(sub.id, [])
        if not entries or len(entries) != line.get("checks"):
            self.deliver(_grader_error(self.plan, sub, ENDED_EARLY))
            return
        flags = _flags(sub, entries)
        self.deliver(graded_document(self.plan.lab.name, _as_record(sub), entries, flags,
                                     self.plan.lang, self.plan.isolation(),
                                     config=self.plan.config))

    def deliver(self, doc: dict[str, Any]) -> None:
        """Keep the document and hand it on."""
        self.documents[as_document(doc).submission.id] = doc
        if self.on_document is not None:
            self.on_document(doc)


def _run_pytest(command: list[str], timeout_s: float, interactive: bool, stream: ShardStream,
                stop: threading.Event | None) -> tuple[int | None, str]:
    """Run pytest, reading the stream as it goes; (exit code or None on timeout, last line)."""
    process = subprocess.Popen(
        command, cwd=PYTEST_ROOT, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        stdin=None if interactive else subprocess.DEVNULL,
        stdout=None if interactive else subprocess.PIPE,
        stderr=None if interactive else subprocess.STDOUT,
        # Its own process group, so that Ctrl-C reaches the grader alone and the grader stops
        # each shard itself; an interactive run shares the terminal with the student's code.
        start_new_session=not interactive,
    )
    output = _OutputTail(process)
    deadline = time.monotonic() + timeout_s
    returncode: int | None = None
    try:
        while returncode is None:
            try:
                returncode = process.wait(POLL_S)
            except subprocess.TimeoutExpired:
                stream.read()
                if stop is not None and stop.is_set():
                    _kill(process)
                    returncode = process.returncode
                elif time.monotonic() > deadline:
                    _kill(process)
                    return None, output.last_line()
    except BaseException:  # a document that could not be delivered (its report not written)
        _kill(process)
        raise
    return returncode, output.last_line()


def run_pytest_here(command: Sequence[str], sandboxed: bool = True) -> tuple[int, str]:
    """Run pytest_command's pytest in this process, in the main thread; (exit code, last line).

    The same arguments, root and plugins as the child would get. There is no shard timeout:
    each scenario's own budget bounds the student's code. Ctrl-C stops pytest, then grading.
    """
    output = io.StringIO()  # pytest's own terminal lines, which the child's pipe would take
    autoload = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        if sandboxed:  # its shard zygote boots while pytest is imported (the session takes it)
            shard_zygote.start_early(default_interpreter())
        import pytest  # here: a class's grader process never needs pytest itself

        with contextlib.chdir(PYTEST_ROOT), contextlib.redirect_stdout(output):
            code = pytest.main(list(command[3:]),  # past `python -m pytest`
                               plugins=[importlib.import_module(name) for name in PLUGINS])
    finally:
        shard_zygote.close_early()
        if autoload is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = autoload
    if code == pytest.ExitCode.INTERRUPTED:
        raise KeyboardInterrupt
    lines = output.getvalue().strip().splitlines()
    return int(code), lines[-1] if lines else ""


class _OutputTail:
    """Drains pytest's output in a thread (a full pipe would block it) and keeps the end."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.tail = b""
        self.thread: threading.Thread | None = None
        if process.stdout is not None:
            self.thread = threading.Thread(target=self._drain, args=(process.stdout,),
                                           daemon=True)
            self.thread.start()

    def _drain(self, pipe: Any) -> None:
        for chunk in iter(lambda: pipe.read(65536), b""):
            self.tail = (self.tail + chunk)[-4096:]

    def last_line(self) -> str:
        if self.thread is not None:
            self.thread.join(1.0)
        lines = self.tail.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""


def _kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the shard's process group, at once.

    pytest takes seconds to wind down on SIGINT, too long for a grader told to stop. Its
    sandboxes (each a session of its own) do not outlive it for long: a zygote exits when
    its request pipe closes, once the scenario it runs ends or hits its CPU limit.
    """
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def _flags(sub: PreparedSubmission, entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Static flags found when the submission was prepared, then runtime flags, each once."""
    unique: dict[str, dict[str, Any]] = {}
    for flag in [*sub.flags, *(f for entry in entries for f in entry.get("flags", []))]:
        unique.setdefault(flag["id"] + json.dumps(flag["params"], sort_keys=True), flag)
    return list(unique.values())
