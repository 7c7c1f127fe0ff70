"""Winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003): k-gram hashes and the window minima
kept as a document's fingerprints, as MOSS and Dolos do.

Side: trusted process; pure functions on token texts.

Every run of `k` consecutive tokens is hashed; of every `window` consecutive hashes the smallest
is kept (the rightmost on a tie). Two documents that share a run of at least `k + window - 1`
tokens are then certain to share a fingerprint, and one that shares less than `k` tokens cannot
(the guarantee and the noise threshold of the paper, section 3). The hash is BLAKE2b, not
Python's `hash`, so every process of a pool (and every run) agrees on it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

# Tokens per k-gram and k-grams per window: a shared run of 12 + 8 - 1 = 19 normalized tokens
# (about two statements) is always found; one under 12 never is. Chosen on the labelled corpus of
# tests/similarity: longer k-grams lose padded copies (docs/similarity.md gives the figures).
K = 12
WINDOW = 8


@dataclass(frozen=True)
class Gram:
    """One k-gram: its hash and the positions of its first and last token."""

    hash: int
    first: int
    last: int


def gram_hash(texts: Sequence[str]) -> int:
    """A 64-bit hash of a run of token texts, the same in every process."""
    joined = "\x1f".join(texts).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(joined, digest_size=8).digest(), "big")


def kgrams(texts: Sequence[str], k: int = K) -> list[Gram]:
    """Every run of k consecutive tokens, hashed, in order."""
    return [Gram(gram_hash(texts[start:start + k]), start, start + k - 1)
            for start in range(len(texts) - k + 1)]


def winnow(grams: Sequence[Gram], window: int = WINDOW) -> list[Gram]:
    """The window minima (rightmost on a tie), each kept once; a sequence shorter than one
    window keeps its minimum."""
    if not grams:
        return []
    if len(grams) <= window:
        return [min(reversed(grams), key=lambda gram: gram.hash)]
    chosen: list[Gram] = []
    last_index = -1
    for start in range(len(grams) - window + 1):
        index = min(range(start + window - 1, start - 1, -1), key=lambda i: grams[i].hash)
        if index != last_index:
            chosen.append(grams[index])
            last_index = index
    return chosen
