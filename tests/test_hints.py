"""Hints teach: each says where to look and what to compare, and none gives the fix away.

Every check hint of both catalogues is read against the rule of issue 22: no operator to type,
no corrected code, no "for example through default arguments"; and each names a place to look
or a thing to compare. The patterns below are the give-aways a review found; a new hint that
writes the student's code for them fails here.
"""

from __future__ import annotations

import re

import pytest

from grader.results.i18n import LANGUAGES, Catalogue

# What a hint must not contain (case-insensitive), in either language.
GIVE_AWAYS = {
    "the operator to type": r"`\+=`|`-=`|\(`=`\)",
    "an example fix": r"for example through|por ejemplo mediante|for example `\[|por ejemplo `\[",
    "corrected code": r"for _ in range|`def \w+\(",
    "the fix spelled out": (r"instead of recursion|en lugar de recursión|assign it back"
                            r"|vuelve a asignarlo|build each \w+ anew|crea cada \w+ de nuevo"
                            r"|subtract `lr|resta `lr|and raise when|y lanza el error cuando"),
}
# A hint names where to look or what to compare.
POINTERS = {"en": ("look", "compare", "check", "paste", "print", "see"),
            "es": ("mira", "compara", "compár", "comprueba", "pega", "pég", "imprime", "busca",
                   "revisa")}


def check_hints(lang: str) -> dict[str, str]:
    """Check id -> hint, for every check of the catalogue."""
    catalogue = Catalogue.load(lang)
    return {key.split(".")[1]: catalogue.text(key) for key in catalogue.entries
            if key.startswith("checks.") and key.endswith(".hint")}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_hint_gives_the_fix_away(lang: str) -> None:
    found = {check: reason for check, hint in check_hints(lang).items()
             for reason, pattern in GIVE_AWAYS.items()
             if re.search(pattern, hint, re.IGNORECASE)}
    assert found == {}, f"{lang}: hints that give the fix away: {found}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_hint_says_where_to_look_or_what_to_compare(lang: str) -> None:
    words = POINTERS[lang]
    pointless = sorted(check for check, hint in check_hints(lang).items()
                       if not any(re.search(rf"\b{word}", hint, re.IGNORECASE) for word in words))
    assert pointless == [], f"{lang}: hints that name no place to look: {pointless}"


def test_the_give_away_patterns_catch_what_they_describe() -> None:
    caught = ["Look at whether `_backward` adds to `grad` (`+=`) or replaces it (`=`).",
              "bind each one's variables (for example through default arguments).",
              "Build each neuron anew, for example `[Neuron(nin) for _ in range(nout)]`."]
    for hint in caught:
        assert any(re.search(p, hint, re.IGNORECASE) for p in GIVE_AWAYS.values()), hint
