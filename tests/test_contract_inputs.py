"""The inputs some lab03 checks are built on do what their comments claim (plain floats)."""

from __future__ import annotations

import pytest

from grader.checking.verdicts import lab03_backprop as verdicts

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
