"""A notebook as the module it stands for, and the map from that module's lines back to its cells.

Side: trusted process (intake reads the notebook; the plugin maps the child's traceback lines).
The grader runs a notebook as one module: its code cells joined, in order, with a blank line
between two cells. The child reports lines of that module (`value.py, line 65`), which a
notebook user has never seen, so every line number goes back through `locate` to the code cell
(numbered from 1 among the code cells, and named by its first line) and the line inside it.

A line magic or shell line (`%time`, `!pip`) in a cell that is not valid Python as it stands
becomes an empty line, never a dropped one, so the lines after it keep their numbers.
"""

from __future__ import annotations

import ast
import bisect
import json
from dataclasses import dataclass
from typing import Any

from grader.intake.limits import MAX_JSON_DEPTH, PARSE_ERRORS, charge, json_too_deep

FIRST_LINE_CHARS = 60  # how much of a cell's first line names it


class NotebookError(Exception):
    """The notebook cannot be read; the message is nbformat's."""


class NotebookTooDeep(NotebookError):
    """The notebook's JSON nests past MAX_JSON_DEPTH: refused before it is parsed."""

    def __init__(self) -> None:
        super().__init__(f"its JSON nests more than {MAX_JSON_DEPTH} levels deep")
        self.limit = MAX_JSON_DEPTH


@dataclass(frozen=True)
class CellStart:
    """Where one code cell starts in the joined module: its first module line, its number among
    the code cells (from 1), and its first line that is not blank (what names it)."""

    line: int
    cell: int
    first_line: str


@dataclass(frozen=True)
class NotebookModule:
    """The module a notebook stands for, with where each of its code cells starts."""

    code: str
    cells: tuple[CellStart, ...]


# The notebook's check cell (grader/notebook.py): it checks the notebook, it is not part of it.
CHECK_MODULE = "grader.notebook"
METADATA_KEY = "minigrad_labs"  # a lab notebook's metadata: {"lab": ...}, the lab it checks


def is_check_cell(source: str) -> bool:
    """Tell whether a code cell only imports `check` from grader.notebook and calls it.

    Such a cell is left out of the graded module: it defines nothing, and the module it would
    import is the grader's own. Any other statement in the cell keeps the whole cell in.
    """
    try:
        body = ast.parse(source).body
    except PARSE_ERRORS:
        return False

    def allowed(node: ast.stmt) -> bool:
        if isinstance(node, ast.ImportFrom):
            return (node.module == CHECK_MODULE and node.level == 0
                    and [(a.name, a.asname) for a in node.names] == [("check", None)])
        return isinstance(node, ast.Expr) and _calls_check(node.value)

    return bool(body) and any(isinstance(n, ast.ImportFrom) for n in body) and all(
        allowed(node) for node in body)


def _calls_check(node: ast.expr) -> bool:
    """`check(...)` or `display(check(...))`, with constant arguments only."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return False
    arguments = [*node.args, *(k.value for k in node.keywords)]
    if node.func.id == "display" and len(node.args) == 1 and not node.keywords:
        return _calls_check(node.args[0])
    return node.func.id == "check" and all(isinstance(a, ast.Constant) for a in arguments)


def _cell_code(source: str) -> str:
    """A code cell as module code: a cell magic (`%%...`) empties the cell; line magics and
    shell lines (`%...`, `!...`) become empty lines only when the cell is not valid Python as
    it stands, so a `%` at the start of a line inside a string survives; the check cell is
    empty too."""
    if source.lstrip().startswith("%%") or is_check_cell(source):
        return ""
    try:
        ast.parse(source)
        return source
    except PARSE_ERRORS:
        return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                         for line in source.splitlines())


def _first_line(source: str) -> str:
    line = next((text.strip() for text in source.splitlines() if text.strip()), "")
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 3] + "..."


def _plain_v4_sources(text: str) -> list[str] | None:
    """The code cells' sources of a well-formed nbformat 4 notebook, read as the JSON it is;
    None for anything else, which nbformat itself then reads (or names what is wrong with)."""
    try:
        notebook = json.loads(text)
    except PARSE_ERRORS:
        return None
    if not isinstance(notebook, dict):
        return None
    cells = notebook.get("cells")
    if notebook.get("nbformat") != 4 or not isinstance(cells, list):
        return None
    sources = []
    for cell in cells:
        charge()
        source = cell.get("source") if isinstance(cell, dict) else None
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)  # as nbformat joins a multi-line source
        if not isinstance(source, str):
            return None
        if cell.get("cell_type") == "code":
            sources.append(source)
    return sources


def _notebook_text(raw: bytes) -> str:
    """The notebook's JSON text (in the encoding json.loads would find: UTF-8 as nbformat
    writes it, or UTF-16/32), once its nesting is known to stay under MAX_JSON_DEPTH: every
    parser after this one recurses once per level."""
    try:
        text = raw.decode(json.detect_encoding(raw))
    except UnicodeDecodeError as exc:
        raise NotebookError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    if json_too_deep(text):
        raise NotebookTooDeep
    return text


def _code_sources(raw: bytes) -> list[str]:
    """The sources of the notebook's code cells, in order."""
    text = _notebook_text(raw)
    sources = _plain_v4_sources(text)
    if sources is not None:
        return sources
    # Older formats and broken files: nbformat converts them or says what is wrong. Imported
    # here, as it costs a student's whole check (it brings jsonschema and traitlets with it).
    import nbformat

    try:
        notebook = nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat raises many types for a broken notebook
        raise NotebookError(str(exc)) from exc
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def notebook_module(raw: bytes) -> NotebookModule:
    """The code cells of a notebook joined into one module, and where each cell starts."""
    parts: list[str] = []
    starts: list[CellStart] = []
    line = 1
    sources = _code_sources(raw)
    for number, source in enumerate(sources, start=1):
        charge()
        code = _cell_code(source)
        starts.append(CellStart(line, number, _first_line(source)))
        parts.append(code)
        line += code.count("\n") + 2  # the cell's own lines, then the blank line between cells
    return NotebookModule("\n\n".join(parts) + "\n", tuple(starts))


def locate(cells: tuple[CellStart, ...], line: int) -> CellStart | None:
    """The cell that holds module line `line`, None when no cell does (a binary search: a
    notebook may hold many cells, and every traceback frame is located)."""
    index = bisect.bisect_right(cells, line, key=lambda start: start.line)
    return cells[index - 1] if index else None


def cells_as_data(cells: tuple[CellStart, ...]) -> list[list[Any]]:
    """The line map as plain data, for the shard's manifest: [[line, cell, first_line], ...]."""
    return [[start.line, start.cell, start.first_line] for start in cells]


def cells_from_data(data: Any) -> tuple[CellStart, ...]:
    """The line map back from `cells_as_data`; anything else is no map."""
    if not isinstance(data, list):
        return ()
    return tuple(CellStart(int(line), int(cell), str(first)) for line, cell, first in data)


def cell_frame(frame: dict[str, Any], cells: tuple[CellStart, ...],
               notebook: str) -> dict[str, Any]:
    """A traceback frame {file, line, function} in the module, said in the notebook's terms:
    the notebook's name, the code cell, its first line and the line inside it."""
    start = locate(cells, int(frame.get("line") or 0))
    if start is None:
        return frame
    return {**frame, "file": notebook, "cell": start.cell, "first_line": start.first_line,
            "cell_line": int(frame["line"]) - start.line + 1}
