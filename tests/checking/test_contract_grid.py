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


# -- the dimensions added in issue 32's second pass: exact data, int data, relu's kink, data
# changed on the same leaves, a second backward() ------------------------------------------------

def _fixture_class(lab: str, name: str) -> Any:
    return _value_class(ROOT / "tests" / "fixtures" / lab / name / "value.py")


@pytest.mark.parametrize("lab", sorted(contract_grid.DIMENSIONS))
def test_the_reference_gives_the_model_exactly_on_every_edge_program(lab: str) -> None:
    programs = contract_grid.edge_programs(contract_grid.DIMENSIONS[lab])
    for program, got in zip(programs, run_expressions(REFERENCE[lab], programs), strict=True):
        data, grads = contract_grid.model(program)  # type: ignore[misc]
        assert differences(program, got, {"data": data, "grad": grads}, exact=True) == [], program


def test_a_rounded_product_differs_only_when_data_is_compared_exactly() -> None:
    program = {"leaves": [contract_grid.TINY, 2.5], "nodes": [["mul", 0, 1, None]]}
    data, grads = contract_grid.model(program)  # type: ignore[misc]
    rounded = {"data": [*data[:2], round(data[2], 10)], "grad": grads}
    assert rounded["data"][2] == 0.0
    assert differences(program, rounded, {"data": data, "grad": grads}) == []
    assert [d.node for d in differences(program, rounded, {"data": data, "grad": grads},
                                        exact=True) or []] == [2]


@pytest.mark.parametrize("lab", sorted(contract_grid.DIMENSIONS))
def test_every_operation_is_generated_with_int_data(lab: str) -> None:
    programs = contract_grid.edge_programs(contract_grid.DIMENSIONS[lab])
    with_ints = {p["nodes"][0][0] for p in programs
                 if all(type(v) is int for v in p["leaves"])}
    assert with_ints == {p["nodes"][0][0] for p in programs}


def test_int_data_floored_by_division_is_caught() -> None:
    engine = _fixture_class("lab02_ops", "div-floors-int-data")
    program = {"leaves": [7, 2], "nodes": [["truediv", 0, 1, None]]}
    assert program in contract_grid.edge_programs(contract_grid.DIMENSIONS["lab02_ops"])
    [got] = run_expressions(engine, [program])
    assert got["data"][2] == 3.0
    data, grads = contract_grid.model(program)  # type: ignore[misc]
    assert differences(program, got, {"data": data, "grad": grads}, exact=True)


def test_a_result_kept_by_id_fails_the_data_changed_session() -> None:
    sessions = [s for s in contract_grid.state_sessions(random.Random(5), LAB02_OPS)
                if s["order"] == "data-changed"]
    assert {s["programs"][0]["nodes"][0][0] for s in sessions} == set(LAB02_OPS)
    with pytest.raises(CheckFailed) as failed:
        _judge(_fixture_class("lab02_ops", "log-kept-per-id"), sessions)
    assert failed.value.detail["params"]["session"]["kind"] == "session-data-changed"
    assert ".log()" in failed.value.detail["params"]["programs"]
    _judge(REFERENCE["lab02_ops"], sessions)


def _sessions_runner(value_class: Any) -> Any:
    def sandboxed(scen: Any, **params: Any) -> Any:
        return {"sessions": run_sessions(value_class, params["sessions"])}
    return sandboxed


def test_relu_at_its_kink_takes_either_slope_but_not_an_error() -> None:
    kinks = contract_grid.edge_programs(contract_grid.DIMENSIONS["lab02_ops"], "kink")
    assert {p["leaves"][0] for p in kinks} == {0} and len(kinks) == 4
    contract_grid.judge_kinks(_sessions_runner(REFERENCE["lab02_ops"]), None, kinks, "domain-edge")
    slope_one = _value_class(ROOT / "tests" / "independent" / "lab02_ops" /
                             "c12_relu_slope_one_at_zero" / "value.py")
    contract_grid.judge_kinks(_sessions_runner(slope_one), None, kinks, "domain-edge")
    with pytest.raises(CheckFailed) as failed:
        contract_grid.judge_kinks(_sessions_runner(_fixture_class("lab02_ops",
                                                                  "relu-slope-from-output")),
                                  None, kinks, "domain-edge")
    assert "ZeroDivisionError" in failed.value.detail["params"]["error"]


def test_the_model_of_two_passes_adds_what_intermediate_nodes_kept() -> None:
    # a = 2, b = 3, t = a*b, out = t + a: one pass gives a 4, b 2; in the second, t holds 2
    program = {"leaves": [2.0, 3.0], "nodes": [["mul", 0, 1, None], ["add", 2, 0, None]]}
    assert contract_grid.model(program) == ([2.0, 3.0, 6.0, 8.0], [4.0, 2.0, 1.0, 1.0])
    assert contract_grid.model(program, passes=2) == ([2.0, 3.0, 6.0, 8.0],
                                                      [11.0, 6.0, 2.0, 1.0])


def test_a_second_backward_that_resets_intermediate_nodes_is_caught() -> None:
    def runner(value_class: Any) -> Any:
        def run(scen: Any, graphs: list[Any], record: bool = False) -> Any:
            return {"results": run_expressions(value_class, graphs, record, passes=scen)}
        return run
    programs = [{"leaves": [2.0, 3.0], "nodes": [["mul", 0, 1, None], ["add", 2, 0, None]]}]
    reference = _value_class(ROOT / "solutions" / "lab03_backprop" / "value.py")
    contract_grid.judge_repeated(runner(reference), None, 1, 2, programs, "grad-overwrite")
    with pytest.raises(CheckFailed) as failed:
        contract_grid.judge_repeated(runner(_fixture_class("lab03_backprop",
                                                           "backward-zeroes-intermediate-grads")),
                                     None, 1, 2, programs, "grad-overwrite")
    assert failed.value.pitfall == "grad-overwrite"
