"""Build the Jupyter notebook version of a lab from its generated stub (nbformat v4).

A notebook submission is graded as the lab's main file: ``grader.intake.collect.notebook_code``
joins the code cells, in order, into one module (dropping IPython magics and shell lines from
cells that are not valid Python as they stand). So the notebook is the stub cut at top-level statements and nothing else:

1. a markdown cell: the titles of ``README.md`` and ``README.es.md`` and a short intro in
   English, then Spanish (what is graded, how to check the notebook);
2. the code before the first top-level ``def`` or ``class`` (docstring, imports);
3. for each top-level ``def`` or ``class``: a markdown cell listing its ``TODO(<lab>)``
   texts, in English and Spanish, if it holds any, then the definition itself, with the
   comment lines written directly above it; statements between two definitions stay in the
   cell of the definition before them;
4. a smoke cell guarded by ``if __name__ == "__main__":``, which is false when the grader
   imports the module, so the graded module behaves exactly like the stub;
5. the check cell (``from grader.notebook import check``, ``check()``), which the grader
   leaves out of the module (``grader.intake.collect.is_check_cell``), under a heading in both languages.

:func:`lab_notebook` checks that the joined code cells parse to the same module as the stub
(plus the guarded smoke cell), so a notebook submission grades the same as the ``.py`` one.

Only the lab's main file (``Lab.main_file``, ``lab.files[0]``) becomes a notebook, because a
notebook submission stands for that one file. Every lab today lists one student file (lab04's
``value.py`` is a support file, which the grader copies itself); a lab with several student
files would have to be handed in as a folder or zip.

Cell ids are ``cell-0``, ``cell-1``, ...; there are no outputs and no execution counts, so
the same stub always gives the same notebook, byte for byte.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from itertools import pairwise

import nbformat
from nbformat import NotebookNode

from grader.authoring.stubgen import CONTINUATION, TODO_EN, TODO_ES
from grader.common.labs import LABS
from grader.intake.collect import notebook_code
from grader.intake.notebook_module import METADATA_KEY

NOTEBOOK_NAME = "{lab}.ipynb"
NOTEBOOK_METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}

# Texts are constants, like every user-facing message of the grader; placeholders: lab, title,
# notebook (the notebook's file name), support/support_es (the lab's support files to upload
# beside the notebook on Colab, SUPPORT_EN/SUPPORT_ES, or nothing).
INTRO_EN = """\
# {title}

This notebook is the code of `{lab}`, one cell per function or class. Read `README.md`
for what to implement, and fill in every `TODO({lab})`.

- Only the code cells are graded: the grader joins them, in order, into one module. Lines
  that start with `%` or `!` (IPython magics and shell commands) are left out.
- Every code cell is part of that module, so keep your experiments under
  `if __name__ == "__main__":`, as in the last cell.
