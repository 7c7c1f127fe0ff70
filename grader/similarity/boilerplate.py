"""The code every student was given or could read: it is excluded before anything is compared.

Side: trusted process; files are read as text, never run.

Boilerplate is every lab's stub and reference solution (`labs/`, `solutions/`), the Python code
blocks of every lab's README in both languages (the course chapter's code the labs quote), the
public engines of `public_engines` (micrograd), and any file the instructor adds (`--base`, for
instance the chapter's own code). All of their k-grams are excluded, not only their winnowed
fingerprints, as MOSS excludes a base file's passages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from grader.common.labs import LABS
from grader.similarity.public_engines import PUBLIC_ENGINES
from grader.similarity.tokens import units
from grader.similarity.winnowing import kgrams

_PYTHON_BLOCK = re.compile(r"^```(?:python|py)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_code(markdown: str) -> list[str]:
    """The Python code blocks of a Markdown text."""
    return [match.group(1) for match in _PYTHON_BLOCK.finditer(markdown)]


def course_code() -> dict[str, str]:
    """Every piece of code the course gives or shows, by a name that says where it comes from."""
    code: dict[str, str] = {}
    for lab in LABS.values():
        for folder in (lab.student_dir, lab.solution_dir):
            for path in sorted(folder.glob("*.py")) if folder.is_dir() else ():
                code[f"{folder.parent.name}/{lab.name}/{path.name}"] = path.read_text(encoding="utf-8")
        for readme in sorted(lab.student_dir.glob("README*.md")):
            for number, block in enumerate(readme_code(readme.read_text(encoding="utf-8")), 1):
                code[f"labs/{lab.name}/{readme.name}#{number}"] = block
    return {**code, **PUBLIC_ENGINES}


def extra_code(paths: Iterable[Path]) -> dict[str, str]:
    """The instructor's own boilerplate files (Python, or Markdown whose Python blocks count)."""
    code: dict[str, str] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        blocks = readme_code(text) if path.suffix in (".md", ".markdown") else [text]
        for number, block in enumerate(blocks, 1):
            code[f"{path}#{number}"] = block
    return code


def boilerplate_hashes(code: Mapping[str, str]) -> frozenset[int]:
    """Every k-gram hash of the given code, unit by unit as a submission is cut."""
    hashes: set[int] = set()
    for text in code.values():
        for unit in units(text):
            hashes.update(gram.hash for gram in kgrams([token.text for token in unit.tokens]))
    return frozenset(hashes)
