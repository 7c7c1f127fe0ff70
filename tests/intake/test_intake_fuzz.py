"""A property of intake, not a list of attacks: whatever bytes a student hands in as value.py, a
notebook or a zip, intake ends in exactly one outcome per submission (ready for the sandbox, or
that student's `ungradable` report, never the grader's error), within a document's size, and
in time linear in the bytes (issue 38).

Random and adversarial inputs come from hypothesis: random bytes, valid code and notebooks
padded with what made the old code super-linear (runs of newlines, spaces, brackets, candidates),
nested past every parser's limit, or cut short. Time is proven linear by comparing one
adversarial input at 64 KiB and at 1 MiB (16 times the bytes): a generous bound on the ratio
that a quadratic cost (256 times) or a hang cannot meet. `bench/intake_costs.py` prints the figures.

Side: trusted (the project's own tests).
"""

from __future__ import annotations

import io
import json
import re
import time
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.common.labs import get_lab
from grader.grading.batch import BatchOptions, _prepare_all
from grader.grading.shard import GradingPlan, suites_for
from grader.intake.candidates import normal_code
from grader.intake.collect import MAX_FILE_BYTES, Submission, is_export
from grader.intake.policy import MAX_FLAGS
from grader.results.build import DOC_BYTES, json_bytes

LAB = get_lab("lab01_graph")
ENGINE = (Path(__file__).resolve().parents[1] / "fixtures" / "redteam" / "control-math-random-only"
          / "value.py").read_bytes()
PLAN = GradingPlan(LAB, suites_for(LAB, hidden=False), "fuzz", "en", in_process=True)
# What made intake super-linear or made a parser give up, as padding (issue 38's classes).
PADDINGS = (b"\n", b" ", b" \n", b"[", b"{\"a\":", b"(", b"get_ipython", b"# In[",
            b"\\\"", b"\x00", b"\xff", b"os.execAAAA.", b"import os.exec as x\nx.a()\n")
LINEAR_RATIO = 64  # 16 times the bytes may cost at most this many times the time ...
FLOOR_S = 3.0      # ... unless the large input is done within this (the old code: hours)


def notebook(source: str | list[str], metadata: Any = None) -> bytes:
    """A notebook of one code cell."""
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source}
    return json.dumps({"cells": [cell], "metadata": metadata or {}, "nbformat": 4,
                       "nbformat_minor": 5}).encode("utf-8")


def zipped(members: list[tuple[str, bytes]]) -> bytes:
    """A deflated zip of (name, content) members, in order (names may repeat)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name": a repeat is the point
        for name, content in members:
            bundle.writestr(name, content)
    return buffer.getvalue()


def padded(padding: bytes, size: int, head: bytes = ENGINE) -> bytes:
    """head followed by padding repeated up to `size` bytes."""
    return head + padding * max(0, (size - len(head)) // max(1, len(padding)))


def outcomes(folder: Path, forms: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """Write each (file name, bytes) as one submission's folder, run intake over the class as
    grade_class does (_prepare_all), and return one outcome per submission: its document, or
    {"status": "prepared", "flags": ...} for one that goes on to the sandbox."""
    submissions = []
    for number, (name, content) in enumerate(forms):
        path = folder / f"s{number}" / name
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
        submissions.append(Submission(f"s{number}", path))
    scratch = folder / "scratch"
    scratch.mkdir()
    docs: dict[str, dict[str, Any]] = {}
    pending = _prepare_all(PLAN, submissions, BatchOptions(out_dir=None, workers=1), scratch,
                           lambda doc, kept=False: docs.setdefault(doc["submission"]["id"], doc))
    for prepared in pending:
        assert prepared.id not in docs, f"{prepared.id}: both a report and a sandbox run"
        docs[prepared.id] = {"status": "prepared", "flags": list(prepared.flags)}
    assert sorted(docs) == sorted(s.id for s in submissions), "not one outcome per submission"
    return [docs[s.id] for s in submissions]


def assert_sound(outcome: dict[str, Any]) -> None:
    """Ready for the sandbox, or an ungradable report; never the grader's error; capped."""
    assert outcome["status"] in ("prepared", "ungradable"), \
        (outcome["status"], (outcome.get("reason") or {}).get("text"))
    assert len(outcome["flags"]) <= MAX_FLAGS + 1, len(outcome["flags"])
    assert json_bytes(outcome) <= DOC_BYTES, json_bytes(outcome)


# --- random and adversarial bytes, each form ------------------------------------------------

SOURCES = st.one_of(
    st.binary(max_size=2000),
    st.builds(padded, st.sampled_from(PADDINGS), st.integers(0, 20000)),
    st.builds(lambda depth, opener: opener * depth, st.integers(1, 5000),
              st.sampled_from([b"(", b"[", b"{", b"-", b"not ", b"lambda:"])),
)
NOTEBOOKS = st.one_of(
    st.binary(max_size=2000),
    st.builds(lambda code: notebook(code.decode("utf-8", "replace")), SOURCES),
    st.builds(lambda depth: notebook("x = 1\n", {"deep": json.loads("[" * depth
                                                                      + "]" * depth)}),
              st.integers(1, 300)),
    st.builds(lambda depth, cut: (b'{"cells": ' + b"[" * depth + b"]" * depth + b"}")[:cut],
              st.integers(1, 300_000), st.integers(1, 700_000)),
    st.builds(lambda text: notebook([text] * 3), st.text(max_size=200)),
)
NAMES = st.sampled_from(["value.py", "lab/value.py", "value-1.py", "lab01_graph.ipynb",
                         "other.py", "x/../value.py", "/abs/value.py", "__MACOSX/value.py",
                         "a/b/c/value.py", "inner.zip"])
