"""Naming a submission that is another lab's file, from what the file holds, never from a guess.

Side: trusted process (intake); it reads the submission's text and never runs it. A student who
hands in lab01's `value.py` for lab02 fails lab02's checks, and those failures would be counted
as pitfalls and reach the dashboard's "what to reteach". The file says whose it is when it
carries marks that only the stubs of one lab write (grader.common.todo_format):

- `header`: the stub's first lines, naming their lab (`# lab01_graph: write the TODOs below ...`);
- `todo`: the stub's TODO markers (`# TODO(lab01_graph): ...`, or a TODO's raise left as given);
- `given`: the code is, byte for byte once normalised, what another lab gave (its stub or
  notebook: `candidates.untouched_code`).

A submission is another lab's when those marks name exactly one other lab, none names the lab
it is graded for (nor is it this lab's given code), and it defines none of the names this lab's
stub adds to that lab's (lab02's `exp`, `tanh`, ...; lab03's `zero_grad`, `check_grad`, ...): a
student who started lab02 from their own lab01 file, header and all, and wrote lab02's methods
into it is graded as usual. An engine written from scratch carries no marks: it is graded as it
is, whatever it lacks.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grader.common import todo_format as marks
from grader.common.labs import LABS, Lab
from grader.intake.candidates import code_digest, untouched_code

# The kinds of evidence, in the order the feedback says them.
EVIDENCE = ("given", "header", "todo")


def _marks(text: str, name: str) -> list[str]:
    """The kinds of stub mark of lab `name` that `text` holds."""
    lines = {line.strip() for line in text.splitlines()[:20]}
    found = []
    headers = (marks.HEADER_EN, marks.HEADER_ES, marks.GIVEN_HEADER_EN, marks.GIVEN_HEADER_ES)
    if any(header.format(lab=name) in lines for header in headers):
        found.append("header")
    todo_comment = any(marker.format(lab=name).strip() in text for marker in (marks.TODO_EN, marks.TODO_ES))
    if todo_comment or any(match["lab"] == name for match in marks.UNTOUCHED_TODO.finditer(text)):
        found.append("todo")
    return found


def other_lab(lab: Lab, code: bytes,
              notebook_code: Callable[[bytes], bytes]) -> dict[str, Any] | None:
    """{"lab": the other lab, "evidence": its kinds} when `code` (the submission's main file, a
    notebook's already joined) is another lab's file; None when it is this lab's or says
    nothing."""
    text = code.decode("utf-8", errors="replace")
    digest = code_digest(code)
    if _marks(text, lab.name) or digest in untouched_code(lab, notebook_code):
        return None
    evidence: dict[str, list[str]] = {}
    for name, other in LABS.items():
        if name == lab.name:
            continue
        kinds = _marks(text, name)
        if other.main_file == lab.main_file and digest in untouched_code(other, notebook_code):
            kinds.insert(0, "given")
        if kinds:
            evidence[name] = kinds
    if len(evidence) != 1:
        return None
    (name, kinds), = evidence.items()
    written = defined_names(text)
    if written is None or written & _added_names(lab, LABS[name]):
        return None
    return {"lab": name, "evidence": kinds}


def defined_names(text: str) -> set[str] | None:
    """The module-level functions and classes `text` defines, and each class's methods as
    `Class.method`; None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {f"{node.name}.{item.name}" for item in node.body
                      if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)}
    return names


def _stub_names(path: Path) -> set[str]:
    """What a lab's stub defines (nothing when the stub is not here, as a later lab in a kit)."""
    if not path.is_file():
        return set()
    return defined_names(path.read_text(encoding="utf-8", errors="replace")) or set()


def _added_names(lab: Lab, other: Lab) -> set[str]:
    """The names `lab`'s stub defines that `other`'s does not: `lab`'s own work."""
    return (_stub_names(lab.student_dir / lab.main_file)
            - _stub_names(other.student_dir / other.main_file))

