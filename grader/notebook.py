"""Checking a lab's notebook from one of its own cells: `check()` shows the feedback under it.

Side: trusted. This module runs in the student's Jupyter kernel, beside their code, but it never
imports or calls that code: it reads the notebook *as saved* and hands it to the same function
as `make check NOTEBOOK=1` (`grader.grading.batch.check_submission`: the public suite, the sandbox), so
the cell and the terminal say the same thing, and both say what the grader will read.

Why the saved file and not the live cells: the grader grades the file handed in, and the
student must never be graded on something other than what they see. A cell edited and run but
not saved is live in the kernel and absent from the file; so the check reads the file, and says
"save the notebook first" when the kernel's last run of a definition is not in it (the kernel's
`In` history, one entry per run, is compared with the saved cells). On Colab there is no file:
the notebook comes from the editor itself (what File > Download would give).
"""

from __future__ import annotations

import ast
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.common.keyed_error import KeyedError
from grader.common.labs import LABS, Lab
from grader.grading.batch import check_submission
from grader.intake.notebook_module import METADATA_KEY
from grader.results.i18n import LANGUAGES, Catalogue, default_language
from grader.results.render import render_feedback, render_notebook_feedback
from grader.results.score_document import Document, as_document, to_json

# The isolations already said in this kernel (level/how): each is said once.
_SAID_ONCE: set[str] = set()
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class NotebookNotFound(KeyedError, LookupError):
    """No saved notebook to check: a catalogue key under ui.notebook and its parameters."""

    def with_message(self, message: str) -> NotebookNotFound:
        """The same error, shown as the catalogue's sentence."""
        self.args = (message,)
        return self


@dataclass(frozen=True)
class Feedback:
    """The feedback of one check from a notebook; Jupyter shows it as HTML under the cell."""

    doc: dict[str, Any]
    lang: str
    notices: tuple[str, ...] = ()
    todo: int | None = None
    shown: tuple[str, ...] = field(default=())  # the check ids of `todo`; all when empty

    def _repr_html_(self) -> str:
        return render_notebook_feedback(self.filtered(), self.notices, self.lang)

    def __repr__(self) -> str:
        text = render_feedback(self.filtered(), "terminal", lang=self.lang)
        return "\n".join((*self.notices, text))

    def filtered(self) -> dict[str, Any]:
        """The score document, with only the checks of `todo` when one was asked for."""
        if self.todo is None:
            return self.doc
        return {**self.doc, "checks": [to_json(c) for c in as_document(self.doc).checks
                                       if c.id in self.shown]}


def _shell() -> Any:
    """The running IPython shell, or None outside a kernel."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None  # type: ignore[attr-defined]


def find_notebook(user_ns: dict[str, Any], environ: dict[str, str] | os._Environ[str],
                  cwd: Path, lab: str | None) -> Path:
    """The saved notebook the kernel runs: VS Code's, Jupyter's session, or <lab>.ipynb here."""
    vscode = user_ns.get("__vsc_ipynb_file__")
    if vscode:
        return Path(vscode)
    session = environ.get("JPY_SESSION_NAME", "")
    if session.endswith(".ipynb"):  # jupyter_server: the notebook's path (absolute, or from root)
        for candidate in (Path(session), cwd / session, cwd / Path(session).name):
            if candidate.is_file():
                return candidate
    names = [lab] if lab else [name for name in LABS if (cwd / f"{name}.ipynb").is_file()]
    for name in names:
        if (cwd / f"{name}.ipynb").is_file():
            return cwd / f"{name}.ipynb"
    raise NotebookNotFound("not_found", folder=str(cwd))


def colab_notebook() -> dict[str, Any] | None:
    """The notebook open in Colab's editor, as a dict, or None outside Colab."""
    if "google.colab" not in sys.modules:
        return None
    from google.colab import _message  # type: ignore[import-not-found]  # not in the student kit: Colab's own

    reply = _message.blocking_request("get_ipynb", request="", timeout_sec=30)
    return reply["ipynb"] if reply else None  # type: ignore[no-any-return]


def notebook_lab(notebook: dict[str, Any], path: Path | None, lab: str | None) -> Lab:
    """The notebook's lab: the one asked for, else its metadata's, else its file name's."""
    named = lab or notebook.get("metadata", {}).get(METADATA_KEY, {}).get("lab")
    if not named and path is not None:
        named = path.stem if path.stem in LABS else path.parent.name
    if named not in LABS:
        raise NotebookNotFound("unknown_lab", lab=str(named), known=", ".join(LABS))
    return LABS[str(named)]


