"""No string-key read of the score document outside its typed layer (grader/results/score_document.py).

An AST scan of grader/: a subscript `x["key"]` or a `x.get("key")` whose key is a property of
score.schema.json and whose receiver is named as a document or one of its parts is a read of
the document's JSON. Each such read must be in EXCEPTIONS, a function (or module) listed with
its reason; everything else reads the typed records (`parse`, `as_document`).

`python tests/results/test_typed_reads.py [ROOT]` prints the reads, module by module.
"""

from __future__ import annotations

import ast
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA_FILE = Path("grader") / "results" / "score.schema.json"
# The names code gives a document or a part of one (the scan's receivers): a name not here
# reads no document, or the scan misses it (test_the_scan_finds_the_reads_it_was_built_on).
DOCUMENT_NAMES = frozenset({
    "doc", "docs", "document", "documents", "localised", "report", "reports", "d", "c",
    "check", "checks", "submission", "problem", "reason", "flag", "flags", "isolation", "out",
    "record", "failed", "graph", "node", "edge", "detail"})

# Where a read of those keys is not a read of a document's JSON, or is left for a reason.
EXCEPTIONS: dict[str, str] = {
    # the typed layer itself, and what is not a document
    "grader/results/score_document.py": "the typed layer",
    "grader/results/score_schema.py": "reads the JSON Schema (its caps), not a document",
    "grader/results/build.py": "builds the document's JSON from the plugin's entries",
    "grader/grading/plugin.py": "the plugin's entries and the intake's problem, before any document",
    "grader/grading/checking": "verdicts read the scenarios' replies, not documents",
    "grader/grading/child": "the sandbox's replies and graphs, not documents",
    "grader/intake/policy.py": "the policy scan's flags, before any document",
    "grader/grading/shard.py::_flags": "the policy scan's flags, before any document",
    # the {kind, params} detail and {id, params} flag: the checks' exceptions and the policy
    # scan make them before a document exists; the typed readers hand them `to_json(part)`
    "grader/results/messages.py::is_not_written": "the detail format {kind, params}",
    "grader/results/messages.py::names_a_pitfall": "the detail format {kind, params}",
    "grader/results/messages.py::todo_hint": "the detail format {kind, params}",
    "grader/results/messages.py::check_hint": "the detail format {kind, params}",
    "grader/results/messages.py::describe_detail": "the detail format {kind, params}",
    "grader/results/messages.py::describe_flag": "the flag format {id, params}",
    # JSON a platform writes, not a document read
    "grader/platforms/gradescope.py::_grade_and_say": "Gradescope's results.json, not a document",
}


def document_keys(root: Path) -> frozenset[str]:
    """Every property name of the score document's schema, at any depth."""
    keys: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    keys.update(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads((root / SCHEMA_FILE).read_text(encoding="utf-8")))
    return frozenset(keys)


def _receiver_name(expr: ast.expr) -> str | None:
    """The name a chain of subscripts, `.get`s and attributes starts from."""
    while True:
        if isinstance(expr, ast.Subscript | ast.Attribute):
            expr = expr.value
        elif (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
              and expr.func.attr == "get"):
            expr = expr.func.value
        elif isinstance(expr, ast.BoolOp):
            expr = expr.values[0]
        else:
            return expr.id if isinstance(expr, ast.Name) else None


def _read_key(node: ast.AST) -> tuple[str, ast.expr] | None:
    """The key and receiver of `x["key"]` (a load) or `x.get("key", ...)`."""
    if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        return node.slice.value, node.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):
        return node.args[0].value, node.func.value
    return None


def reads(root: Path) -> list[tuple[str, str, int, str]]:
    """Every string-key read of a document's JSON in grader/: (module, function, line, code)."""
    keys = document_keys(root)
    found = []
    for path in sorted((root / "grader").rglob("*.py")):
        module = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in [tree, *ast.walk(tree)]:
            if function is not tree and not isinstance(function, ast.FunctionDef
                                                       | ast.AsyncFunctionDef):
                continue
            name = getattr(function, "name", "")
            for node in _own_nodes(function):
                read = _read_key(node)
                if read and read[0] in keys and _receiver_name(read[1]) in DOCUMENT_NAMES:
                    found.append((module, name, node.lineno, ast.unparse(node)))
    return found


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a function (or module) outside the functions defined in it."""
    nodes, stack = [], list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        nodes.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return nodes


def excepted(module: str, function: str) -> bool:
    """The read is in an excepted function, module or folder."""
    return any(place in (f"{module}::{function}", module) or module.startswith(place + "/")
               for place in EXCEPTIONS)


def test_no_string_key_read_of_the_document_outside_the_typed_layer() -> None:
    left = [f"{module}:{line} ({function}) {code}" for module, function, line, code in reads(ROOT)
            if not excepted(module, function)]
    assert left == [], ("string-key reads of the score document (read its typed records, "
                        "grader/results/score_document.py):\n" + "\n".join(left))


def test_every_exception_still_excepts_a_read() -> None:
    found = reads(ROOT)
    unused = [place for place in EXCEPTIONS
              if not any(place in (f"{m}::{f}", m) or m.startswith(place + "/")
                         for m, f, _, _ in found)]
    assert unused == [], f"exceptions that no read needs any more: {unused}"


def test_the_scan_finds_the_reads_it_was_built_on(tmp_path: Path) -> None:
    module = tmp_path / "grader" / "probe.py"
    module.parent.mkdir()
    (tmp_path / SCHEMA_FILE).parent.mkdir(parents=True)
    (tmp_path / SCHEMA_FILE).write_text((ROOT / SCHEMA_FILE).read_text("utf-8"), "utf-8")
    module.write_text("def f(doc, c, other):\n"
                      "    a = doc['submission']['id']\n"
                      "    b = c.get('status')\n"
                      "    e = (doc.get('problem') or {}).get('line')\n"
                      "    return other['status'], doc['not-a-key'], a, b, e\n", "utf-8")
    found = sorted((function, line, code) for _, function, line, code in reads(tmp_path))
    assert found == [("f", 2, "doc['submission']"), ("f", 2, "doc['submission']['id']"),
                     ("f", 3, "c.get('status')"),
                     ("f", 4, "(doc.get('problem') or {}).get('line')"),
                     ("f", 4, "doc.get('problem')")], found


if __name__ == "__main__":
    found = reads(Path(sys.argv[1]) if sys.argv[1:] else ROOT)
    counts = Counter(module for module, *_ in found)
    for name, count in counts.most_common():
        print(count, name)
    print("total", sum(counts.values()), "in", len(counts), "modules;",
          sum(not excepted(module, function) for module, function, *_ in found),
          "outside EXCEPTIONS")
