"""`semester export` reaches the LMSs through the registry: its `--lms` choices are the targets'
names, and a fresh gradebook a target would not import as meant is refused with that target's
own reason (`LmsTarget.option_problem`), as `grade` refuses it."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from grader import cli
from grader.results.i18n import Catalogue
from grader.results.lms.registry import NAMES, TARGETS
from grader.results.lms.target import LmsTarget

POLICY = """
[semester]
counts = "last"

[due]
lab01_graph = "2026-09-14T23:59:00Z"
"""


def export_args(lms: str, *more: str) -> list[str]:
    return ["semester", "export", "lab01_graph", "--ledger", "course.ledger", "--lms", lms,
            "--points", "10", "--out", "grades.csv", *more]


def test_the_lms_choices_are_the_registrys_targets() -> None:
    parser = cli.build_parser("en", ["semester", "export"])
    for name in NAMES:
        assert parser.parse_args(export_args(name)).lms == name
    assert {target.name for target in TARGETS} == set(NAMES) and len(NAMES) >= 2
    with contextlib.redirect_stderr(io.StringIO()) as said, pytest.raises(SystemExit) as exited:
        parser.parse_args(export_args("not-an-lms"))
    assert exited.value.code == 2 and "not-an-lms" in said.getvalue()


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.name)
def test_a_gradebook_the_target_would_not_import_is_refused_with_its_reason(
        target: LmsTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the options its fresh gradebook needs (Canvas: `--canvas-column`), each target's
    own refusal, in the reader's language; with them, not refused for that reason."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "semester.toml").write_text(POLICY, encoding="utf-8")
    problem = target.option_problem(10.0, None)
    with contextlib.redirect_stderr(io.StringIO()) as said, \
            contextlib.redirect_stdout(io.StringIO()):
        code = cli.main([*export_args(target.name), "--policy", "semester.toml"])
    if problem is None:  # nothing to refuse: the empty ledger is what stops it
        assert code == 2 and "no attempt" in said.getvalue(), said.getvalue()
        return
    key, params = problem
    assert code == 2
    assert Catalogue.load("en").text(f"cli.errors.{key}", **params) in said.getvalue()
    assert not (tmp_path / "grades.csv").exists()
