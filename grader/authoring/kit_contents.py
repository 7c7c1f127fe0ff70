"""What the student kit carries, decided from what its checks import rather than listed by hand.

Side: trusted (authoring). The kit starts the grader in a few ways only (KIT_ENTRY_MODULES and
KIT_SOURCE_FILES, with the public suites of its labs); every other module it carries is one of
those imports, found by reading their source (ast). A function-level import the kit must not
follow (an instructor command's, or `grade`'s progress bars) says so on its line with
NOT_IN_KIT; `check` never calls those functions. The catalogue travels filtered: the texts of
the checks the kit runs and the shared texts, never a hidden check's.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

# What the kit runs, and how each starts: `python -m grader check`; a notebook's check cell
# (`from grader.notebook import check`); the pytest plugins the
# check's pytest loads by name (`-p`, grader.grading.shard.PLUGINS: a test keeps the two equal); the
# sources the sandbox reads from files and runs in its child.
KIT_ENTRY_MODULES = ("grader.__main__", "grader.notebook", "grader.grading.plugin",
                     "pytest_jsonreport.plugin")
KIT_SOURCE_FILES = ("grading/child/bootstrap.py", "grading/child/graph.py")  # relative to the package
# Written on the line of a function-level import the kit leaves out, with the reason after it.
NOT_IN_KIT = "# not in the student kit:"
PACKAGE = "grader"


class ClosureError(RuntimeError):
    """The kit's modules import something it can neither carry nor install."""


@dataclass(frozen=True)
class Closure:
    """The package's modules the kit needs (files under the package) and the outside imports."""

    files: frozenset[Path]
    external: frozenset[str]  # top-level names of third-party modules
    missing: frozenset[str] = frozenset()  # modules of the package imported and not found

    def distributions(self) -> set[str]:
        """The normalised names of the installed distributions that provide the outside imports."""
        provided = importlib.metadata.packages_distributions()
        found: set[str] = set()
        for name in sorted(self.external):
            if name not in provided:
                raise ClosureError(f"the kit imports {name!r}, which no installed distribution "
                                   "provides")
            found.update(normalise(dist) for dist in provided[name])
        return found


def normalise(distribution: str) -> str:
    """A distribution's name as pip compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def _followed_imports(tree: ast.Module, lines: list[str], where: Path,
                      marked_too: bool) -> Iterator[ast.AST]:
    """The import statements of a module the kit must satisfy: all but TYPE_CHECKING blocks and
    (unless `marked_too`) function-level imports marked NOT_IN_KIT."""

    def visit(node: ast.AST, in_function: bool) -> Iterator[ast.AST]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                yield from (n for other in child.orelse for n in visit_one(other, in_function))
                continue
            yield from visit_one(child, in_function)

    def visit_one(child: ast.AST, in_function: bool) -> Iterator[ast.AST]:
        if isinstance(child, ast.Import | ast.ImportFrom):
            marked = NOT_IN_KIT in lines[child.lineno - 1]
            if marked and not in_function:
                raise ClosureError(f"{where}:{child.lineno}: a module-level import runs whenever "
                                   "the module loads; only a function-level one can stay out "
                                   "of the kit")
            if marked_too or not marked:
                yield child
            return
        nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        yield from visit(child, nested)

    yield from visit(tree, False)


def _imported_names(node: ast.AST, module: str, is_package: bool) -> Iterator[tuple[str, bool]]:
    """The dotted module names an import statement may load, each with whether it must be a
    module (`from a import b`: a must, a.b may be a name defined in a)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, True
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = module.split(".")
            anchor = parts if is_package else parts[:-1]
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        yield base, True
        for alias in node.names:
            yield f"{base}.{alias.name}", False


