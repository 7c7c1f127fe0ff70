"""Grading one shard of prepared submissions in one pytest process, and reading back its documents.

Side: trusted process. The student code of the shard runs only in the sandbox children that the
pytest plugin starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.intake import PreparedSubmission
from grader.labs import COURSE_ROOT, PACKAGE_DIR, Lab
from grader.results.build import entries_by_submission, graded_document, grader_error_document
from grader.sandbox.jail import IN_PROCESS, available_isolation

PYTEST_INI = PACKAGE_DIR / "pytest-grader.ini"
# pytest's root holds both the public suites (under the course) and the hidden ones (in the
# package): the checkout's root, or the package itself when installed from a wheel.
PYTEST_ROOT = Path(os.path.commonpath([COURSE_ROOT, PACKAGE_DIR]))
# Only the plugins grading needs: autoloading every installed plugin (hypothesis's among
# them) costs more start-up time than a whole submission's checks.
PLUGINS = ("pytest_jsonreport.plugin", "pytest_metadata.plugin", "grader.plugin")
REPORT_OMIT = ("collectors", "keywords", "log", "streams", "warnings", "traceback")


@dataclass(frozen=True)
class GradingPlan:
    """How to grade any number of submissions: the lab, which suites, the seed, the language."""

    lab: Lab
    suites: tuple[Path, ...]
    seed: str
    lang: str
    in_process: bool = False

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


def pytest_command(plan: GradingPlan, manifest: Path, report: Path, quiet: bool = True) -> list[str]:
    """The pytest invocation for one shard."""
    # The suites come first: --json-report-omit takes every word that follows it.
    return [
        sys.executable, "-m", "pytest", *(str(path) for path in plan.suites),
        "-q" if quiet else "-v", "-c", str(PYTEST_INI),
        "--rootdir", str(PYTEST_ROOT), *(arg for name in PLUGINS for arg in ("-p", name)),
        "--grader-manifest", str(manifest),
        "--json-report", "--json-report-file", str(report), "--json-report-omit", *REPORT_OMIT,
        *(["-s"] if plan.in_process else []),
    ]


def _as_record(sub: PreparedSubmission) -> dict[str, Any]:
    return {**sub.meta, "id": sub.id, "source": sub.source, "digest": sub.digest}


def _grader_error(plan: GradingPlan, sub: PreparedSubmission, reference: str) -> dict[str, Any]:
    return grader_error_document(plan.lab.name, _as_record(sub), reference, plan.lang,
                                 plan.isolation())


def grade_shard(plan: GradingPlan, shard: Sequence[PreparedSubmission], workdir: Path,
              timeout_s: float, interactive: bool = False) -> list[dict[str, Any]]:
    """Grade the shard in one pytest process; one document per submission, in shard order."""
    manifest = workdir / "manifest.json"
    report_path = workdir / "report.json"
    manifest.write_text(json.dumps({
        "lab": plan.lab.name, "seed": plan.seed, "in_process": plan.in_process,
        "submissions": [{"id": s.id, "workdir": str(s.workdir), "digest": s.digest}
                        for s in shard],
    }), encoding="utf-8")
    command = pytest_command(plan, manifest, report_path)
    try:
        completed = subprocess.run(
            command, cwd=PYTEST_ROOT, timeout=timeout_s, check=False,
            env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
            stdin=None if interactive else subprocess.DEVNULL,
            stdout=None if interactive else subprocess.PIPE,
            stderr=None if interactive else subprocess.STDOUT,
        )
    except subprocess.TimeoutExpired:
        return [_grader_error(plan, sub, f"the shard took over {timeout_s:.0f} s") for sub in shard]
    if completed.returncode not in (0, 1) or not report_path.is_file():
        tail = (completed.stdout or b"").decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        reference = f"pytest exited with {completed.returncode}: {tail[0][:300]}"
        return [_grader_error(plan, sub, reference) for sub in shard]
    report = json.loads(report_path.read_text(encoding="utf-8"))
    grouped = entries_by_submission(report)
    expected = max((len(entries) for entries in grouped.values()), default=0)
    documents = []
    for sub in shard:
        entries = grouped.get(sub.id, [])
        if not entries or len(entries) != expected:
            documents.append(_grader_error(plan, sub, "the check run ended early"))
        else:
            flags = _flags(sub, entries)
            documents.append(graded_document(plan.lab.name, _as_record(sub), entries, flags,
                                             plan.lang, plan.isolation()))
    return documents


def _flags(sub: PreparedSubmission, entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Static flags found when the submission was prepared, then runtime flags, each once."""
    unique: dict[str, dict[str, Any]] = {}
    for flag in [*sub.flags, *(f for entry in entries for f in entry.get("flags", []))]:
        unique.setdefault(flag["id"] + json.dumps(flag["params"], sort_keys=True), flag)
    return list(unique.values())
