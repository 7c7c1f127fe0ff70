"""The contract's dimensions (grader.grading.checking.contract_grid): every program generated
from them is inside the domain the READMEs state, the reference solutions handle all of them,
and the sessions and the new-Value invariant tell a shared-state engine from a correct one."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from typing import Any

import pytest

from grader.grading.checking import contract_grid
from grader.grading.checking.random_graphs import LAB01_OPS, LAB02_OPS, differences
from grader.grading.checking.verdict import CheckFailed
from grader.grading.child.graph import run_expressions, run_sessions

ROOT = Path(__file__).resolve().parents[2]


def _value_class(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"engine_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Value


REFERENCE = {lab: _value_class(ROOT / "solutions" / lab / "value.py")
             for lab in contract_grid.DIMENSIONS}


@pytest.mark.parametrize("lab", sorted(contract_grid.DIMENSIONS))
@pytest.mark.parametrize("group", ["edges", "saturating"])
def test_the_reference_gives_the_model_on_every_generated_program(lab: str, group: str) -> None:
    programs = contract_grid.edge_programs(contract_grid.DIMENSIONS[lab], group)
    assert programs or group == "saturating" and lab == "lab01_graph"
    for program, got in zip(programs, run_expressions(REFERENCE[lab], programs), strict=True):
        assert "error" not in got, (program, got)
        data, grads = contract_grid.model(program)  # type: ignore[misc]
        assert differences(program, got, {"data": data, "grad": grads}) == [], program


@pytest.mark.parametrize("lab", sorted(contract_grid.DIMENSIONS))
def test_every_row_of_the_table_gives_programs(lab: str) -> None:
    for row in contract_grid.DIMENSIONS[lab]:
        programs = contract_grid.edge_programs([row], row.group)
        assert programs, f"{row}: every combination is outside the domain"


def test_the_edges_the_readme_states_are_generated() -> None:
    programs = contract_grid.edge_programs(contract_grid.DIMENSIONS["lab02_ops"])
    saturating = contract_grid.edge_programs(contract_grid.DIMENSIONS["lab02_ops"], "saturating")
    leaves = {(p["nodes"][0][0], p["leaves"][0]) for p in programs + saturating}
    for stated in [("exp", 700.0), ("exp", -700.0), ("log", 1e-300), ("log", 1e300),
                   ("mul", 0.0), ("mul", 1e-300), ("mul", 1e100), ("sigmoid", -1000.0),
                   ("tanh", 1000.0), ("relu", -1e300)]:
        assert stated in leaves, stated
    exponents = {p["nodes"][0][3] for p in programs if p["nodes"][0][0] == "pow"}
    assert {0, 1, -1, -2, 0.5} <= exponents


@pytest.mark.parametrize("seed", [0, 1, 32])
@pytest.mark.parametrize("lab", sorted(contract_grid.DIMENSIONS))
def test_sessions_and_shared_inputs_run_on_the_reference(seed: int, lab: str) -> None:
    ops = LAB01_OPS if lab == "lab01_graph" else LAB02_OPS
    sessions = contract_grid.state_sessions(random.Random(seed), ops)
    assert sessions
    got = run_sessions(REFERENCE[lab], sessions)
    want = contract_grid.modelled(sessions)
    for session, mine, theirs in zip(sessions, got, want, strict=True):
        assert "error" not in mine and mine["returned"] == [], (session, mine)
        for program, a, b in zip(session["programs"], mine["results"], theirs["results"],
                                 strict=True):
            assert differences(program, a, b) == [], program
    if lab == "lab02_ops":
        fan_out = contract_grid.fan_out_programs(random.Random(seed), LAB02_OPS)
        assert len(fan_out) > 30
        assert all("error" not in e for e in run_expressions(REFERENCE[lab], fan_out))


def _judge(value_class: Any, sessions: list[dict[str, Any]]) -> None:
    def sandboxed(scen: Any, **params: Any) -> Any:
        return {"sessions": run_sessions(value_class, params["sessions"])}
    contract_grid.judge_sessions(sandboxed, None, None, sessions, "shared-state")


def test_gradients_kept_by_id_on_the_class_fail_the_sessions() -> None:
    engine = _value_class(ROOT / "tests" / "fixtures" / "lab01_graph" /
                          "grads-kept-by-id-on-the-class" / "value.py")
    sessions = contract_grid.state_sessions(random.Random(3), LAB01_OPS)
    with pytest.raises(CheckFailed) as failed:
        _judge(engine, sessions)
    assert failed.value.detail["kind"] == "session-mismatch"
    assert failed.value.pitfall == "shared-state"
    _judge(REFERENCE["lab01_graph"], sessions)  # and the reference passes


def test_an_operand_returned_fails_the_new_value_invariant() -> None:
    engine = _value_class(ROOT / "tests" / "fixtures" / "lab02_ops" / "pow-one-returns-base" /
                          "value.py")
    programs = contract_grid.public_programs(contract_grid.DIMENSIONS["lab02_ops"])
    result = {"sessions": run_sessions(engine, [{"programs": programs, "order": "build-only"}])}
    with pytest.raises(CheckFailed) as failed:
        contract_grid.expect_new_values(result, programs, "graph-construction")
    assert failed.value.detail["kind"] == "returned-operand"
    assert "a ** 1" in failed.value.detail["params"]["expression"]
    reference = {"sessions": run_sessions(REFERENCE["lab02_ops"],
                                          [{"programs": programs, "order": "build-only"}])}
    contract_grid.expect_new_values(reference, programs, "graph-construction")
