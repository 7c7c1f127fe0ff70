"""Disguises a copier applies to a classmate's engine, written as code so the corpus test and the
benchmark make their copies the same way. Each takes Python source and returns Python source
that behaves the same (the notebook one returns a notebook's JSON text).

1. `renamed`: every name the student chose (functions, parameters, locals, helpers) renamed;
2. `methods_reordered`: the methods of every class, and the module's functions, in reverse order;
3. `recommented`: comments and docstrings dropped, new comments and blank lines put in;
4. `augmented_spelled_out`: `a += b` written `a = a + (b)`;
5. `helper_extracted`: the longest method's body moved into a module-level helper it calls;
6. `helper_inlined`: a one-line helper (`return <expr>`) replaced by its expression where called;
7. `as_notebook`: the file as the lab's notebook (`grader.authoring.notebooks.lab_notebook`);
8. `lambdas_as_defs`: `x._backward = lambda: None` written as a nested `def` (and back);
9. `padded`: a statement of no effect after every third statement of a function.

`all_at_once` chains 1-6 and 8.
"""

from __future__ import annotations

import ast
import builtins
import io
import random
import re
import tokenize
from collections.abc import Callable

from grader.authoring.notebooks import lab_notebook, notebook_text
from grader.common.labs import LABS
from grader.similarity.tokens import CONTRACT_NAMES

_KEEP = CONTRACT_NAMES | set(dir(builtins)) | {"self", "cls", "math", "random", "itertools",
                                                "functools", "dataclasses", "dataclass", "field"}


def _chosen_names(tree: ast.AST) -> set[str]:
    """The names a student chose: functions, classes less the contract's, parameters, locals."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
            names.update(a.arg for a in (*node.args.posonlyargs, *node.args.args,
                                          *node.args.kwonlyargs))
            names.update(a.arg for a in (node.args.vararg, node.args.kwarg) if a)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
    # A name also used as an attribute (`self.label`) or a keyword (`Value(1, label="x")`) is
    # part of an interface: renaming it would change what the code does.
    interface = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    interface |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.keyword) and n.arg}
    return {n for n in names if n not in _KEEP | interface
            and not (n.startswith("__") and n.endswith("__"))}


def renamed(source: str, seed: int = 0) -> str:
    """Every chosen name replaced by another word, everywhere it appears as a name token."""
    rng = random.Random(seed)
    names = sorted(_chosen_names(ast.parse(source)))
    words = ["alpha", "node", "item", "thing", "acc", "tmp", "val", "res", "elem", "obj", "cur",
             "nxt", "holder", "store", "keep", "walker", "step", "part", "piece", "unit"]
    mapping = {name: f"{rng.choice(words)}_{index}" for index, name in enumerate(names)}
    inside_fstring = re.compile(r"\b(" + "|".join(map(re.escape, mapping)) + r")\b") if mapping else None

    def renamed_field(field: re.Match[str]) -> str:
        assert inside_fstring is not None
        return inside_fstring.sub(lambda m: mapping[m[1]], field[0])

    out = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string in mapping:
            token = token._replace(string=mapping[token.string])
        elif (token.type == tokenize.STRING and inside_fstring is not None
              and "f" in token.string.split("'")[0].split('"')[0].lower()):
            # only inside the replacement fields: `f` itself may be a renamed name
            token = token._replace(string=re.sub(r"\{[^{}]*\}", renamed_field, token.string))
        out.append(token)
    return tokenize.untokenize(out)


def _span(node: ast.stmt) -> tuple[int, int]:
    """(first, last) 0-based line of a statement, its decorators included."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)]) - 1, (node.end_lineno or node.lineno) - 1


