"""The trusted side's own attacks, each in a class of three with two honest classmates, in every
mode: the class finishes within a minute, with three reports, none over the document's size,
and no check the grader's error (issue 38's classes of intake and reporting).

The attacks are folders of the red-team corpus (`tests/fixtures/redteam/`, graded there too
with the whole corpus) whose submissions a `generate` script writes at test time: a value.py
padded with newlines to 1 MiB, the same through a notebook's cell, a zip of 20,000 equal
candidates, a file whose static scan would quote a 16 KB name in 1,000 flags, a notebook
nesting 300,000 lists. Before the fix each stopped its class (no report for anyone within
180 s, or a grader error and exit 3); `bench/intake_costs.py` prints what each costs.

Side: trusted (the project's own tests).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_redteam import BY_NAME, GRADE_BATCH, LAB, REDTEAM_MODES, SEED, generated

from grader.common.labs import COURSE_ROOT
from grader.results.build import DOC_BYTES
from grader.results.render import REPORT_FILES

sys.path.insert(0, str(Path(__file__).parent / "sandbox"))
import modes  # noqa: E402 - the helper that reproduces each mode on this machine

ATTACKS = ("pad-value-py-newlines", "pad-notebook-cell-newlines", "zip-20000-equal-candidates",
           "flag-amplifier", "notebook-deep-nesting")
CLASSMATES = ("control-math-random-only", "control-slots-and-properties")
CLASS_LIMIT_S = 60  # a class of three with one such submission finishes within a minute
KILL_AFTER_S = 240  # past this the class is stopped (and the test fails): no run hangs


def _grade(mode: str, base: Path, submissions: list[Path]) -> dict[str, Any]:
    """grade_batch.py's answer for the class, run as a grader of `mode`; stopped with its
    whole session after KILL_AFTER_S."""
    out_dir = modes.grader_owned(base / "out", mode)
    scratch = modes.grader_owned(base / "scratch", mode)
    answer = modes.grader_owned(base / "answer", mode) / "result.json"
    env = modes.environment(mode, TMPDIR=str(scratch))
    command = [*modes.prefix(mode), modes.python_for(mode, base / "python"), str(GRADE_BATCH),
               str(answer), str(out_dir), LAB.name, SEED, "1", *map(str, submissions)]
    process = subprocess.Popen(command, cwd=COURSE_ROOT, env=env, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, stderr = process.communicate(timeout=KILL_AFTER_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return {"error": f"stopped after {KILL_AFTER_S} s", "docs": [], "seconds": KILL_AFTER_S}
    if process.returncode != 0 or not answer.is_file():
        return {"error": f"exit {process.returncode}: {stderr[-1500:]}", "docs": [], "seconds": 0}
    return {**json.loads(answer.read_text(encoding="utf-8")), "out_dir": str(out_dir)}


@pytest.fixture(scope="module", params=REDTEAM_MODES)
def mode(request: pytest.FixtureRequest) -> Iterator[tuple[str, Path]]:
    """A mode this machine reproduces, and a folder for its classes (the unprivileged
    grader's interpreter is made once in it)."""
    unavailable = modes.why_unavailable(request.param)
    if unavailable:
        pytest.skip(f"mode {request.param}: {unavailable}")
    base = Path(tempfile.mkdtemp(prefix=f"minigrad-intake-attacks-{request.param}-",
                                 dir="/var/tmp"))
    os.chmod(base, 0o711)
    try:
        yield request.param, base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("name", ATTACKS)
def test_class_of_three_with_the_attack_finishes_with_three_sound_reports(mode, name):
    """The attack, between two correct classmates: within CLASS_LIMIT_S, three documents, the
    attack's expected status, the classmates' full marks, no grader error, no report over
    DOC_BYTES."""
    mode_name, base = mode
    folder = base / name
    folder.mkdir(mode=0o711)
    attack = generated(BY_NAME[name], folder / "generated")
    classmates = [BY_NAME[c].submitted for c in CLASSMATES]
    answer = _grade(mode_name, folder, [classmates[0], attack.submitted, classmates[1]])
    assert answer["error"] is None, f"{mode_name}/{name}: {answer['error']}"
    assert answer["seconds"] <= CLASS_LIMIT_S, \
        f"{mode_name}/{name}: the class took {answer['seconds']:.0f} s"
    docs = answer["docs"]
    assert len(docs) == 3, f"{mode_name}/{name}: {len(docs)} documents"
    attacked = docs[1]
    reason = (attacked.get("reason") or {}).get("text", "")
    assert attacked["status"] == attack.status, \
        f"{mode_name}/{name}: {attacked['status']} ({reason}), expected {attack.status}"
    for doc in docs:
        ident = doc["submission"]["id"]
        errors = [c["id"] for c in doc["checks"] if c["status"] == "error"]
        assert doc["status"] != "grader-error" and not errors, (ident, reason, errors)
        for report in REPORT_FILES:
            size = (Path(answer["out_dir"]) / ident / report).stat().st_size
            assert size <= DOC_BYTES, f"{mode_name}/{ident}: {report} is {size} bytes"
    for doc in (docs[0], docs[2]):
        assert doc["status"] == "graded" and doc["score"] == doc["max_score"] > 0, \
            (doc["submission"]["id"], doc["score"], doc["max_score"])
    missing = set(attack.flags) - {flag["id"] for flag in attacked["flags"]}
    assert not missing, f"{mode_name}/{name}: flags {sorted(missing)} not raised"
