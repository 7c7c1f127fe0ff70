"""The lab02 README's points per operation (grader.authoring.operation_points): each check is
counted under the operation its id names, and the table adds up to the lab's points."""

from __future__ import annotations

from grader.authoring.operation_points import operation_of, operation_points, with_operation_points
from grader.common.labs import LABS
from grader.grading.checking.declared import declared_checks


def test_a_check_id_names_its_operation() -> None:
    assert operation_of("exp-local-derivative") == "exp"
    assert operation_of("example-div-forward") == "truediv"
    assert operation_of("example-rsub-scaled-output") == "sub"
    assert operation_of("sub-number-on-left") == "sub"
    assert operation_of("accumulates-in-every-op") is None
    assert operation_of("random-op-graphs-match-reference") is None


def test_the_table_adds_up_to_the_lab_and_every_operation_carries_a_share() -> None:
    checks = declared_checks(LABS["lab02_ops"])
    rows, together = operation_points(checks)
    total = sum(check.weight for check in checks)
    assert sum(r.hidden + r.public for r in rows) + together.hidden + together.public == total
    assert all(r.hidden >= 10 for r in rows), rows  # each has its `<op>-gradient-in-graphs`


def test_the_block_is_written_between_its_markers_and_nothing_else_moves() -> None:
    readme = "intro\n<!-- build-labs: operation-points -->\nold\n<!-- /build-labs: operation-points -->\nend\n"
    text = with_operation_points(readme, declared_checks(LABS["lab02_ops"]), "es")
    assert text.startswith("intro\n<!-- build-labs: operation-points -->\n") and text.endswith(
        "<!-- /build-labs: operation-points -->\nend\n")
    assert "| `a.exp()` |" in text and "old" not in text and "operación" in text
    assert with_operation_points("no table here\n", [], "en") == "no table here\n"
