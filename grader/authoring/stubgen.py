"""Generate the student stubs in labs/ from the marked reference solutions in solutions/.

The solution file is the single source of truth (as in nbgrader): every piece of code the
student writes sits in a *solution region*, and the stub is the solution with each region
replaced by a bilingual TODO and a ``raise NotImplementedError``.
`grader.authoring.build` writes the stubs, and turns the stub of each registered lab's main
file into the notebook ``labs/<lab>/<lab>.ipynb`` (:mod:`grader.authoring.notebooks`).

Marker format
-------------
Markers are recognised line by line (inside strings too)::

    # BEGIN SOLUTION
    # en: English TODO text.
    #    An optional continuation line: '#' and four spaces, right after the text it continues.
    # es: Texto del TODO en español.
    <solution code, at least one line that is not blank and not a comment>
    # END SOLUTION

- The marker lines are the lines whose text, stripped of surrounding whitespace, is exactly
  ``# BEGIN SOLUTION`` or ``# END SOLUTION``. ``# END SOLUTION`` must be indented exactly like
  its ``# BEGIN SOLUTION``; regions do not nest.
- The first line inside a region is ``# en: <text>``, then any continuation lines, then
  ``# es: <text>`` and any continuation lines, all indented like the region; no text is empty.
  A continuation line is the region's indentation, ``#`` and four spaces, then text.
- A line anywhere else that merely looks like a marker (``#BEGIN SOLUTION``,
  ``# end solution``, ``# END SOLUTIONS``, a marker after code) is an error, not a comment.

In the stub, the whole region (marker lines included) becomes, at the region's indentation::

    # TODO(<lab>): <en text>
    # TODO(<lab>) es: <es text>
    raise NotImplementedError('<lab>, TODO <n>: <en text> / <es text>')

``<n>`` numbers the regions of the file from 1, in order: the README's table "What you
implement" lists them with the same numbers, and the grader reads the number back from the
message of a ``NotImplementedError`` (and from the raise lines a submission still holds) to
tell the student which TODO is not written yet (:mod:`grader.grading.checking.todos`).

Continuation lines stay under their TODO line, and are joined with single spaces in the
``NotImplementedError`` message (a Python literal written with ``repr()``). Everything outside
the regions is copied byte for byte. Two header comments (English, Spanish) naming the solution
file go first, after a shebang or encoding line if there is one; comments are not statements,
so a module docstring stays the module docstring.

Every malformed marker, and a stub that does not compile, raises :class:`MarkerError` with a
one-line message ``<file>:<line>: <problem>`` (1-based line numbers of the solution file).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.common.todo_format import (
    GIVEN_HEADER_EN,
    GIVEN_HEADER_ES,
    HEADER_EN,
    HEADER_ES,
    TODO_EN,
    TODO_ES,
    TODO_MESSAGE,
)

BEGIN_MARKER = "# BEGIN SOLUTION"
END_MARKER = "# END SOLUTION"
CONTINUATION = "#    "

# Anything a hurried author might type for a marker; only the exact forms above are markers.
_MARKER_LIKE = re.compile(r"#\s*(BEGIN|END)[\s_-]*SOLUTIONS?\b", re.IGNORECASE)
# PEP 263 encoding declaration; it must stay on line 1 or 2, so the header goes after it.
_CODING_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


class MarkerError(ValueError):
    """A solution file whose solution regions cannot be turned into a valid stub."""

    def __init__(self, filename: str, lineno: int, problem: str) -> None:
        super().__init__(f"{filename}:{lineno}: {problem}")
        self.filename = filename
        self.lineno = lineno
        self.problem = problem

    def __reduce__(self) -> tuple[type[MarkerError], tuple[str, int, str]]:
        """Rebuild from the three fields, so the error survives pickling (process pools)."""
        return (type(self), (self.filename, self.lineno, self.problem))


@dataclass(frozen=True)
class _Region:
    """One parsed solution region; ``begin`` and ``end`` are 0-based marker line indexes."""

    begin: int
    end: int
    indent: str
    en: tuple[str, ...]
    es: tuple[str, ...]
    code: int  # 0-based first line after the TODO texts: the solution code starts here


def _indent_of(line: str) -> str:
    """Return the leading whitespace of a line."""
    return line[: len(line) - len(line.lstrip())]


def _ending_of(line: str) -> str:
    """Return the line terminator of a line ('' for a last line without one)."""
    return line[len(line.rstrip("\r\n")) :]


def _marker_kind(line: str, filename: str, index: int) -> str | None:
    """Return 'begin', 'end' or None for a line; raise on a line that only looks like a marker."""
    text = line.strip()
    if text == BEGIN_MARKER:
        return "begin"
    if text == END_MARKER:
        return "end"
    if _MARKER_LIKE.search(line):
        raise MarkerError(
            filename,
            index + 1,
            f"malformed marker {text!r}; write exactly {BEGIN_MARKER!r} or {END_MARKER!r} "
            "on a line of its own",
        )
    return None


def _read_todo_text(
    lines: list[str], start: int, stop: int, lang: str, indent: str, filename: str
) -> tuple[tuple[str, ...], int]:
    """Read a '# <lang>: text' line and its continuations; return the text parts and next index."""
    prefix = f"# {lang}:"
    expected = f"expected '{prefix} <TODO text>' indented like its {BEGIN_MARKER!r}"
    if start >= stop:
        raise MarkerError(filename, start + 1, expected)
    line = lines[start]
    if _indent_of(line) != indent or not line.strip().startswith(prefix):
        raise MarkerError(filename, start + 1, expected)
    parts = [line.strip()[len(prefix) :].strip()]
    if not parts[0]:
        raise MarkerError(filename, start + 1, f"the '{prefix}' TODO text is empty")
    index = start + 1
    while index < stop and lines[index].rstrip().startswith(indent + CONTINUATION):
        parts.append(lines[index].strip()[1:].strip())
        index += 1
    return tuple(parts), index


def _parse_region(lines: list[str], begin: int, end: int, filename: str) -> _Region:
    """Validate the inside of one region and return it parsed."""
    indent = _indent_of(lines[begin])
    en, index = _read_todo_text(lines, begin + 1, end, "en", indent, filename)
    es, index = _read_todo_text(lines, index, end, "es", indent, filename)
    code = [line for line in lines[index:end] if line.strip() and not line.strip().startswith("#")]
    if not code:
        raise MarkerError(
            filename, begin + 1, "empty solution region: it holds no code for the student to write"
        )
    return _Region(begin=begin, end=end, indent=indent, en=en, es=es, code=index)


def _find_regions(lines: list[str], filename: str) -> list[_Region]:
    """Pair up the markers of a file and return its regions in order."""
    regions: list[_Region] = []
    open_begin: int | None = None
    for index, line in enumerate(lines):
        kind = _marker_kind(line, filename, index)
        if kind == "begin":
            if open_begin is not None:
                raise MarkerError(
                    filename,
                    index + 1,
                    f"nested {BEGIN_MARKER!r}: the region opened on line {open_begin + 1} "
                    "is not closed",
                )
            open_begin = index
        elif kind == "end":
            if open_begin is None:
                raise MarkerError(filename, index + 1, f"{END_MARKER!r} without {BEGIN_MARKER!r}")
            if _indent_of(line) != _indent_of(lines[open_begin]):
                raise MarkerError(
                    filename,
                    index + 1,
                    f"{END_MARKER!r} is not indented like its {BEGIN_MARKER!r} "
                    f"on line {open_begin + 1}",
                )
            regions.append(_parse_region(lines, open_begin, index, filename))
            open_begin = None
    if open_begin is not None:
        raise MarkerError(filename, open_begin + 1, f"{BEGIN_MARKER!r} without {END_MARKER!r}")
    return regions


def _render_todo(region: _Region, lab: str, number: int, newline: str,
                 last_newline: str) -> list[str]:
    """Return the stub lines that replace one region, the file's TODO number `number`."""
    first_en, *more_en = region.en
    first_es, *more_es = region.es
    # The message reaches students through feedback in either language: it carries both.
    prefix = TODO_MESSAGE.format(lab=lab, number=number)
    message = f"{prefix}{' '.join(region.en)} / {' '.join(region.es)}"
    rendered = [TODO_EN.format(lab=lab) + first_en]
    rendered += [CONTINUATION + part for part in more_en]
    rendered.append(TODO_ES.format(lab=lab) + first_es)
    rendered += [CONTINUATION + part for part in more_es]
    rendered.append(f"raise NotImplementedError({message!r})")
    endings = [newline] * (len(rendered) - 1) + [last_newline]
    return [region.indent + text + ending for text, ending in zip(rendered, endings, strict=True)]