def _functions_reversed(lines: list[str], body: list[ast.stmt], end: int) -> list[str]:
    """The lines of `body` (which ends at line `end`) with its functions in reverse order; the
    statements after the first function go after them all, in their order (a class-level
    `__radd__ = __add__` needs `__add__` defined first)."""
    functions = [n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    if len(functions) < 2:
        return lines[_span(body[0])[0]:end + 1]
    start = _span(functions[0])[0]
    head = lines[_span(body[0])[0]:start]
    later = [n for n in body if n not in functions and _span(n)[0] > start]
    pieces = [lines[a:b + 1] for a, b in map(_span, reversed(functions))]
    pieces += [lines[a:b + 1] for a, b in map(_span, later)]
    return head + [line for piece in pieces for line in [*piece, ""]]


def methods_reordered(source: str) -> str:
    """The methods of each class, and the module's functions, in reverse order."""
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in sorted((n for n in tree.body if isinstance(n, ast.ClassDef)), key=lambda n: -n.lineno):
        first, last = _span(node.body[0])[0], (node.end_lineno or node.lineno) - 1
        lines[first:last + 1] = _functions_reversed(lines, node.body, last)
    source = "\n".join(lines) + "\n"
    tree = ast.parse(source)
    lines = source.splitlines()
    return "\n".join(_functions_reversed(lines, tree.body, len(lines) - 1)) + "\n"


def _without_comments(source: str) -> str:
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type != tokenize.COMMENT]
    return tokenize.untokenize(tokens)


def recommented(source: str, seed: int = 0) -> str:
    """Comments and docstrings replaced by others; blank lines added and removed."""
    rng = random.Random(seed)
    text = ast.unparse(ast.parse(_without_comments(source)))  # unparse keeps docstrings
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            body[0].value.value = "My own implementation."
    notes = ["# compute the result", "# see lecture", "# TODO check this", "# the chain rule",
             "# important!", "# helper", "# done"]
    out = []
    for line in ast.unparse(tree).splitlines():
        indent = line[:len(line) - len(line.lstrip())]
        if line.strip() and rng.random() < 0.35:
            out.append(indent + rng.choice(notes))
        out.append(line)
        if rng.random() < 0.2:
            out.append("")
    return "\n".join(out) + "\n"


_AUGMENTED = re.compile(r"^(?P<indent>\s*)(?P<target>[\w.\[\]]+)\s*(?P<op>\*\*|//|[-+*/%@&|^])=\s*"
                        r"(?P<value>[^#\n]+?)\s*$", re.MULTILINE)


def augmented_spelled_out(source: str) -> str:
    """`a += b` written `a = a + (b)`."""
    return _AUGMENTED.sub(lambda m: f"{m['indent']}{m['target']} = {m['target']} {m['op']} "
                                    f"({m['value']})", source)


def helper_extracted(source: str) -> str:
    """The longest method's body moved into a module-level function that it calls."""
    tree = ast.parse(source)
    methods = [(cls, m) for cls in tree.body if isinstance(cls, ast.ClassDef)
               for m in cls.body if isinstance(m, ast.FunctionDef) and not m.decorator_list]
    if not methods:
        return source
    cls, method = max(methods, key=lambda pair: (pair[1].end_lineno or 0) - pair[1].lineno)
    helper = ast.FunctionDef(name=f"_{method.name.strip('_')}_steps", args=method.args,
                             body=method.body, decorator_list=[], returns=None, type_params=[])
    params = [a.arg for a in method.args.args]
    call = ast.parse(f"return _{method.name.strip('_')}_steps({', '.join(params)})").body
    method.body = call
    tree.body.insert(tree.body.index(cls) + 1, helper)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def helper_inlined(source: str) -> str:
    """Each module-level or static one-line helper `def h(x): return <expr>` replaced, where it is
    called, by its expression with the arguments put in; the helper stays (it is harmless)."""
    tree = ast.parse(source)
    helpers: dict[str, ast.FunctionDef] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.FunctionDef) and len(node.body) == 1
                and isinstance(node.body[0], ast.Return) and node.body[0].value is not None
                and not node.args.vararg and not node.args.kwarg and not node.args.defaults
                and not node.name.startswith("__") and node.name not in CONTRACT_NAMES
                and (not node.decorator_list or all(
                    isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list))):
            helpers[node.name] = node

    class Inline(ast.NodeTransformer):
        def visit_Call(self, call: ast.Call) -> ast.AST:
            self.generic_visit(call)
            name = call.func.id if isinstance(call.func, ast.Name) else (
                call.func.attr if isinstance(call.func, ast.Attribute) and isinstance(
                    call.func.value, ast.Name) and call.func.value.id[:1].isupper() else None)
            helper = helpers.get(name or "")
            params = [a.arg for a in helper.args.args] if helper else []
            if helper is None or len(params) != len(call.args) or call.keywords:
                return call
            body = helper.body[0].value  # type: ignore[attr-defined]
            mapping = dict(zip(params, call.args, strict=True))

            class Put(ast.NodeTransformer):
                def visit_Name(self, name: ast.Name) -> ast.AST:
                    return mapping.get(name.id, name)

            return Put().visit(ast.parse(ast.unparse(body), mode="eval").body)

    return ast.unparse(ast.fix_missing_locations(Inline().visit(tree))) + "\n"


