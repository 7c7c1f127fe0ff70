"""Static policy scan: imports and calls a lab does not allow, found by reading the source.

Flags inform the instructor; they never change a score (the sandbox, not this scan, is what
keeps hostile code from gaining points). A file that does not parse yields no flags: the
checks report the syntax error.

What the scan gives is bounded whatever the source holds: a name is quoted cut to
`QUOTED_CHARS` (and flags are told apart by what they quote), and at most `MAX_FLAGS` are kept,
the rest counted in one `more-flags` flag. A 33 KB file whose 1,000 calls resolve to 1,000
different 16 KB names (an alias of a long dotted import) gave 1,000 flags and a 33 MB report.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

from grader.common.text import clean_text
from grader.intake.limits import PARSE_ERRORS

FORBIDDEN_MODULES = frozenset({
    "torch", "micrograd", "jax", "tensorflow", "autograd", "tinygrad",  # someone else's engine
    "ctypes", "cffi", "subprocess", "_posixsubprocess", "socket", "multiprocessing", "pty",
    "signal", "resource",
    "importlib", "inspect", "gc", "pytest", "_pytest", "grader", "atexit", "threading",
    "urllib", "http", "requests", "shutil", "site", "builtins",
})
FORBIDDEN_CALLS = frozenset({
    "eval", "exec", "compile", "__import__", "open", "breakpoint",
    "os.system", "os.popen", "os.fork", "os.forkpty", "os.kill", "os.killpg", "os._exit",
    "os.setsid", "os.setpgid", "os.posix_spawn", "os.posix_spawnp", "os.write", "os.dup2",
    "os.remove", "os.unlink", "os.rename", "os.replace", "os.chmod", "os.environ.get",
    "os.getenv", "os.listdir", "os.walk", "os.scandir", "sys.exit", "sys._getframe",
    "sys.settrace", "sys.setprofile",
})
FORBIDDEN_CALL_PREFIXES = ("os.exec", "os.spawn")
QUOTED_CHARS = 80   # of a module or call name a flag quotes
# Of a name the scan resolves through an import alias: far longer than any forbidden name, and
# short enough that resolving the same long alias at every call stays linear in the source.
NAME_CHARS = 200
MAX_FLAGS = 20      # flags of one submission's scan; past it, one `more-flags` counts the rest
MORE_FLAGS = "more-flags"


def _root(name: str) -> str:
    return name.split(".", 1)[0]


def _dotted(node: ast.expr, aliases: Mapping[str, str]) -> str | None:
    """`a.b.c` for a Name/Attribute chain, with import aliases resolved."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id)[:NAME_CHARS])
    return ".".join(reversed(parts))[:NAME_CHARS]


def _imports(tree: ast.AST) -> tuple[list[str], dict[str, str]]:
    """Modules imported (including `__import__("x")` and `import_module("x")` literals),
    and the local names bound to them."""
    modules: list[str] = []
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules.append(alias.name)
                bound = alias.asname or _root(alias.name)
                aliases[bound] = alias.name[:NAME_CHARS] if alias.asname else bound
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.append(node.module)
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module[:NAME_CHARS]}.{alias.name}"
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and isinstance(node.func, ast.Name | ast.Attribute)
              and (getattr(node.func, "id", None) == "__import__"
                   or getattr(node.func, "attr", None) == "import_module")):
            modules.append(node.args[0].value)
    return modules, aliases


def scan_source(source: str, forbidden_modules: Iterable[str] = FORBIDDEN_MODULES,
                forbidden_calls: Iterable[str] = FORBIDDEN_CALLS) -> list[dict[str, Any]]:
    """Flags for one file's source: forbidden imports, then forbidden calls, each once."""
    try:
        tree = ast.parse(source)
    except PARSE_ERRORS:
        return []
    banned_modules, banned_calls = set(forbidden_modules), set(forbidden_calls)
    modules, aliases = _imports(tree)
    flags: dict[tuple[str, str], dict[str, Any]] = {}
    for module in modules:
        if _root(module) in banned_modules:
            quoted = clean_text(_root(module), QUOTED_CHARS)
            flags[("forbidden-import", quoted)] = {
                "id": "forbidden-import", "params": {"module": quoted}}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func, aliases)
            if name and (name in banned_calls or name.startswith(FORBIDDEN_CALL_PREFIXES)):
                quoted = clean_text(name, QUOTED_CHARS)
                flags[("forbidden-call", quoted)] = {"id": "forbidden-call",
                                                     "params": {"call": quoted}}
    return list(flags.values())


def scan_files(files: Mapping[str, bytes]) -> list[dict[str, Any]]:
    """Flags for every file of a submission, without duplicates, at most MAX_FLAGS of them
    and then one that counts the others."""
    seen: dict[str, dict[str, Any]] = {}
    for name in sorted(files):
        for flag in scan_source(files[name].decode("utf-8", errors="replace")):
            seen.setdefault(repr(sorted(flag["params"].items())) + flag["id"], flag)
    return capped_flags(list(seen.values()))


def capped_flags(flags: list[dict[str, Any]], limit: int = MAX_FLAGS) -> list[dict[str, Any]]:
    """The first `limit` flags, and past them one `more-flags` flag saying how many more."""
    if len(flags) <= limit:
        return flags
    return [*flags[:limit], {"id": MORE_FLAGS, "params": {"count": len(flags) - limit}}]