ZIPS = st.one_of(
    st.binary(max_size=2000),
    st.builds(zipped, st.lists(st.tuples(NAMES, SOURCES), max_size=8)),
    st.builds(lambda copies, content: zipped([(f"c{n}/value.py", content)
                                              for n in range(copies)]),
              st.integers(1, 120), st.sampled_from([ENGINE, b"x = 1\n", b""])),
    st.builds(lambda data, cut: data[:cut], st.builds(zipped, st.lists(
        st.tuples(NAMES, SOURCES), min_size=1, max_size=4)), st.integers(0, 3000)),
)
FORMS = st.one_of(st.tuples(st.just("value.py"), SOURCES),
                  st.tuples(st.just("lab01_graph.ipynb"), NOTEBOOKS),
                  st.tuples(st.just("submission.zip"), ZIPS))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(st.lists(FORMS, min_size=1, max_size=3))
def test_any_bytes_in_any_form_give_one_sound_outcome_each(tmp_path_factory, forms):
    """A class of one to three random submissions: one outcome each, never a grader error."""
    for outcome in outcomes(tmp_path_factory.mktemp("class"), forms):
        assert_sound(outcome)


# --- linear time: one adversarial input at 64 KiB and at 1 MiB ------------------------------

def _forms(size: int) -> dict[str, tuple[str, bytes]]:
    """The adversarial inputs of issue 38 at about `size` bytes."""
    cell_padding = (size - len(ENGINE)) // 2  # a newline is two bytes in the notebook's JSON
    copies = max(1, size // 600)
    return {
        "newlines after valid code": ("value.py", padded(b"\n", size)),
        "spaces after valid code": ("value.py", padded(b" ", size)),
        "notebook cell of newlines": ("lab01_graph.ipynb", notebook(
            ENGINE.decode("utf-8") + "\n" * cell_padding)),
        "notebook nesting": ("lab01_graph.ipynb", b'{"a": ' + b"[" * (size // 2)
                             + b"]" * (size // 2) + b"}"),
        "zip of equal candidates": ("submission.zip", zipped(
            [(f"c{n:05d}/value.py", ENGINE) for n in range(copies)])),
        "zip of many other files": ("submission.zip", zipped(
            [("value.py", ENGINE)] + [(f"f{n:05d}.txt", b"") for n in range(copies)])),
        "forbidden calls": ("value.py", padded(b"\n", size, ENGINE + b"import os.exec"
                                               + b"A" * (size // 16) + b" as x\n"
                                               + b"".join(b"x.c%d()\n" % n
                                                          for n in range(size // 256)))),
    }


# What each gives at 1 MiB: padding costs nothing (graded), what no honest student hands in
# is that student's ungradable report.
EXPECTED = {
    "newlines after valid code": ("prepared", 0), "spaces after valid code": ("prepared", 0),
    "notebook cell of newlines": ("prepared", 0), "notebook nesting": ("ungradable", 0),
    "zip of equal candidates": ("ungradable", 0), "zip of many other files": ("prepared", 0),
    "forbidden calls": ("prepared", 1),  # one name, quoted cut: the calls differ past it
}


def _timed(folder: Path, form: tuple[str, bytes]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    [outcome] = outcomes(folder, [form])
    return time.perf_counter() - started, outcome


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_intake_time_is_linear_in_the_bytes_and_the_outcome_expected(tmp_path, name: str) -> None:
    """16 times the bytes cost at most LINEAR_RATIO times the time (or under FLOOR_S), and
    the 1 MiB input gives its expected outcome (status, number of flags)."""
    small, large = _forms(64 << 10)[name], _forms(MAX_FILE_BYTES - 4096)[name]
    small_s, _ = _timed(tmp_path / "small", small)
    large_s, outcome = _timed(tmp_path / "large", large)
    assert_sound(outcome)
    assert (outcome["status"], len(outcome["flags"])) == EXPECTED[name], \
        (name, outcome["status"], outcome["flags"], (outcome.get("reason") or {}).get("text"))
    assert large_s <= FLOOR_S or large_s <= LINEAR_RATIO * max(small_s, 0.005), \
        f"{name}: {len(small[1])} bytes in {small_s:.3f} s, {len(large[1])} in {large_s:.3f} s"


# --- the export check: what the backtracking expression said, in one pass ---------------------

# The expression collect used before issue 38 (the oracle of what a notebook export is).
OLD_EXPORT_MARK = re.compile(rb"^# In\[[ 0-9]*\]:|^\s*get_ipython\(\)", re.M)
EXPORT_PIECES = [b"# In[", b"]:", b"]", b" ", b"1", b"x", b"\n", b"\t", b"\r", b"\x0b",
                 b"get_ipython()", b"get_ipython(", b"#"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(EXPORT_PIECES), max_size=12))
def test_is_export_says_what_the_old_expression_said(pieces: list[bytes]) -> None:
    source = b"".join(pieces)
    assert is_export(source) == bool(OLD_EXPORT_MARK.search(source)), source


def _normal_code_as_before(code: bytes) -> bytes:
    """candidates.normal_code before issue 38 (the oracle of its fast path)."""
    return b"\n".join(line.rstrip() for line in code.replace(b"\r\n", b"\n").splitlines()).strip()


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\r\n", b"\x0b", b"\x0c", b"\x1c",
                                 b"a", b"#"]), max_size=16))
def test_normal_code_is_what_it_was(pieces: list[bytes]) -> None:
    code = b"".join(pieces)
    assert normal_code(code) == _normal_code_as_before(code), code