_LAMBDA_NONE = re.compile(r"^(?P<indent>\s*)(?P<target>[\w.]+)\s*=\s*lambda\s*:\s*None\s*$",
                          re.MULTILINE)
_DEF_PASS = re.compile(r"^(?P<indent>\s*)def (?P<name>\w+)\(\):\n(?P=indent)\s+(?:pass|return None|return)\n"
                       r"(?P=indent)(?P<target>[\w.]+) = (?P=name)\n", re.MULTILINE)


def lambdas_as_defs(source: str) -> str:
    """A no-op `lambda: None` bound to a name written as a nested `def`, and a nested no-op `def`
    bound to a name written as a `lambda`."""
    swapped = _DEF_PASS.sub(lambda m: f"{m['indent']}{m['target']} = lambda: None\n", source)
    return _LAMBDA_NONE.sub(lambda m: f"{m['indent']}def _noop():\n{m['indent']}    return None\n"
                                      f"{m['indent']}{m['target']} = _noop", swapped)


def padded(source: str, every: int = 3) -> str:
    """A statement of no effect (`_unused = None`) put after every `every`-th simple statement
    inside a function: the padding a copier adds so that no long run stays the same."""
    tree = ast.parse(source)
    lines = source.splitlines()
    simple = sorted({(n.end_lineno or n.lineno, n.col_offset) for f in ast.walk(tree)
                     if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                     for n in ast.walk(f) if isinstance(n, ast.stmt) and not hasattr(n, "body")
                     and not lines[n.lineno - 1][:n.col_offset].strip()})  # on a line of its own
    for index, (last, column) in enumerate(reversed(simple)):
        if (len(simple) - 1 - index) % every == every - 1:
            lines.insert(last, " " * column + "_unused = None")
    return "\n".join(lines) + "\n"


def as_notebook(source: str, lab_name: str) -> str:
    """The file as the lab's notebook: the cells the lab's own notebook is cut into."""
    lab = LABS[lab_name]
    readme_en = (lab.student_dir / "README.md").read_text(encoding="utf-8")
    readme_es = (lab.student_dir / "README.es.md").read_text(encoding="utf-8")
    return notebook_text(lab_notebook(lab_name, source, readme_en, readme_es))


def all_at_once(source: str, seed: int = 0) -> str:
    """Every source-to-source disguise, one after the other."""
    for disguise in (helper_inlined, helper_extracted, methods_reordered, augmented_spelled_out,
                     lambdas_as_defs):
        source = disguise(source)
    return recommented(renamed(source, seed), seed)


SOURCE_DISGUISES: dict[str, Callable[[str], str]] = {
    "renamed": renamed,
    "methods-reordered": methods_reordered,
    "recommented": recommented,
    "augmented-spelled-out": augmented_spelled_out,
    "helper-extracted": helper_extracted,
    "helper-inlined": helper_inlined,
    "lambdas-as-defs": lambdas_as_defs,
    "padded": padded,
    "all-at-once": all_at_once,
}
# The notebook disguise changes the form of the submission, not only its text.
NOTEBOOK_DISGUISE = "as-notebook"
DISGUISES = (*SOURCE_DISGUISES, NOTEBOOK_DISGUISE)
# Padding cuts every long run, which is what k-gram methods match on: its copies are found at the
# default cut, but the weakest of them scores below the most alike independent pair in three
# labs (docs/similarity.md gives the figures), so it is measured, not held to the ranking.
CUT_ONLY = ("padded",)


