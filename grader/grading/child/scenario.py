"""Scenarios: small trusted functions that drive a student's classes and return plain data.

A scenario is written as an ordinary function `def name(Value, **params)`. It is shipped to
the sandbox child as source text (decorators and comments removed) and executed there in a
namespace holding only the helpers of `grader.grading.child.graph`; the trusted process runs the very
same source against the reference solution, so both sides see identical code.

Side: sandbox child, by what it carries: the decorator runs at import in the trusted process,
but it only reads source text, and this module imports nothing beyond the standard library.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HELPERS_SOURCE = (Path(__file__).parent / "graph.py").read_text(encoding="utf-8")


def helpers_namespace() -> dict[str, Any]:
    """A fresh namespace with the graph helpers, built from the same source the child executes."""
    namespace: dict[str, Any] = {"__name__": "grader_graph_helpers"}
    exec(compile(HELPERS_SOURCE, "<graph helpers>", "exec"), namespace)
    return namespace


@functools.cache
def _module_functions(path: str) -> dict[int, ast.AST]:
    """The top-level definitions of a source file by their first line, decorators included
    (parsed once per file, not one tokenized block per scenario)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), path)
    return {min([node.lineno, *(d.lineno for d in node.decorator_list)]): node
            for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def _definition(function: Callable[..., Any]) -> ast.AST:
    """The function's definition: found in its module's tree when it is defined at the top
    of a file (a lab's scenarios), else parsed from inspect's source of it."""
    code = getattr(function, "__code__", None)
    if code is not None and Path(code.co_filename).is_file():
        found = _module_functions(code.co_filename).get(code.co_firstlineno)
        if found is not None:
            return found
    return ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]


def _function_source(function: Callable[..., Any]) -> str:
    """The function's source without decorators or comments."""
    definition = _definition(function)
    if not isinstance(definition, ast.FunctionDef):
        raise TypeError(f"scenario {function.__qualname__} must be a plain function")
    return ast.unparse(ast.FunctionDef(**{**vars(definition), "decorator_list": []}))


@dataclass(frozen=True)
class Scenario:
    """A named scenario with the source text that runs on both sides of the boundary."""

    name: str
    source: str
    _compiled: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # the module that defines it, whose REPLIES (if any) holds its reply's schema
    module: str = field(default="", compare=False, repr=False)

    def load(self) -> Callable[..., Any]:
        """The scenario function compiled in a namespace holding only the graph helpers (for trusted reference runs)."""
        if "function" not in self._compiled:
            namespace = helpers_namespace()
            exec(compile(self.source, f"<scenario {self.name}>", "exec"), namespace)
            self._compiled["function"] = namespace[self.name]
        return self._compiled["function"]


def scenario(function: Callable[..., Any]) -> Scenario:
    """Decorator: turn a function into a Scenario that can run in the sandbox."""
    return Scenario(name=function.__name__, source=_function_source(function),
                    module=function.__module__)