def _module_file(name: str, root: Path) -> Path | None:
    """The file of a module of the package (root holds the package folder), if there is one."""
    path = root.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _defined_names(path: Path) -> set[str]:
    """The names a module binds at its top level (what `from it import name` can find)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for target in targets for t in ast.walk(target)
                         if isinstance(t, ast.Name))
    return names


def import_closure(roots: Iterable[Path], entry_modules: Iterable[str], package_dir: Path,
                   marked_too: bool = False) -> Closure:
    """Every module of the package that the roots (files) and entry modules import, transitively,
    with the packages above each; and the third-party top-level names they import. `marked_too`:
    the imports marked NOT_IN_KIT as well (what the whole grader runs, not only the kit)."""
    root = package_dir.parent
    files: set[Path] = set()
    external: set[str] = set()
    missing: set[str] = set()
    pending: list[tuple[Path, str]] = [(Path(path), "") for path in roots]

    def reach(name: str, required: bool = True) -> None:
        top = name.split(".", 1)[0]
        if top != PACKAGE:
            if top and top not in sys.stdlib_module_names and top != "__future__":
                external.add(top)
            return
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
            found = _module_file(".".join(parts[:depth]), root)
            if found is None:
                parent = _module_file(".".join(parts[:depth - 1]), root)
                if required or depth < len(parts) or (
                        parent is not None and parent.name == "__init__.py"
                        and parts[depth - 1] not in _defined_names(parent)):
                    missing.add(".".join(parts[:depth]))
                return
            if found not in files:
                files.add(found)
                pending.append((found, ".".join(parts[:depth])))

    for name in entry_modules:
        reach(name)
    while pending:
        path, module = pending.pop()
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(path))
        for node in _followed_imports(tree, source.splitlines(), path, marked_too):
            for name, required in _imported_names(node, module, path.name == "__init__.py"):
                reach(name, required)
    return Closure(frozenset(files), frozenset(external), frozenset(missing))


def kit_closure(public_suites: Iterable[Path], package_dir: Path) -> Closure:
    """The kit's modules: what its entry points, the sandbox child's sources and the public
    suites of its labs import."""
    suites = [path for folder in public_suites for path in sorted(Path(folder).glob("*.py"))]
    sources = [package_dir / name for name in KIT_SOURCE_FILES]
    closure = import_closure([*suites, *sources], KIT_ENTRY_MODULES, package_dir)
    return Closure(closure.files | frozenset(sources), closure.external, closure.missing)


def declared_check_ids(suite_files: Iterable[Path]) -> set[str]:
    """The ids the `check` markers (and `check_case` calls) of these suite files declare, read
    from their source."""
    ids: set[str] = set()
    for path in suite_files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else \
                getattr(node.func, "id", "")
            if callee not in ("check", "check_case"):
                continue
            for keyword in node.keywords:
                if keyword.arg == "id" and isinstance(keyword.value, ast.Constant):
                    ids.add(str(keyword.value.value))
    return ids


_HEADER = re.compile(r"^\[(?P<key>[^\[\]]+)\]\s*(#.*)?$")


def public_catalogue(source: Path, kept_checks: set[str], name: str) -> str:
    """The catalogue file `source` as the kit carries it: without the `checks.<id>` tables of
    checks not in kept_checks (a table holds every language of its check, so one goes with all
    its translations), and without comments (they name hidden checks' groups)."""
    kept_lines: list[str] = []
    keep = True
    for line in source.read_text(encoding="utf-8").splitlines():
        header = _HEADER.match(line)
        if header:
            path = [part.strip().strip('"') for part in header["key"].split(".")]
            keep = not (path[0] == "checks" and len(path) > 1 and path[1] not in kept_checks)
        if keep and not line.lstrip().startswith("#"):
            kept_lines.append(line)
    text = "\n".join([f"# The student kit's copy of {name}: the texts of "
                      "the checks this kit runs.", *kept_lines]).rstrip() + "\n"
    _verify_filtered(source, text, kept_checks)
    return text


def _verify_filtered(source: Path, text: str, kept_checks: set[str]) -> None:
    """The filtered text must parse to the original less exactly the dropped checks."""
    with source.open("rb") as handle:
        original = tomllib.load(handle)
    expected = dict(original)
    if "checks" in original:
        expected["checks"] = {key: value for key, value in original["checks"].items()
                              if key in kept_checks}
        if not expected["checks"]:
            del expected["checks"]
    try:
        filtered = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ClosureError(f"filtering {source} for the kit broke it: {exc}") from None
    if filtered != expected:
        raise ClosureError(f"filtering {source} for the kit changed more than the hidden checks' "
                           "tables (a table header inside a multi-line string?)")


# The sandbox child's table of operations (grader/grading/child/graph.py, OPERATIONS): each row
# holds an operation's local derivatives, which the lab that introduces it asks students to
# work out. The kit carries the rows of the operations its labs' Value already has, no other.
CHILD_OPERATIONS_FILE = "grading/child/graph.py"  # relative to the package
_OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
              ast.Pow: "pow"}


