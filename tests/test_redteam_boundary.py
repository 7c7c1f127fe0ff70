"""The boundary's red team (issues 38 and 39), in classes of three and in a colluding pair, in
every mode the grader accepts: a class with any one such submission finishes within a minute
with three reports, the two honest classmates graded after it in its shard keep full marks, no
check ends as the grader's error, no flag quotes a hidden input, the attack gains nothing beyond
its honest work; and two colluding submissions graded together score as each does alone.

The attacks are folders of the corpus (`tests/fixtures/redteam/`, graded there too with the rest);
the pair is `redteam/collusion/` and lab04's attack `redteam/lab04/` (folders without an
attack.toml, which the corpus leaves out). Slow (a grading process per mode): select with -k.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from grader.common.labs import COURSE_ROOT

sys.path.insert(0, str(Path(__file__).parent / "sandbox"))
import modes  # noqa: E402 - the helper that reproduces each mode on this machine

CORPUS = Path(__file__).parent / "fixtures" / "redteam"
PAIR = CORPUS / "collusion"
TRACE_ATTACK = CORPUS / "lab04" / "trace-row-of-the-wrong-shape"
GRADE_CLASSES = Path(__file__).parent / "sandbox" / "grade_classes.py"
ALL_ATTACKS = ("pad-recorder-through-closure", "forged-status-quotes-inputs",
               "memfd-hoard", "xattr-hoard",
               "sysv-shm-outlives", "lock-on-shared-stdlib")
# MINIGRAD_BOUNDARY_ATTACKS="a b": these only (to measure one on a grader where it never ends)
ATTACKS = tuple(os.environ.get("MINIGRAD_BOUNDARY_ATTACKS", " ".join(ALL_ATTACKS)).split())
CLASSMATES = ("control-eq-returns-value", "control-slots-and-properties")
HONEST = CORPUS / "honest" / "correct-but-mul"
MODES = ("root", "unprivileged", "container")
CLASS_LIMIT_S = 60.0
# uid 65534's interpreter, one per checkout (its .pth names the checkout it imports)
PYTHONS = Path("/var/tmp") / f"minigrad-boundary-python-{hashlib.sha256(bytes(modes.SOURCE_ROOT)).hexdigest()[:12]}"
LAB, SEED = "lab01_graph", "boundary"


def grade(mode: str, classes: list[dict[str, Any]], workers: int,
          lab: str = LAB) -> dict[str, Any]:
    """Grade the classes one after another in `mode` (grade_classes.py); its result."""
    reason = modes.why_unavailable(mode)
    if reason:
        pytest.skip(f"{mode}: {reason}")
    base = Path(tempfile.mkdtemp(prefix=f"minigrad-boundary-{mode}-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    try:
        scratch, out, answer = (modes.grader_owned(base / name, mode)
                                for name in ("tmp", "out", "answer"))
        listing = base / "classes.json"
        listing.write_text(json.dumps(classes), encoding="utf-8")
        python = modes.python_for(mode, PYTHONS)
        completed = subprocess.run(
            [*modes.prefix(mode), python, str(GRADE_CLASSES), str(answer / "result.json"),
             str(out), lab, SEED, str(workers), str(listing)],
            env=modes.environment(mode, TMPDIR=str(scratch), PYTHONPATH=str(modes.SOURCE_ROOT)),
            cwd=COURSE_ROOT,
            capture_output=True, text=True, timeout=900, check=False)
        assert completed.returncode == 0, completed.stderr[-2000:]
        return json.loads((answer / "result.json").read_text(encoding="utf-8"))
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)


def passed(doc: dict[str, Any]) -> set[str]:
    """The ids of the checks a document says passed."""
    return {check["id"] for check in doc["checks"] if check["status"] == "passed"}


def errors(doc: dict[str, Any]) -> list[str]:
    """The checks that ended as the grader's error."""
    return [check["id"] for check in doc["checks"] if check["status"] == "error"]


