"""Check titles and hints say the same thing, with the same names, in both languages (issue 35).

A title and its failure message use the same names (tests/title_names.py; proven on every
fixture's failures in tests/test_lab_fixtures.py), and a title or a hint quotes the same code in
English and Spanish. That each "not written yet" hint names its TODO, on every lab's stub and
every partly written one, is tests/test_student_loop.py's.
"""

from __future__ import annotations

import collections

import pytest
from title_names import CODE_SPAN, names_missing_from, title_names

from grader.results.i18n import Catalogue

# The seed check's title and message as a student read them (issue 35).
OLD_SEED_TITLE = "After `y.backward()` on `y = a * b` (a = 2, b = 3), y.grad is 1."
SEED_MESSAGE = "With `out = a * b`, a = 2, b = 3, `out.grad` is 0; expected 1 (worked out by hand)."


@pytest.mark.parametrize(("title", "names"), [
    (OLD_SEED_TITLE, {"y"}),
    ("Each operation's small graph (`t1 = op(a); t2 = t1 * b; out = t2 + a`) ...",
     {"t1", "t2", "out"}),
    ("`Neuron(2, nonlin=False)([1, -1])` holds 0.17", set()),
    ("`train_xor(model)` trains for `STEPS = 150` steps", set()),
    ("After `out.backward()` is called twice, `a.grad` doubles", {"out", "a"}),
    ("`a == b` is not an assignment", set()),
])
def test_the_names_a_title_binds_or_reads(title: str, names: set[str]) -> None:
    assert title_names(title) == names


def test_the_seed_title_of_issue_35_differed_from_its_message_and_no_longer_does() -> None:
    assert names_missing_from(SEED_MESSAGE, OLD_SEED_TITLE) == ["y"]
    for check_id in ("example-seed", "backward-seeds-output"):
        title = Catalogue.load("en").text(f"checks.{check_id}.title")
        assert names_missing_from(SEED_MESSAGE, title) == [], title


def _check_texts(catalogue: Catalogue) -> dict[str, str]:
    return {key: catalogue.text(key) for key in catalogue.entries
            if key.startswith("checks.") and key.endswith((".title", ".hint"))}


def test_titles_and_hints_quote_the_same_code_in_both_languages() -> None:
    english, spanish = (_check_texts(Catalogue.load(lang)) for lang in ("en", "es"))
    assert english.keys() == spanish.keys()
    differing = {}
    for key, text in english.items():
        spans = collections.Counter(CODE_SPAN.findall(text))
        other = collections.Counter(CODE_SPAN.findall(spanish[key]))
        if set(spans) != set(other):
            differing[key] = (sorted(set(spans) - set(other)), sorted(set(other) - set(spans)))
    assert differing == {}, f"(English only, Spanish only) code of each text: {differing}"