def operation_method(code: str) -> str:
    """The method of Value an operation's expression calls (`{a} + {k}`: __add__, `{k} * {a}`:
    __rmul__, `-{a}`: __neg__, `{a}.exp()`: exp), read from its written form."""
    expression = ast.parse(code.format(a="a", b="b", k="2"), mode="eval").body
    if isinstance(expression, ast.BinOp) and type(expression.op) in _OPERATORS:
        name = _OPERATORS[type(expression.op)]
        return f"__{name}__" if isinstance(expression.left, ast.Name) else f"__r{name}__"
    if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.USub):
        return "__neg__"
    if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Attribute):
        return expression.func.attr
    raise ClosureError(f"the kit cannot tell which method of Value {code!r} calls")


def class_methods(sources: Iterable[str], class_name: str = "Value") -> set[str]:
    """The methods the classes called `class_name` define in these sources."""
    methods: set[str] = set()
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and node.name == class_name:
                methods.update(item.name for item in node.body
                               if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef))
    return methods


def child_operations_source(source: str, methods: set[str]) -> str:
    """The child's graph.py as a kit carries it: the OPERATIONS rows whose expression (a row's
    second item) calls one of `methods` only, and without the helper functions (and their
    HELPER_NAMES entries) only dropped rows used."""
    tree = ast.parse(source)
    rows = _operation_rows(tree)
    lines = source.splitlines(keepends=True)
    dropped: set[int] = set()
    names: set[str] = set()  # what the dropped rows use
    for row in rows:
        if operation_method(ast.literal_eval(row.elts[1])) not in methods:
            dropped.update(range(row.lineno - 1, row.end_lineno or row.lineno))
            names.update(node.id for node in ast.walk(row) if isinstance(node, ast.Name))
    kept_lines = "".join(line for number, line in enumerate(lines) if number not in dropped)
    return _without_unused_helpers(kept_lines, names)


def _operation_rows(tree: ast.Module) -> list[ast.Tuple]:
    """The rows of `OPERATIONS = {row[0]: Operation(*row) for row in (...)}`, each on lines
    of its own (else the kit cannot drop one)."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "OPERATIONS"
                and isinstance(node.value, ast.DictComp)
                and isinstance(node.value.generators[0].iter, ast.Tuple)):
            rows = [row for row in node.value.generators[0].iter.elts if isinstance(row, ast.Tuple)]
            starts = [node.lineno, *(row.end_lineno or row.lineno for row in rows)]
            ends = [*(row.lineno for row in rows), node.end_lineno or node.lineno]
            if any(end <= start for start, end in zip(starts, ends, strict=True)):
                raise ClosureError("a row of OPERATIONS shares a line with another: the kit "
                                   "cannot leave it out")
            return rows
    raise ClosureError(f"{CHILD_OPERATIONS_FILE} has no OPERATIONS table the kit can filter")


def _without_unused_helpers(source: str, candidates: set[str]) -> str:
    """The source less the top-level functions among `candidates` (what dropped rows used)
    that nothing left in it uses, and less their names in HELPER_NAMES."""
    tree = ast.parse(source)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    unused = [node for node in tree.body if isinstance(node, ast.FunctionDef)
              and node.name in candidates and node.name not in used]
    lines = source.splitlines(keepends=True)
    dropped = {number for node in unused
               for number in range(node.lineno - 1, node.end_lineno or node.lineno)}
    text = "".join(line for number, line in enumerate(lines) if number not in dropped)
    for node in unused:
        text = re.sub(rf'"{re.escape(node.name)}",\s*', "", text, count=1)
    return text