@pytest.fixture(scope="module", params=MODES)
def graded(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    """Every attack in a class of three (first, then two correct classmates in its shard), and
    the honest engine alone, graded in one mode."""
    classes = [{"name": attack, "submissions": [str(CORPUS / attack),
                                                *(str(CORPUS / c) for c in CLASSMATES)]}
               for attack in ATTACKS]
    classes.append({"name": "honest", "submissions": [str(HONEST)]})
    return request.param, {c["name"]: c for c in grade(request.param, classes, 1)["classes"]}


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_class_of_three_with_one_attack_finishes_and_keeps_its_honest_classmates(
        graded: tuple[str, dict[str, Any]], attack: str) -> None:
    mode, classes = graded
    result = classes[attack]
    assert result["error"] is None, f"{mode}: {result['error']}"
    assert result["seconds"] < CLASS_LIMIT_S, f"{mode}: the class took {result['seconds']:.0f} s"
    docs = result["docs"]
    assert len(docs) == 3, f"{mode}: {len(docs)} reports"
    for doc in docs:
        assert doc["status"] == "graded", (mode, doc["submission"]["id"], doc.get("reason"))
        assert not errors(doc), (mode, doc["submission"]["id"], errors(doc))
    for doc in docs[1:]:
        assert doc["score"] == doc["max_score"] > 0, (mode, doc["submission"]["id"],
                                                      doc["score"])
        assert doc["flags"] == [], (mode, doc["submission"]["id"], doc["flags"])
    attacker = docs[0]
    toml = (CORPUS / attack / "attack.toml").read_text(encoding="utf-8")
    if 'honest = "correct-but-mul"' in toml and "honest" in classes:
        extra = passed(attacker) - passed(classes["honest"]["docs"][0])
        assert not extra, f"{mode}: {attack} passed {sorted(extra)} beyond its honest work"


def test_no_flag_quotes_a_hidden_input(graded: tuple[str, dict[str, Any]]) -> None:
    """The forged status carried the operands' data: no flag, in any language field, says it."""
    mode, classes = graded
    if "forged-status-quotes-inputs" not in classes:
        pytest.skip("not among MINIGRAD_BOUNDARY_ATTACKS")
    doc = classes["forged-status-quotes-inputs"]["docs"][0]
    breaches = [flag for flag in doc["flags"] if flag["id"] == "protocol-breach"]
    assert breaches, (mode, doc["flags"])
    assert "leaked-inputs" not in json.dumps(doc["flags"]), (mode, doc["flags"])


@pytest.mark.parametrize("mode", MODES)
def test_two_colluding_submissions_graded_together_score_as_each_does_alone(mode: str) -> None:
    holder, reader = str(PAIR / "holder"), str(PAIR / "reader")
    alone = grade(mode, [{"name": "holder", "submissions": [holder]},
                         {"name": "reader", "submissions": [reader]}], 1)["classes"]
    together = grade(mode, [{"name": "pair", "submissions": [holder, reader]}], 2)["classes"][0]
    assert together["error"] is None, together["error"]
    scores_alone = [alone[0]["docs"][0]["score"], alone[1]["docs"][0]["score"]]
    scores_together = [doc["score"] for doc in together["docs"]]
    assert scores_together == scores_alone, (mode, scores_alone, scores_together)


@pytest.mark.parametrize("mode", MODES)
def test_a_lab04_trace_row_of_the_wrong_shape_is_a_breach_not_a_grader_error(mode: str) -> None:
    """lab04's training trace padded through the closure of the `data` property the scenario
    installs, with a row whose parameter index is an empty list: on main the verdict raised
    (a grader error); now the reply's schema refuses it, and the two correct classmates after
    it keep full marks."""
    solution = COURSE_ROOT / "solutions" / "lab04_xor"
    result = grade(mode, [{"name": "trace", "submissions": [str(TRACE_ATTACK), str(solution),
                                                            str(solution)]}], 1,
                   "lab04_xor")["classes"][0]
    assert result["error"] is None and result["seconds"] < CLASS_LIMIT_S, result["error"]
    attacker, *mates = result["docs"]
    assert not errors(attacker), (mode, errors(attacker))
    assert "protocol-breach" in {flag["id"] for flag in attacker["flags"]}, attacker["flags"]
    for doc in mates:
        assert doc["score"] == doc["max_score"] > 0 and not errors(doc), (mode, doc["score"])
