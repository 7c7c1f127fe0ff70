"""`make labs`: the points each operation carries, written into a lab README's table.

Side: trusted (authoring). A lab README that holds `<!-- build-labs: operation-points -->` ...
`<!-- /build-labs: operation-points -->` gets, between the markers, the points of the checks
(hidden and public) that judge each operation, read from the checks the suites declare: a
check's id names its operation (`exp-local-derivative`, `example-div-forward`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from grader.authoring import readme_tables

TABLE = "operation-points"
_BLOCK = re.compile(r"(<!-- build-labs: operation-points -->\n)(.*?)(<!-- /build-labs: operation-points -->)",
                    re.DOTALL)
# The operations of lab 02, as their checks' ids name them, and as the README writes them.
OPERATIONS = {"neg": "-a", "sub": "a - b", "pow": "a ** k", "truediv": "a / b",
              "exp": "a.exp()", "log": "a.log()", "tanh": "a.tanh()", "relu": "a.relu()",
              "sigmoid": "a.sigmoid()"}
# Other names the public checks give them: `example-div-forward`, `example-rsub-scaled-output`.
ALIASES = {"div": "truediv", "rdiv": "truediv", "rsub": "sub"}


class Check(Protocol):
    """What the table reads of a declared check (a marker.CheckSpec)."""

    @property
    def id(self) -> str: ...

    @property
    def weight(self) -> float: ...

    @property
    def visibility(self) -> str: ...


@dataclass
class OperationRow:
    """One operation's points, hidden and public."""

    written: str
    hidden: float = 0.0
    public: float = 0.0


def operation_of(check_id: str) -> str | None:
    """The operation a check's id names (its first word, after `example-`), or None."""
    word = check_id.removeprefix("example-").split("-")[0]
    word = ALIASES.get(word, word)
    return word if word in OPERATIONS else None


def operation_points(checks: Sequence[Check]) -> tuple[list[OperationRow], OperationRow]:
    """Each operation's points, and those of the checks that judge every operation together."""
    rows = {op: OperationRow(written) for op, written in OPERATIONS.items()}
    together = OperationRow("")
    for check in checks:
        op = operation_of(check.id)
        row = rows[op] if op is not None else together
        if check.visibility == "public":
            row.public += check.weight
        else:
            row.hidden += check.weight
    return list(rows.values()), together


def with_operation_points(readme: str, checks: Sequence[Check], lang: str) -> str:
    """The README's text with its operation-points table made again (unchanged if it has none)."""
    if not _BLOCK.search(readme):
        return readme
    rows, together = operation_points(checks)
    total = sum(r.hidden + r.public for r in rows) + together.hidden + together.public
    table = readme_tables.render(TABLE, rows=rows, together=together, total=total, lang=lang)
    return _BLOCK.sub(lambda m: f"{m[1]}\n{table}\n\n{m[3]}", readme, count=1)