- To check this notebook, save it and run the check cell at the end: the feedback of the
  public checks shows under it (`check("TODO 3")` shows one TODO's checks, `check(lang="es")`
  answers in Spanish). It checks the notebook as saved, which is what the grader reads.
  - Local Jupyter (JupyterLab, Notebook, VS Code): use the kit's environment as the kernel.
    In a terminal at the root of the kit: `make venv`, then
    `.venv/bin/python -m pip install jupyterlab` and `.venv/bin/jupyter lab`
    (in VS Code, pick the kit's `.venv` as the notebook's kernel instead). With a Jupyter of
    your own, register the kit's environment as a kernel once: the kit's README.md, "Jupyter".
  - Colab (no kit folder, no `make`): upload this notebook{support}, then run once per
    runtime, in a cell of its own: `%pip install -q <kit>.zip` (the kit's zip, uploaded) or
    `%pip install -q <address>` (the wheel your course hosts). A cell of `%` and `!` lines
    only is not graded. Where Colab gives no full sandbox, the check says so once.
  - Or, in a terminal at the root of the kit: `make check LAB={lab} NOTEBOOK=1`.
    Without `NOTEBOOK=1`, `make check LAB={lab}` checks the `.py` files of `labs/{lab}/`,
    not this notebook."""

INTRO_ES = """\
# {title}

Este cuaderno es el código de `{lab}`, una celda por función o clase. Lee `README.es.md`
para saber qué implementar y completa cada `TODO({lab})`.

- Solo se corrigen las celdas de código: el corrector las une, en orden, en un único
  módulo. Las líneas que empiezan por `%` o `!` (comandos mágicos de IPython y de la
  terminal) se omiten.
- Cada celda de código forma parte de ese módulo: deja tus experimentos bajo
  `if __name__ == "__main__":`, como en la última celda.
- Para comprobar este cuaderno, guárdalo y ejecuta la celda de comprobación del final: los
  resultados de las comprobaciones públicas salen debajo (`check("TODO 3")` muestra las de un
  TODO, `check(lang="en")` responde en inglés). Comprueba el cuaderno tal como está guardado,
  que es lo que lee el corrector.
  - Jupyter local (JupyterLab, Notebook, VS Code): usa el entorno del kit como kernel.
    En una terminal en la raíz del kit: `make venv`, y luego
    `.venv/bin/python -m pip install jupyterlab` y `.venv/bin/jupyter lab`
    (en VS Code, elige el `.venv` del kit como kernel del cuaderno). Con un Jupyter propio,
    registra una vez el entorno del kit como kernel: README.md del kit, "Jupyter".
  - Colab (sin carpeta del kit ni `make`): sube este cuaderno{support_es} y ejecuta una vez
    por entorno, en una celda aparte: `%pip install -q <kit>.zip` (el zip del kit, subido) o
    `%pip install -q <dirección>` (la rueda que publica tu curso). Una celda con solo líneas
    `%` y `!` no se corrige. Donde Colab no da el sandbox completo, la comprobación lo dice
    una vez.
  - O bien, en una terminal en la raíz del kit: `make check LAB={lab} NOTEBOOK=1`.
    Sin `NOTEBOOK=1`, `make check LAB={lab}` comprueba los archivos `.py` de `labs/{lab}/`,
    no este cuaderno."""

SUPPORT_EN = " and {files} (its cells import it)"
SUPPORT_ES = " y {files} (sus celdas lo importan)"

TODO_HEADING = "### TODO({lab})"
TODO_ITEM = "- {where}\n  - en: {en}\n  - es: {es}"

# Placeholder: names (a tuple literal of the top-level definitions).
SMOKE_CELL = """\
# Smoke test: run every cell above, then this one. Try your own code under the `if`: the
# grader imports the code cells as a module, where __name__ is not "__main__", so nothing
# under it runs when you are graded.
# Prueba rápida: ejecuta todas las celdas de arriba y luego esta. Prueba tu propio código
# bajo el `if`: el corrector importa las celdas de código como un módulo, donde __name__
# no es "__main__", así que nada de lo que hay debajo se ejecuta al corregir.
if __name__ == "__main__":
    missing = [name for name in {names} if name not in globals()]
    print(f"not defined yet / aún sin definir: {{missing}}" if missing else "ok")"""

CHECK_HEADING = """\
### Check / Comprobar

Save the notebook, then run the cell below: the public checks' feedback shows under it.
`check("TODO 3")` shows only that TODO's checks; `check(lang="es")` answers in Spanish.
The grader leaves this cell out of your code.

Guarda el cuaderno y ejecuta la celda de abajo: los resultados de las comprobaciones públicas
salen debajo. `check("TODO 3")` muestra solo las de ese TODO; `check(lang="en")` responde en
inglés. El corrector deja esta celda fuera de tu código."""
CHECK_CELL = "from grader.notebook import check\ncheck()"

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Markdown punctuation a TODO text could trigger by accident (emphasis, links, HTML).
_MARKDOWN_SPECIAL = re.compile(r"([\\*_\[\]<>])")
_CODE_SPAN = re.compile(r"(`[^`]*`)")


class NotebookError(ValueError):
    """A stub that cannot become a notebook grading the same as the ``.py`` file."""


@dataclass(frozen=True)
class _Todo:
    """One TODO of the stub: 1-based line of its English line and its two texts."""

    lineno: int
    en: str
    es: str


def notebook_name(lab_name: str) -> str:
    """Return the file name of a lab's notebook, in labs/<lab>/."""
    return NOTEBOOK_NAME.format(lab=lab_name)


def notebook_text(notebook: NotebookNode) -> str:
    """Return a notebook as the text written to disk (nbformat's JSON and a final newline)."""
    return str(nbformat.writes(notebook)) + "\n"


def readme_title(readme: str, fallback: str) -> str:
    """Return the text of a README's first level-1 heading, or the fallback."""
    for line in readme.splitlines():
        if line.startswith("# ") and line[2:].strip():
            return line[2:].strip()
    return fallback


def _escape_markdown(text: str) -> str:
    """Escape Markdown punctuation outside `code spans`, so a TODO text renders as written."""
    parts = _CODE_SPAN.split(text)
    return "".join(
        part if index % 2 else _MARKDOWN_SPECIAL.sub(r"\\\1", part)
        for index, part in enumerate(parts)
    )


def _cell_starts(tree: ast.Module, lines: list[str]) -> list[int]:
    """Return the 0-based first line of every top-level definition's cell.

    A cell starts at the definition's first decorator, or at the comment lines directly above
    it (no blank line between), but never inside the statement before it.
    """
    starts = []
    previous_end = 0  # 1-based last line of the statement before, 0 at the top of the file
    for statement in tree.body:
        if isinstance(statement, _DEFINITIONS):
            first = min([statement.lineno, *(d.lineno for d in statement.decorator_list)]) - 1
            while first > previous_end and lines[first - 1].lstrip().startswith("#"):
                first -= 1
            starts.append(first)
        previous_end = statement.end_lineno or statement.lineno
    return starts


def _trimmed(lines: list[str]) -> str:
    """Join lines into a cell source without leading or trailing blank lines."""
    kept = [index for index, line in enumerate(lines) if line.strip()]
    return "\n".join(lines[kept[0] : kept[-1] + 1]) if kept else ""


def _qualified_names(tree: ast.Module) -> list[tuple[int, int, str]]:
    """Return (first line, last line, dotted name) of every def and class, outer ones first."""
    found: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFINITIONS):
                name = f"{prefix}{child.name}"
                found.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _read_text(lines: list[str], index: int, prefix: str) -> tuple[str, int]:
    """Read a TODO line (0-based index) and its continuations; return the text and next index."""
    indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
    parts = [lines[index].strip()[len(prefix) :].strip()]
    index += 1
    while index < len(lines) and lines[index].startswith(indent + CONTINUATION):
        parts.append(lines[index].strip()[1:].strip())
        index += 1
    return " ".join(parts), index


