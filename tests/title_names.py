"""The names a check's title gives the Values it speaks of, read mechanically (a test helper).

Issue 35: the seed check's title said "After `y.backward()` on `y = a * b` ... y.grad is 1"
while its message spoke of `out`. A title and its message must use the same names. What can be
read mechanically is the code a title quotes (`...`): a name bound in it (`out = a * b`,
`t1 = op(a)`, a statement of its own, not a keyword argument nor a plain constant such as
`STEPS = 150`) or a name whose `.backward()`, `.grad`, `.data` or `._backward` it reads
(`y.backward()`). Each such name must appear, as a word, in the message of the check's failure.
"""

from __future__ import annotations

import re

CODE_SPAN = re.compile(r"`([^`]+)`")
# `name = expression` as a statement (at the start of the span or after `;`), its expression
# not a plain literal; or `name.backward` / `.grad` / `.data` / `._backward`.
BOUND = re.compile(
    r"(?:^|;)\s*(?P<bound>[A-Za-z_]\w*)\s*=(?!=)"
    r"(?!\s*(?:[-+]?[\d.]+|True|False|None)\s*(?:;|$))"
    r"|(?<![\w.])(?P<read>[A-Za-z_]\w*)\.(?:backward|grad|data|_backward)\b")
# Failures whose message states the numbers or the order the check read from the named Values
# (a failure that is an exception or a timeout names what the student's code raised instead).
NAMING_KINDS = frozenset({"mismatch", "graph-mismatch", "order-violation",
                          "called-more-than-once", "not-a-gradient-step"})


def title_names(title: str) -> set[str]:
    """The names of Values a title's quoted code binds or reads."""
    names = set()
    for span in CODE_SPAN.findall(title):
        names |= {found.group("bound") or found.group("read") for found in BOUND.finditer(span)}
    return names


def names_missing_from(message: str, title: str) -> list[str]:
    """The title's names that its message never says (as a whole word)."""
    return sorted(name for name in title_names(title)
                  if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", message))
