"""What a line in one language must not hold: words of the other one, and "1 <plural>".

The rule for English in a Spanish line: code is not prose, so code spans (`...`) and words that
are code by their shape (`a.grad`, `_backward`, `value.py`, `zero_grad()`, `--lang`) are left
out; what is left is split into words, and a word on the list of English words below (common
English words that are not also Spanish ones: "the", "with", "line", "called", ...) is English.

The rule for plurals: a sentence rendered with every number 1 must not say "1 <plural>"
("1 entregas", "1 submissions", "1 nodes", "llamada n.º 3, 5" is caught the same way when its
placeholder is 1): a word right after a lone 1 must not end in "s", except the words below
that are singular ("s" for seconds, "is", "más", ...).
"""

from __future__ import annotations

import re

# Common English words that are never Spanish words (so "no", "a", "error", "total" are not here).
ENGLISH_WORDS = frozenset("""
the of and with when in to for from by line lines file files called calls call run runs ran
before after every each exited exit with not your you this that these those which what where
should must was were have had be been is are it its or but if then than at into only all
none one two three node nodes submission submissions check checks checked graph grader shard
stage failed passed raised killed signal code ended early took over expected got
instead also still yet more less about left known done wrote stale unchanged kept
options arguments argument usage show help message invalid choice choose required
following unrecognized ambiguous could match allowed explicit ignored unexpected string
open cannot see such notebook cell cells first here there whole
""".split())
# Words that end in "s" and may follow "1".
SINGULAR_WORDS = frozenset({"s", "is", "was", "has", "does", "this", "its", "más", "es", "vs",
                            "ms"})
_CODE_SPAN = re.compile(r"`[^`]*`")
# A token that is code by its shape: dots, underscores, brackets, slashes, digits, dashes.
_CODE_SHAPE = re.compile(r"[._()\[\]/<>=*+\d{}%#-]")
_LONELY_ONE = re.compile(r"(?<![\w.,/-])1 ([^\W\d_]+)")


def prose_words(text: str) -> list[str]:
    """The words of a text that are prose, not code (see the module docstring)."""
    words = []
    for token in _CODE_SPAN.sub(" ", text).split():
        token = token.strip(",.;:!?¿¡«»“”\"'()")
        if token and not _CODE_SHAPE.search(token):
            words.append(token)
    return words


def english_words(text: str) -> list[str]:
    """The English words of a text meant to be Spanish."""
    return [word for word in prose_words(text) if word.lower() in ENGLISH_WORDS]


def lonely_plurals(text: str) -> list[str]:
    """The "1 <plural>" of a text rendered with every number 1."""
    return [f"1 {word}" for word in _LONELY_ONE.findall(text)
            if word.endswith("s") and word.lower() not in SINGULAR_WORDS]