def _header_position(lines: list[str]) -> int:
    """Return the index after a leading shebang and encoding declaration, if any."""
    position = 0
    while position < min(2, len(lines)):
        line = lines[position]
        if not ((position == 0 and line.startswith("#!")) or _CODING_COOKIE.match(line)):
            break
        position += 1
    return position


def _compile_or_raise(code: str, filename: str, origins: list[int], what: str) -> None:
    """Compile code; on failure raise MarkerError at the solution line the bad line came from."""
    try:
        compile(code, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        stub_line = getattr(error, "lineno", None) or 1
        lineno = origins[min(stub_line, len(origins)) - 1] if origins else 1
        detail = getattr(error, "msg", None) or str(error)
        raise MarkerError(filename, lineno, f"{what} is not valid Python: {detail}") from error


def generate_stub(source: str, lab: str, filename: str = "<solution>", written: int = 0) -> str:
    """Return the student stub for one solution file, with every solution region replaced.

    `written` keeps the code of the first `written` regions instead (a student part-way through
    the TODOs, in order: the tests of the student's loop grade these).
    """
    lines = source.splitlines(keepends=True)
    regions = _find_regions(lines, filename)
    _compile_or_raise(source, filename, list(range(1, len(lines) + 1)), "the solution")

    output: list[str] = []
    origins: list[int] = []  # for each stub line, the 1-based solution line it came from
    position = _header_position(lines)
    newline = _ending_of(lines[0]) if lines and _ending_of(lines[0]) else "\n"
    output += lines[:position]
    origins += list(range(1, position + 1))
    headers = (HEADER_EN, HEADER_ES) if regions else (GIVEN_HEADER_EN, GIVEN_HEADER_ES)
    for header in headers:
        output.append(header.format(lab=lab) + newline)
        origins.append(position + 1)

    copied_up_to = position
    for number, region in enumerate(regions, start=1):
        output += lines[copied_up_to : region.begin]
        origins += list(range(copied_up_to + 1, region.begin + 1))
        if number <= written:
            todo = lines[region.code : region.end]
        else:
            todo = _render_todo(
                region, lab, number, _ending_of(lines[region.begin]), _ending_of(lines[region.end])
            )
        output += todo
        origins += [region.begin + 1] * len(todo)
        copied_up_to = region.end + 1
    output += lines[copied_up_to:]
    origins += list(range(copied_up_to + 1, len(lines) + 1))

    stub = "".join(output)
    _compile_or_raise(stub, filename, origins, "the generated stub")
    return stub