def _todos(lines: list[str], lab: str) -> list[_Todo]:
    """Return the stub's TODOs, each an English TODO line followed by its Spanish one."""
    en_prefix, es_prefix = TODO_EN.format(lab=lab).strip(), TODO_ES.format(lab=lab).strip()
    todos = []
    index = 0
    while index < len(lines):
        if not lines[index].strip().startswith(en_prefix):
            index += 1
            continue
        lineno = index + 1
        en, index = _read_text(lines, index, en_prefix)
        if index >= len(lines) or not lines[index].strip().startswith(es_prefix):
            raise NotebookError(
                f"{lab}: stub line {lineno}: a TODO({lab}) line without its Spanish line"
            )
        es, index = _read_text(lines, index, es_prefix)
        todos.append(_Todo(lineno, en, es))
    return todos


def _todo_markdown(lab: str, todos: list[_Todo], names: list[tuple[int, int, str]]) -> str:
    """Return the markdown cell that lists the TODOs of one code cell."""
    items = [TODO_HEADING.format(lab=lab), ""]
    for todo in todos:
        # nested ranges: the innermost definition holding the line starts last
        holders = [(start, name) for start, end, name in names if start <= todo.lineno <= end]
        where = f"`{max(holders)[1]}`" if holders else "module"
        en, es = _escape_markdown(todo.en), _escape_markdown(todo.es)
        items.append(TODO_ITEM.format(where=where, en=en, es=es))
    return "\n".join(items)


def _intro(lab: str, readme_en: str, readme_es: str) -> str:
    """Return the first markdown cell: the English intro, then the Spanish one."""
    notebook = notebook_name(lab)
    files = ", ".join(f"`{name}`" for name in LABS[lab].support_files) if lab in LABS else ""
    support = {"support": SUPPORT_EN.format(files=files) if files else "",
               "support_es": SUPPORT_ES.format(files=files) if files else ""}
    english = INTRO_EN.format(lab=lab, title=readme_title(readme_en, lab), notebook=notebook, **support)
    spanish = INTRO_ES.format(lab=lab, title=readme_title(readme_es, lab), notebook=notebook, **support)
    return f"{english}\n\n---\n\n{spanish}"


def _check_same_module(lab: str, notebook: NotebookNode, stub: ast.Module, smoke: str) -> None:
    """Raise NotebookError unless the graded module of the notebook is the stub plus smoke."""
    graded = notebook_code(notebook_text(notebook).encode("utf-8"))
    expected = ast.Module(body=[*stub.body, *ast.parse(smoke).body], type_ignores=[])
    try:
        same = ast.dump(ast.parse(graded)) == ast.dump(expected)
    except SyntaxError:
        same = False
    if not same:
        raise NotebookError(
            f"{lab}: the notebook's code cells, joined as the grader joins them, are not the stub; "
            "a cell the grader would strip of '%' or '!' lines"
        )


def lab_notebook(lab_name: str, stub_source: str, readme_en: str, readme_es: str) -> NotebookNode:
    """Return the v4 notebook of a lab whose student file is the module ``stub_source``."""
    tree = ast.parse(stub_source)
    lines = stub_source.splitlines()
    names = _qualified_names(tree)
    todos = _todos(lines, lab_name)
    bounds = [0, *_cell_starts(tree, lines), len(lines)]

    sources: list[tuple[str, str]] = [("markdown", _intro(lab_name, readme_en, readme_es))]
    for first, last in pairwise(bounds):
        code = _trimmed(lines[first:last])
        if not code:
            continue
        inside = [todo for todo in todos if first < todo.lineno <= last]
        if inside:
            sources.append(("markdown", _todo_markdown(lab_name, inside, names)))
        sources.append(("code", code))
    top_level = tuple(s.name for s in tree.body if isinstance(s, _DEFINITIONS))
    smoke = SMOKE_CELL.format(names=repr(top_level))
    sources.append(("code", smoke))
    sources += [("markdown", CHECK_HEADING), ("code", CHECK_CELL)]

    new_cell = {"markdown": nbformat.v4.new_markdown_cell, "code": nbformat.v4.new_code_cell}
    cells = [new_cell[kind](source, id=f"cell-{n}") for n, (kind, source) in enumerate(sources)]
    metadata = {**NOTEBOOK_METADATA, METADATA_KEY: {"lab": lab_name}}
    notebook = nbformat.v4.new_notebook(cells=cells, metadata=nbformat.from_dict(metadata))
    nbformat.validate(notebook)
    _check_same_module(lab_name, notebook, tree, smoke)
    return notebook
