"""grader.similarity.winnowing: the guarantee and the noise threshold of winnowing (Schleimer,
Wilkerson and Aiken 2003, section 3), checked on random token streams."""

from __future__ import annotations

import os
import random
import subprocess
import sys

from grader.similarity.winnowing import WINDOW, K, gram_hash, kgrams, winnow


def stream(rng: random.Random, length: int) -> list[str]:
    return [f"t{rng.randrange(10_000)}" for _ in range(length)]


def fingerprints(tokens: list[str]) -> set[int]:
    return {gram.hash for gram in winnow(kgrams(tokens))}


def test_a_shared_run_of_k_plus_window_minus_one_tokens_always_shares_a_fingerprint() -> None:
    rng = random.Random(7)
    for _ in range(200):
        shared = stream(rng, K + WINDOW - 1)
        first = stream(rng, rng.randrange(0, 40)) + shared + stream(rng, rng.randrange(0, 40))
        second = stream(rng, rng.randrange(0, 40)) + shared + stream(rng, rng.randrange(0, 40))
        assert fingerprints(first) & fingerprints(second), "a guaranteed match was missed"


def test_a_shared_run_shorter_than_k_shares_nothing() -> None:
    rng = random.Random(11)
    for _ in range(200):
        shared = stream(rng, K - 1)
        first = stream(rng, 30) + shared + stream(rng, 30)
        second = stream(rng, 30) + shared + stream(rng, 30)
        assert not fingerprints(first) & fingerprints(second)


def test_the_window_minimum_is_kept_rightmost_on_a_tie_and_once() -> None:
    grams = kgrams([f"t{i % 3}" for i in range(K + 20)])  # a period-3 stream: three hashes
    chosen = winnow(grams)
    assert len({g.first for g in chosen}) == len(chosen)
    smallest = min(g.hash for g in grams)
    assert all(g.hash == smallest for g in chosen)
    assert chosen[0].first == max(g.first for g in grams[:WINDOW] if g.hash == smallest)


def test_the_hash_is_the_same_in_every_process() -> None:
    # Python's own hash of a string changes with PYTHONHASHSEED; a pool's workers must agree.
    code = "from grader.similarity.winnowing import gram_hash; print(gram_hash(['def', 'ID', '(']))"
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip()
            for seed in ("1", "2")}
    assert seen == {str(gram_hash(["def", "ID", "("]))}