def _normal(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def unsaved_definitions(saved_cells: Sequence[str], history: Iterable[str],
                        transform: Callable[[str], str] = str) -> list[str]:
    """The saved notebook's top-level names whose last run in the kernel is not a saved cell.

    `history` is the kernel's `In`, oldest first, as run (IPython's transformed source:
    `transform` applies the same to a saved cell, so cells with magics compare equal).
    """
    saved = {_normal(cell) for cell in saved_cells} | {_normal(transform(cell))
                                                       for cell in saved_cells}
    defined = {node.name for cell in saved_cells for node in _top_level(_without_magics(cell))}
    last_run: dict[str, str] = {}
    for source in history:
        for node in _top_level(source):
            last_run[node.name] = source
    return sorted(name for name, source in last_run.items()
                  if name in defined and _normal(source) not in saved)


def _without_magics(source: str) -> str:
    return "\n".join(line for line in source.splitlines()
                     if not line.lstrip().startswith(("%", "!")))


def _top_level(source: str) -> list[Any]:
    try:
        return [node for node in ast.parse(source).body if isinstance(node, _DEFINITIONS)]
    except SyntaxError:
        return []


def todo_checks(lab: Lab, todo: int) -> tuple[str, ...]:
    """The ids of the public checks of one TODO, as the public suite's markers declare them."""
    from grader.grading.checking.todos import public_checks_by_todo

    return public_checks_by_todo(lab).get(todo, ())


def _todo_number(todo: str | int | None) -> int | None:
    if todo is None or isinstance(todo, int):
        return todo
    digits = str(todo).upper().removeprefix("TODO").strip()
    if not digits.isdigit():
        raise ValueError(f"todo must be like 'TODO 3' or 3, not {todo!r}")
    return int(digits)


def _isolation_notice(doc: Document, catalogue: Catalogue) -> list[str]:
    """The runtime's isolation, the first time a check in this kernel runs below the jail
    (Colab, a container): said once per kernel and isolation, not under every check."""
    isolation = as_document(doc).isolation
    if not isolation or isolation.level == "jail":
        return []
    key = f"{isolation.level}/{isolation.how}"
    if key in _SAID_ONCE:
        return []
    _SAID_ONCE.add(key)
    names = {name: catalogue.text(f"ui.isolation_{name}.{value}")
             for name, value in (("level", isolation.level), ("how", isolation.how))}
    return [catalogue.text("ui.notebook.isolation", **names)]


def check(todo: str | int | None = None, lang: str | None = None, lab: str | None = None,
          path: str | Path | None = None) -> Feedback:
    """Check this notebook (as saved) with the lab's public checks; the result shows inline.

    `check("TODO 3")` shows only the checks of that TODO; `lang` is "en" or "es" (default:
    GRADER_LANG, else the locale, as `make check`).
    """
    lang = lang or default_language()
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of: {', '.join(LANGUAGES)}")
    catalogue = Catalogue.load(lang)
    number = _todo_number(todo)
    try:
        return _check(number, lang, catalogue, lab, path)
    except NotebookNotFound as missing:  # one sentence for the student, not a traceback
        raise NotebookNotFound(missing.key, **missing.params).with_message(
            catalogue.text(f"ui.notebook.{missing.key}", **missing.params)) from None


def _check(number: int | None, lang: str, catalogue: Catalogue, lab: str | None,
           path: str | Path | None) -> Feedback:
    shell = _shell()
    user_ns: dict[str, Any] = shell.user_ns if shell is not None else {}
    with tempfile.TemporaryDirectory(prefix="minigrad-notebook-") as scratch:
        live = None if path else colab_notebook()
        if live is not None:
            the_lab = notebook_lab(live, None, lab)
            saved = Path(scratch) / f"{the_lab.name}.ipynb"
            saved.write_text(json.dumps(live), encoding="utf-8")
        else:
            saved = Path(path) if path else find_notebook(user_ns, os.environ, Path.cwd(), lab)
            notebook = json.loads(saved.read_text(encoding="utf-8"))
            the_lab = notebook_lab(notebook, saved, lab)
        doc = check_submission(the_lab, saved, lang)
        cells = [_source(cell) for cell in json.loads(saved.read_text(encoding="utf-8"))["cells"]
                 if cell.get("cell_type") == "code"]
    notices = [catalogue.text("ui.notebook.checked", path=str(saved) if live is None
                              else catalogue.text("ui.notebook.colab_editor"))]
    history = list(user_ns.get("In", []))[:-1]  # the last entry is this very cell
    transform = getattr(shell, "transform_cell", str)
    unsaved = unsaved_definitions(cells, history, transform) if live is None else []
    if unsaved:
        notices.append(catalogue.text("ui.notebook.save_first", names=", ".join(unsaved)))
    notices.extend(_isolation_notice(doc, catalogue))
    shown = todo_checks(the_lab, number) if number is not None else ()
    if number is not None:
        notices.append(catalogue.text("ui.notebook.todo_only", todo=str(number),
                                      count=str(len(shown))))
    return Feedback(doc, lang, tuple(notices), number, shown)


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)
