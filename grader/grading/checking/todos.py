"""Code not written yet: a TODO's NotImplementedError becomes "not written yet", not a pitfall.

Side: trusted process. The submission's files are read as text here, never run. The stub of
every lab raises `NotImplementedError('<lab>, TODO <n>: ...')` in each TODO (the format of
`grader.authoring.stubgen`), so the number of the TODO a check ran into comes back in the
exception's message, and the raise lines a submission still holds say which TODOs it has not
touched: the lowest of them is the one to write next. Each public check declares the TODOs it
judges (`todo=` in its marker), which `public_checks_by_todo` reads back from the suite's source.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

from grader.common.labs import Lab
from grader.common.todo_format import TODO_NUMBER, UNTOUCHED_TODO
from grader.grading.checking.verdict import CheckFailed

# The detail kinds of code that is not written yet: no pitfall, and the hint says what to write.
NOT_WRITTEN = "not-written"  # a TODO of the stub, by number
NOT_IMPLEMENTED = "not-implemented"  # a NotImplementedError the stub did not put there


def untouched_todos(texts: Iterable[str], lab: str) -> tuple[int, ...]:
    """The numbers of the lab's TODOs whose raise line is still in one of the texts, in order."""
    numbers = {int(found["number"]) for text in texts for found in UNTOUCHED_TODO.finditer(text)
               if found["lab"] == lab}
    return tuple(sorted(numbers))


def todo_number(message: str, lab: str) -> int | None:
    """The TODO number a stub's NotImplementedError message carries, if it is one of this lab."""
    found = TODO_NUMBER.match(message)
    return int(found["number"]) if found and found["lab"] == lab else None


def not_written(exception: Mapping[str, Any], lab: str, file: str, output: str,
                untouched: tuple[int, ...]) -> CheckFailed | None:
    """The failure for an exception detail {type, message, where}, if it says "not written".

    `untouched` are the TODOs the submission still holds as the stub has them; the lowest is
    the one to write next (`next`, absent when none is left).
    """
    if exception.get("type") != "NotImplementedError":
        return None
    message = str(exception.get("message", ""))
    where = exception.get("where") or []  # frames {file, line, function} (messages.format_frames)
    following: dict[str, Any] = {"next": untouched[0]} if untouched else {}
    number = todo_number(message, lab)
    if number is None:
        return CheckFailed(NOT_IMPLEMENTED, output=output, message=message, where=where,
                           file=file, **following)
    return CheckFailed(NOT_WRITTEN, output=output, todo=number, file=file, where=where,
                       **following)


def public_checks_by_todo(lab: Lab) -> dict[int, tuple[str, ...]]:
    """The ids of the lab's public checks per TODO, from the `todo=` of their markers.

    The suite's source is read, not imported or collected: the markers' keywords are literals
    or module-level names bound to literals
    (`spec_from_marker` validates the same values when pytest collects them).
    """
    found: dict[int, list[str]] = {}
    for path in sorted(lab.public_tests.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _module_literals(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            keywords = {k.arg: k.value for k in node.keywords if k.arg in ("id", "todo")}
            if len(keywords) < 2 or not _declares_check(node.func):
                continue
            todo = _literal(keywords["todo"], constants)
            for number in todo if isinstance(todo, tuple) else (todo,):
                found.setdefault(number, []).append(_literal(keywords["id"], constants))
    return {number: tuple(ids) for number, ids in sorted(found.items())}


def _module_literals(tree: ast.Module) -> dict[str, Any]:
    """The module's top-level names bound to a literal (`ALL_TODOS = (1, 2, 3)`)."""
    found: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return found


def _literal(node: ast.expr, constants: dict[str, Any]) -> Any:
    """A marker keyword's value: a literal, or a module-level name bound to one."""
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    return ast.literal_eval(node)


def _declares_check(func: ast.expr) -> bool:
    """`pytest.mark.check(...)` or `check_case(...)`."""
    return ((isinstance(func, ast.Attribute) and func.attr == "check")
            or (isinstance(func, ast.Name) and func.id == "check_case"))
