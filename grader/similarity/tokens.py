"""Python source as normalized tokens, one sequence per function, so that a copy stays a copy.

Side: trusted process; the source is read with `tokenize` and `ast.parse`, never run.

What a disguise changes and what it becomes here:

- names: every identifier is `ID`, except the names the lab's contract fixes (`data`, `grad`,
  `_prev`, `Value`, `backward`, ...), Python's builtins and dunder names, which a copier cannot
  rename without breaking the code; literals become their kind (`NUM`, `STR`);
- comments, docstrings, blank lines, indentation and grouping parentheses are dropped;
- `a += b` is written `a = a + b` (the parentheses of `a = a + (b)` are grouping ones, dropped
  like the others), and a lambda is hoisted out as the `def` it stands for:
  `out._backward = lambda: None` reads as `def f(): return None` then `out._backward = f`;
- method order: each function (a module's, or a class's method, its nested closures included)
  is a sequence of its own, and the rest of the module one more, so k-grams never cross from one
  function into the next and moving functions around moves nothing.

Every token keeps the line it came from, so a matched fingerprint points back at the source.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# The names the labs' contracts fix (DESIGN.md, "The student-facing contract"): a copier keeps
# them, and two students who write them have not chosen them.
CONTRACT_NAMES = frozenset({
    "Value", "data", "grad", "_prev", "_op", "_backward", "backward", "_children",
    "exp", "log", "tanh", "relu", "sigmoid", "zero_grad",
    "Module", "Neuron", "Layer", "MLP", "parameters", "nonlin", "w", "b", "neurons", "layers",
})
# A bare name is kept when it names a contract's class or a builtin; the other contract names
# (`data`, `b`, `backward`) are kept as attributes and as the names of methods.
CONTRACT_CLASSES = frozenset({"Value", "Module", "Neuron", "Layer", "MLP"})
KEPT_NAMES = CONTRACT_CLASSES | frozenset(dir(builtins)) - {"self"}
AUGMENTED = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "//=": "//", "%=": "%", "**=": "**",
             "@=": "@", "&=": "&", "|=": "|", "^=": "^", "<<=": "<<", ">>=": ">>"}
# Token types that carry no code: layout and comments.
_LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
           tokenize.ENDMARKER, tokenize.NEWLINE}
MODULE_UNIT = "<module>"


@dataclass(frozen=True)
class Token:
    """One normalized token and the source line it came from."""

    text: str
    line: int


@dataclass(frozen=True)
class Unit:
    """The normalized tokens of one function (or of the code outside every function)."""

    name: str
    tokens: tuple[Token, ...]


def _raw_tokens(source: str) -> Iterator[tokenize.TokenInfo]:
    """Python's tokens of the source; a file that stops tokenizing gives what came before."""
    try:
        yield from tokenize.generate_tokens(io.StringIO(source).readline)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return


def _logical_lines(source: str) -> Iterator[list[tokenize.TokenInfo]]:
    """The source's statements, one token list each, without layout or comments."""
    line: list[tokenize.TokenInfo] = []
    for token in _raw_tokens(source):
        if token.type == tokenize.NEWLINE or token.type == tokenize.ENDMARKER:
            if line:
                yield line
            line = []
        elif token.type not in _LAYOUT:
            line.append(token)
    if line:
        yield line


def _top_level(tokens: Sequence[tokenize.TokenInfo]) -> Iterator[tuple[int, tokenize.TokenInfo]]:
    """The tokens outside every bracket, with their index."""
    depth = 0
    for index, token in enumerate(tokens):
        if token.string in "([{" and token.type == tokenize.OP:
            depth += 1
        elif token.string in ")]}" and token.type == tokenize.OP:
            depth -= 1
        elif depth == 0:
            yield index, token


def _synthetic(text: str, like: tokenize.TokenInfo) -> tokenize.TokenInfo:
    """A token the rewriting adds, placed on the line of the token it stands beside."""
    kind = tokenize.NAME if text.isidentifier() else tokenize.OP
    return tokenize.TokenInfo(kind, text, like.start, like.end, like.line)


def _spelled_out(line: list[tokenize.TokenInfo]) -> list[tokenize.TokenInfo]:
    """`target op= value` as `target = target op value`; other statements unchanged."""
    for index, token in _top_level(line):
        if token.type == tokenize.OP and token.string in AUGMENTED:
            target, value = line[:index], line[index + 1:]
            operator = _synthetic(AUGMENTED[token.string], token)
            return [*target, _synthetic("=", token), *target, operator, *value]
    return line


