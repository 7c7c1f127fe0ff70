"""The generated block of a docs page that a benchmark writes: the text between its markers.

Side: none (a developer's tool; it neither grades nor runs student code). bench/performance.py
writes docs/performance.md's `<!-- performance -->` block, bench/test_suite_time.py
docs/development.md's `<!-- suite-times -->` block; tests/test_docs_links.py checks that each
page holds its markers once.
"""

from __future__ import annotations

from pathlib import Path


def replace_block(page: Path, begin: str, end: str, block: str) -> None:
    """Replace the text from ``begin`` to ``end`` (both included) in ``page`` by ``block``."""
    text = page.read_text(encoding="utf-8")
    if text.count(begin) != 1 or text.count(end) != 1:
        raise ValueError(f"{page} must hold {begin} and {end} once each")
    start, stop = text.index(begin), text.index(end) + len(end)
    page.write_text(text[:start] + block + text[stop:], encoding="utf-8")
