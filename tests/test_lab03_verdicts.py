"""Lab 03 verdict helpers: the inputs some checks are built on do what their comments claim,
and a chain walk that timed out is explained or retried as documented (a fake sandbox)."""

from __future__ import annotations

import pytest

from grader.grading.checking.verdict import CheckFailed
from grader.grading.checking.verdicts import lab03_backprop as verdicts

H = 1e-3  # the step the numerical_grad checks pass (FINITE_STEP of the hidden suite)

# The ways students put x back by arithmetic instead of restoring the saved number.
RESTORES_BY_ARITHMETIC = {
    "x = orig - h; f; x = x + h": lambda x: (x - H) + H,
    "x += h; f; x -= h": lambda x: (x + H) - H,
    "x += h; f; x -= 2h; f; x += h": lambda x: ((x + H) - 2 * H) + H,
    "x += h; f; x -= h; x -= h; f; x += h": lambda x: (((x + H) - H) - H) + H,
    "x -= h; f; x += 2h; f; x -= h": lambda x: ((x - H) + 2 * H) - H,
}


@pytest.mark.parametrize("restore", RESTORES_BY_ARITHMETIC.values(),
                         ids=RESTORES_BY_ARITHMETIC.keys())
def test_some_restore_trap_is_not_put_back_by_arithmetic(restore) -> None:
    assert any(restore(x) != x for x in verdicts.RESTORE_TRAPS)


def test_most_three_decimal_inputs_are_put_back_by_arithmetic() -> None:
    """Why the traps are needed: (x - h) + h lands on x again for every input the other checks
    draw (3 decimals, |x| in [0.5, 3], never 1)."""
    inputs = [k / 1000 * sign for k in range(500, 3001) if k != 1000 for sign in (1, -1)]
    assert all((x - H) + H == x for x in inputs)


def test_just_outside_is_beyond_the_tolerance_and_within_twice_it() -> None:
    tol = 1e-4  # check_grad's default; |numeric| is below 1 in that check, so max(1, .) = 1
    assert tol < verdicts.JUST_OUTSIDE < 2 * tol


CHAIN_INPUTS = {"x": 1.5, "y": 2.5}
SHOWN = {"graph": verdicts.CHAIN_GRAPH}


class FakeSandbox:
    """Answers scenarios in order from a script; a CheckFailed in the script is raised."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.calls = []

    def __call__(self, scen, patience=1.0, **params):
        self.calls.append((scen, patience))
        answer = self.answers.pop(0)
        if isinstance(answer, CheckFailed):
            raise answer
        return answer


def _timeout():
    return CheckFailed("timeout", seconds=5)


def test_a_walk_that_timed_out_and_compares_nothing_gets_a_longer_second_run() -> None:
    chain = {"out.grad": 1.0, "a.grad": 1.0, "b.grad": 100000.0}
    sandbox = FakeSandbox(_timeout(), {"comparisons": [0, 0]}, chain)
    assert verdicts.run_deep_chain(sandbox, 100000, CHAIN_INPUTS, SHOWN) == chain
    assert [patience for _, patience in sandbox.calls] == [
        1.0, 1.0, verdicts.BUSY_MACHINE_PATIENCE]


def test_a_second_timeout_of_a_walk_that_compares_nothing_stands() -> None:
    sandbox = FakeSandbox(_timeout(), {"comparisons": [0, 0]}, _timeout())
    with pytest.raises(CheckFailed) as caught:
        verdicts.run_deep_chain(sandbox, 100000, CHAIN_INPUTS, SHOWN)
    assert caught.value.detail["kind"] == "timeout"
    assert caught.value.pitfall is None  # the check's own pitfall: deep-recursion


def test_a_walk_that_looks_nodes_up_in_a_list_fails_on_its_comparisons_at_once() -> None:
    sandbox = FakeSandbox(_timeout(), {"comparisons": [80400, 1281600]})
    with pytest.raises(CheckFailed) as caught:
        verdicts.run_deep_chain(sandbox, 100000, CHAIN_INPUTS, SHOWN)
    assert caught.value.detail["kind"] == "walk-compares-nodes"
    assert caught.value.pitfall == "missing-visited-set"  # from the count, never from the load
    assert caught.value.detail["params"]["comparisons"] == [80400, 1281600]
    assert len(sandbox.calls) == 2  # no longer run: the count already says why


def test_a_walk_whose_count_cannot_be_taken_gets_its_longer_run() -> None:
    chain = {"out.grad": 1.0}
    sandbox = FakeSandbox(_timeout(), CheckFailed("exception", error="x"), chain)
    assert verdicts.run_deep_chain(sandbox, 100000, CHAIN_INPUTS, SHOWN) == chain


def test_run_patiently_retries_a_timeout_once() -> None:
    sandbox = FakeSandbox(_timeout(), {"not_reset": 0})
    assert verdicts.run_patiently(sandbox, verdicts.deep_chain, n=10) == {"not_reset": 0}
    assert [patience for _, patience in sandbox.calls] == [1.0, verdicts.BUSY_MACHINE_PATIENCE]