def _lambda_end(line: Sequence[tokenize.TokenInfo], start: int) -> tuple[int, int]:
    """(index of the lambda's colon, index just past its body) for the lambda at `start`: the
    body ends at a comma or closing bracket of the lambda's own depth, or at the line's end."""
    depth, colon = 0, -1
    for index in range(start + 1, len(line)):
        text = line[index].string if line[index].type == tokenize.OP else ""
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            if depth == 0:
                return colon, index
            depth -= 1
        elif depth == 0 and text == ":" and colon < 0:
            colon = index
        elif depth == 0 and text == "," and colon >= 0:
            return colon, index
    return colon, len(line)


def _lambdas_as_defs(line: list[tokenize.TokenInfo]) -> list[list[tokenize.TokenInfo]]:
    """The statement with each lambda hoisted out as the `def` it stands for: `x = lambda a: e`
    reads `def f(a): return e` then `x = f`, as the same code written with `def` reads."""
    hoisted: list[list[tokenize.TokenInfo]] = []
    while True:
        start = next((i for i, t in enumerate(line) if t.type == tokenize.NAME
                      and t.string == "lambda"), None)
        if start is None:
            return [*hoisted, line]
        colon, end = _lambda_end(line, start)
        if colon < 0:  # not a lambda this reader understands: leave the statement as it is
            return [*hoisted, line]
        keyword_token = line[start]
        name = _synthetic("f", keyword_token)
        hoisted.append([_synthetic("def", keyword_token), name, _synthetic("(", keyword_token),
                        *line[start + 1:colon], _synthetic(")", keyword_token), line[colon],
                        _synthetic("return", keyword_token), *line[colon + 1:end]])
        line = [*line[:start], name, *line[end:]]


def _without_grouping(line: list[tokenize.TokenInfo]) -> list[tokenize.TokenInfo]:
    """The statement less its grouping parentheses; call and definition parentheses stay."""
    result: list[tokenize.TokenInfo] = []
    kept: list[bool] = []
    for token in line:
        if token.type == tokenize.OP and token.string == "(":
            before = result[-1] if result else None
            call = before is not None and (
                (before.type == tokenize.NAME and not keyword.iskeyword(before.string))
                or before.string in (")", "]") or before.type == tokenize.STRING)
            kept.append(call)
            if call:
                result.append(token)
        elif token.type == tokenize.OP and token.string == ")" and kept:
            if kept.pop():
                result.append(token)
        else:
            result.append(token)
    return result


def _normal_text(token: tokenize.TokenInfo, member: bool) -> str:
    """What a token counts as: its kind for names and literals, itself for the rest; `member`:
    the name follows a dot or `def`."""
    if token.type == tokenize.NAME:
        if keyword.iskeyword(token.string):
            return token.string
        if token.string.startswith("__") and token.string.endswith("__"):
            return token.string
        kept = CONTRACT_NAMES if member else KEPT_NAMES
        return token.string if token.string in kept else "ID"
    if token.type == tokenize.NUMBER:
        return "NUM"
    if token.type == tokenize.STRING:
        return "STR"
    return token.string


def _is_docstring(line: Sequence[tokenize.TokenInfo]) -> bool:
    return all(token.type == tokenize.STRING for token in line)


def normalized_lines(source: str) -> Iterator[list[Token]]:
    """The source's statements as normalized tokens (docstrings dropped)."""
    for raw in _logical_lines(source):
        if _is_docstring(raw):
            continue
        for statement in _lambdas_as_defs(_spelled_out(raw)):
            rewritten = _without_grouping(statement)
            tokens = []
            for index, token in enumerate(rewritten):
                member = index > 0 and rewritten[index - 1].string in (".", "def")
                tokens.append(Token(_normal_text(token, member), token.start[0]))
            yield tokens


def _function_spans(source: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of each module-level function and each method; empty if
    the source does not parse (the whole file is then one unit)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    spans = []
    for node in tree.body:
        owner, members = ("", [node]) if not isinstance(node, ast.ClassDef) else (
            f"{node.name}.", node.body)
        for member in members:
            if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([member.lineno, *(d.lineno for d in member.decorator_list)])
                spans.append((first, member.end_lineno or member.lineno, owner + member.name))
    return spans


def units(source: str) -> list[Unit]:
    """The source as one unit per function and one for the rest, in the order they begin."""
    spans = _function_spans(source)
    by_name: dict[str, list[Token]] = {}
    for tokens in normalized_lines(source):
        line = tokens[0].line
        name = next((n for first, last, n in spans if first <= line <= last), MODULE_UNIT)
        by_name.setdefault(name, []).extend(tokens)
    return [Unit(name, tuple(tokens)) for name, tokens in by_name.items()]
