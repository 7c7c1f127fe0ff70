"""Student-facing sentences: turn check ids, structured details and flags into catalogue text."""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, cast

from grader.common.labs import LABS
from grader.results.i18n import Catalogue, format_number, join_items
from grader.results.score_document import (
    Check,
    Document,
    Language,
    Problem,
    ScoreDocument,
    as_document,
    as_record,
    to_json,
)

# Parameters whose values are not printed as they come (see describe_detail).
INPUTS_PARAM = "inputs"
SOURCE_PARAM = "source"
CHECKS_PARAM = "checks"
# A list of {quantity, actual, expected}: the numbers of a graph that differ.
DIFFERENCES_PARAM = "differences"
# Any parameter whose value is a nested detail {kind, params} (what a random-graph check found,
# a quantity said in words, a crash's cause, a grader error's reference) is rendered as one.
# Where an exception happened: a list of frames {file, line, function} (see format_frames).
WHERE_PARAM = "where"
# The input that holds the program a check ran, shown as code; the inputs that say which
# calls the check made (after building the graph), shown as "after `...`".
GRAPH_INPUT = "graph"
CALL_INPUTS = frozenset({"call", "calls", "called"})
# A quantity given as text is code (`a.grad`, `len(model.parameters())`), shown as such.
QUANTITY_PARAM = "quantity"
# Parameters that carry data values from the student's code: strings are shown quoted,
# so that a label '+' or an empty string '' is unmistakable.
VALUE_PARAMS = frozenset({"expected", "actual"})
# Details of code that is not written yet (see grader.grading.checking.todos): they blame no pitfall,
# and their hint says which TODO to write instead of the check's own hint.
NOT_WRITTEN_KINDS = frozenset({"not-written", "not-implemented"})
# Failures that fall into no pitfall: code not written yet, and a module that cannot be imported.
# over-budget: the submission's time ran out before the check could judge the code
NOT_A_PITFALL_KINDS = NOT_WRITTEN_KINDS | {"import-error", "over-budget"}
# What Python says when the lab's module loaded but lacks the class (an empty file, say).
MISSING_NAME = re.compile(r"^module '[^']*' has no attribute '(?P<name>[^']+)'$")


def format_value(value: Any, quote_strings: bool = False, lang: str | None = None) -> str:
    """Format one parameter value for readers of lang: numbers to 6 significant digits with the
    language's decimal mark, sequences as tuples (lang None: the machine form, a point)."""
    if isinstance(value, str):
        return repr(value) if quote_strings else value
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int | float):
        return format_number(value, lang)
    if isinstance(value, list | tuple):
        return "(" + join_items((format_value(item, quote_strings, lang) for item in value),
                                lang) + ")"
    if isinstance(value, Mapping):
        return format_assignments(value, quote_strings, lang)
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def format_pair(actual: Any, expected: Any, quote_strings: bool = True,
                lang: str | None = None) -> tuple[str, str]:
    """Format an actual and an expected value so that they read differently when they differ:
    6 significant digits, or as many more as it takes (-0.9999999999999999 against -1 is not
    shown as -1 against -1)."""
    shown = format_value(actual, quote_strings, lang), format_value(expected, quote_strings, lang)
    if not (_is_number(actual) and _is_number(expected)) or shown[0] != shown[1] \
            or actual == expected:
        return shown
    for digits in range(7, 18):
        pair = format_number(actual, lang, digits), format_number(expected, lang, digits)
        if pair[0] != pair[1]:
            return pair
    return repr(actual), repr(expected)


def format_assignments(values: Mapping[str, Any], quote_strings: bool = False,
                       lang: str | None = None) -> str:
    """Format named values as 'a = 1.5, b = -2' (in Spanish 'a = 1,5; b = -2')."""
    return join_items((f"{name} = {format_value(value, quote_strings, lang)}"
                       for name, value in values.items()), lang)


def format_inputs(values: Mapping[str, Any], catalogue: Catalogue) -> str:
    """Format a check's inputs: code (a string value) as a code span, `graph` as the program
    itself, numbers as named values in the catalogue's language."""
    parts = []
    for name, value in values.items():
        if name == GRAPH_INPUT and isinstance(value, str):
            parts.append(catalogue.text("ui.inputs_graph", graph=value))
        elif name in CALL_INPUTS and isinstance(value, str):
            parts.append(catalogue.text("ui.inputs_call", code=value))
        elif isinstance(value, str):
            parts.append(catalogue.text("ui.inputs_code", code=f"{name} = {value}"))
        elif isinstance(value, Mapping) and "kind" in value:
            parts.append(describe_detail(value, catalogue))
        else:
            parts.append(f"{name} = {format_value(value, True, catalogue.lang)}")
    return join_items(parts, catalogue.lang)


def format_frames(frames: Any, catalogue: Catalogue) -> str:
    """Where an exception happened, as the catalogue says it: 'value.py, line 13, in f', or in a
    notebook 'cell 4 (`def __add__(self, other):`), line 3, in f'. A text (documents written
    before frames were structured) is kept as it is."""
    if isinstance(frames, str):
        return frames
    texts = []
    for frame in frames if isinstance(frames, list) else []:
        if not isinstance(frame, Mapping):
            continue
        notebook = "cell" in frame
        key = "ui.frame_cell" if notebook else "ui.frame"
        params = {name: str(frame.get(name, "")) for name in
                  ("file", "line", "cell", "cell_line", "first_line")}
        text = catalogue.text(key, **params)
        if frame.get("function") and frame.get("function") != "<module>":
            text = catalogue.text("ui.frame_in", frame=text, function=str(frame["function"]))
        texts.append(text)
    return "; ".join(texts)


def check_title(check_id: str, catalogue: Catalogue) -> str:
    """Return the sentence that says what a check verifies."""
    return catalogue.text(f"checks.{check_id}.title")


def is_not_written(detail: Mapping[str, Any] | None) -> bool:
    """Whether a failure's detail says the code it ran into is not written yet."""
    return detail is not None and detail.get("kind") in NOT_WRITTEN_KINDS


def names_a_pitfall(detail: Mapping[str, Any] | None) -> bool:
    """Whether a failure with this detail counts towards the check's pitfall."""
    return not detail or detail.get("kind") not in NOT_A_PITFALL_KINDS


def todo_hint(detail: Mapping[str, Any], catalogue: Catalogue) -> str:
    """The hint of code not written yet: the TODO the check needs (when known), then where to
    start, or the next TODO to write."""
    params = detail.get("params") or {}
    file = str(params.get("file", ""))
    following = params.get("next")
    todo = params.get("todo")
    # the TODO the check needs, unless the rest names it (it is the next one to write)
    needs = catalogue.text("todo.needs", todo=str(todo), file=file) + " " \
        if isinstance(todo, int) and todo != following else ""
    if not isinstance(following, int):
        return needs + catalogue.text("todo.finish", file=file)
    if following == 1:
        return needs + catalogue.text("todo.start", file=file)
    return needs + catalogue.text("todo.next", next=str(following), file=file)


def check_hint(check_id: str, catalogue: Catalogue,
               detail: Mapping[str, Any] | None = None) -> str:
    """Return a check's hint: why it matters and where to look (for code not written yet: which
    TODO to write)."""
    if detail is not None and is_not_written(detail):
        return todo_hint(detail, catalogue)
    # A finding that names another defect than the check's own brings its own hint.
    kind = detail.get("kind") if detail is not None else None
    if isinstance(kind, str) and catalogue.has(f"details.{kind}.hint"):
        return catalogue.text(f"details.{kind}.hint")
    return catalogue.text(f"checks.{check_id}.hint")


def check_section(check_id: str, pitfall_id: str, catalogue: Catalogue,
                  detail: Mapping[str, Any] | None = None) -> str:
    """Return where to read about a check: its own section if it has one, else its pitfall's;
    for code not written yet, the README's list of TODOs."""
    if detail is not None and is_not_written(detail):
        return catalogue.text("todo.section")
    if catalogue.has(f"checks.{check_id}.section"):
        return catalogue.text(f"checks.{check_id}.section")
    return pitfall_section(pitfall_id, catalogue)


def pitfall_title(pitfall_id: str, catalogue: Catalogue) -> str:
    """Return the short name of a pitfall."""
    return catalogue.text(f"pitfalls.{pitfall_id}.title")


def pitfall_explanation(pitfall_id: str, catalogue: Catalogue) -> str:
    """Return the few sentences that explain what goes wrong with a pitfall and why."""
    return catalogue.text(f"pitfalls.{pitfall_id}.explanation")


def pitfall_section(pitfall_id: str, catalogue: Catalogue) -> str:
    """Return the pointer to the course section that covers a pitfall."""
    return catalogue.text(f"pitfalls.{pitfall_id}.section")


def _check_list(check_ids: Any, catalogue: Catalogue) -> str:
    """Format a list of check ids as their quoted titles, joined with commas."""
    ids = [check_ids] if isinstance(check_ids, str) else list(check_ids)
    titles = (check_title(check_id, catalogue).rstrip(".") for check_id in ids)
    return ", ".join(catalogue.text("ui.quoted", text=title) for title in titles)


def _differences(items: Any, catalogue: Catalogue) -> str:
    """Format [{quantity, actual, expected}, ...] as 'a.grad is 3 (expected 6.5); ...'."""
    texts = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping):
            actual, expected = format_pair(item.get("actual"), item.get("expected"), False,
                                           catalogue.lang)
            texts.append(catalogue.text(
                "ui.difference", quantity=format_value(item.get("quantity"), lang=catalogue.lang),
                actual=actual, expected=expected))
    return "; ".join(texts)


def _format_param(name: str, value: Any, catalogue: Catalogue) -> str:
    """Format one detail parameter, resolving the parameters that are ids, input maps, frames
    or nested details (a {kind, params} value whose kind is a detail kind: a finding, a quantity
    said in words). A value from the student's code (actual, expected) is always a value, and
    so is a mapping of any other kind, such as a network's description {"kind": "MLP", ...}."""
    if name == SOURCE_PARAM and isinstance(value, str):
        return catalogue.text(f"sources.{value}")
    if name == DIFFERENCES_PARAM:
        return _differences(value, catalogue)
    if (name not in VALUE_PARAMS and isinstance(value, Mapping)
            and catalogue.has(f"details.{value.get('kind')}.text")):
        return describe_detail(value, catalogue)
    if name == CHECKS_PARAM:
        return _check_list(value, catalogue)
    if name == WHERE_PARAM:
        return format_frames(value, catalogue)
    if name == INPUTS_PARAM and isinstance(value, Mapping):
        return format_inputs(value, catalogue) if value else catalogue.text("ui.no_inputs")
    if name == QUANTITY_PARAM and isinstance(value, str):
        return catalogue.text("ui.inputs_code", code=value)
    return format_value(value, quote_strings=name in VALUE_PARAMS, lang=catalogue.lang)


def describe_detail(detail: Mapping[str, Any], catalogue: Catalogue) -> str:
    """Render a detail {"kind", "params"} as the "what happened" sentence."""
    kind = detail["kind"]
    key = f"details.{kind}.text"
    if not catalogue.has(key):
        raise KeyError(f"unknown detail kind {kind!r}")
    raw: Mapping[str, Any] = detail.get("params") or {}
    params = {name: _format_param(name, value, catalogue) for name, value in raw.items()}
    if "actual" in raw and "expected" in raw:
        params["actual"], params["expected"] = format_pair(raw["actual"], raw["expected"],
                                                          lang=catalogue.lang)
    # A key next to `text` named after a parameter wraps that optional parameter,
    # e.g. where = " (at {where})": used when the value is not empty, dropped otherwise.
    for name in catalogue.placeholders(key):
        wrapper = f"details.{kind}.{name}"
        if catalogue.has(wrapper):
            value = params.get(name, "")
            params[name] = catalogue.text(wrapper, **{name: value}) if value else ""
    return catalogue.text(key, **params)


def describe_flag(flag: Mapping[str, Any], catalogue: Catalogue) -> str:
    """Render a policy flag {"id", "params"} as a sentence."""
    raw: Mapping[str, Any] = flag.get("params") or {}
    # a parameter whose value names one of the flag's own sentences (flags.<id>.<name>.<value>,
    # as a protocol breach's reason) is that sentence; any other is a value
    params = {name: catalogue.text(f"flags.{flag['id']}.{name}.{value}")
              if isinstance(value, str) and catalogue.has(f"flags.{flag['id']}.{name}.{value}")
              else format_value(value, lang=catalogue.lang) for name, value in raw.items()}
    return catalogue.text(f"flags.{flag['id']}.text", **params)


def _or_keep(render: Callable[[], str], original: str) -> str:
    """Return render(), or the original text when the catalogue cannot render it."""
    try:
        return render()
    except KeyError:
        return original


def _localise_check(check: Check, catalogue: Catalogue) -> Check:
    """Return a copy of one check with its texts rendered from ids and detail."""
    out: dict[str, Any] = {}
    check_id, pitfall = check.id, check.pitfall
    detail = to_json(check.detail) if check.detail else None
    out["title"] = _or_keep(lambda: check_title(check_id, catalogue), check.title)
    if check.hint:
        out["hint"] = _or_keep(lambda: check_hint(check_id, catalogue, detail), check.hint)
    if check.section:
        out["section"] = _or_keep(lambda: check_section(check_id, pitfall, catalogue, detail),
                                  check.section)
    if detail:
        out["message"] = _or_keep(lambda: describe_detail(detail, catalogue), check.message)
    return dataclasses.replace(check, **out)


def localise(doc: ScoreDocument, catalogue: Catalogue) -> ScoreDocument:
    """The score document with its rendered texts in the catalogue's language.

    Texts are rebuilt from the ids and structured details the document keeps; a text the
    catalogue cannot rebuild (an id it does not know) is kept as it was.
    """
    if doc.lang == catalogue.lang:
        return doc
    reason, problem = doc.reason, doc.problem
    if reason:
        reason = dataclasses.replace(reason, text=_or_keep(
            lambda: describe_detail(to_json(reason), catalogue), reason.text))
    if problem:
        problem = dataclasses.replace(problem, text=_or_keep(
            lambda: describe_detail(to_json(problem), catalogue), problem.text))
    flags = tuple(dataclasses.replace(flag, text=_or_keep(
        functools.partial(describe_flag, to_json(flag), catalogue), flag.text))
        for flag in doc.flags)
    return dataclasses.replace(
        doc, lang=cast(Language, catalogue.lang), reason=reason, problem=problem, flags=flags,
        checks=tuple(_localise_check(check, catalogue) for check in doc.checks))


def localise_document(doc: Document, catalogue: Catalogue) -> dict[str, Any]:
    """The JSON of a score document whose rendered texts are in the catalogue's language
    (`localise`), for the templates."""
    return to_json(localise(as_document(doc), catalogue))


def attempt_notes(doc: Document, catalogue: Catalogue) -> list[str]:
    """What the LMS said of this attempt, as sentences for the student: that it came in late,
    and which of its files share one name. Empty when the intake knew neither."""
    submission = as_document(doc).submission
    notes = [catalogue.text("platforms.attempts.late")] if submission.late else []
    duplicates = submission.duplicates or ()
    if duplicates:
        notes.append(catalogue.text("platforms.attempts.duplicates", files=", ".join(duplicates)))
    return notes


def problem_hint(problem: Problem | Mapping[str, Any], catalogue: Catalogue) -> str:
    """For a module that loaded without the lab's class (an empty file, an unsaved one): that the
    file has no such name at its top level, what to look at; empty otherwise."""
    problem = as_record(Problem, problem)
    params = problem.params
    found = MISSING_NAME.match(str(params.get("message", "")))
    if params.get("type") != "AttributeError" or not found:
        return ""
    return catalogue.text("platforms.load_problem.missing_name", file=problem.file,
                          name=found["name"])


def problem_where(problem: Problem | Mapping[str, Any], catalogue: Catalogue) -> str:
    """Where a module that cannot be loaded went wrong: the file and line, or in a notebook the
    code cell (its number and first line) and the line inside it; with no line, what the file
    lacks (problem_hint), else empty."""
    problem = as_record(Problem, problem)
    if not problem.line:
        return problem_hint(problem, catalogue)
    if problem.cell:
        return catalogue.text("ui.problem_cell", file=problem.file,
                              cell=str(problem.cell), first_line=str(problem.first_line),
                              line=str(problem.line))
    return catalogue.text("ui.problem_line", file=problem.file, line=str(problem.line))


# The message of a ModuleNotFoundError: its first dotted part names the package imported.
_MISSING_MODULE = re.compile(r"No module named '([A-Za-z_][A-Za-z0-9_]*)")


def missing_module(problem: Problem) -> str | None:
    """The module a submission imports that is not in Python's standard library (the grader
    provides nothing else: `import numpy` on a machine that has it works, here it does not);
    None for any other problem."""
    params = problem.params
    if problem.kind != "import-error" or params.get("type") != "ModuleNotFoundError":
        return None
    found = _MISSING_MODULE.match(str(params.get("message", "")))
    if found is None or found.group(1) in sys.stdlib_module_names:
        return None
    return found.group(1)


def problem_notice(document: Document, catalogue: Catalogue) -> str:
    """What to do first when the module cannot be loaded: drop a module the grader does not
    provide, or run the file, or the notebook's cell; for a file with no code, that it is empty."""
    doc = as_document(document)
    count, problem = str(len(doc.checks)), doc.problem
    if problem is None:
        return ""
    if problem.params.get("empty"):  # no line to show: there is no code
        return catalogue.text("ui.problem_notice_empty", count=count, file=problem.file)
    module = missing_module(problem)
    if module is not None:
        return catalogue.text("ui.problem_notice_module", count=count, module=module,
                              file=problem.file)
    if doc.submission.notebook:
        return catalogue.text("ui.problem_notice_notebook", count=count, lab=doc.lab)
    if not problem.line:  # nothing to open the file at: run it to see where
        return catalogue.text("ui.problem_notice_no_line", count=count,
                              file=problem.file)
    return catalogue.text("ui.problem_notice", count=count, file=problem.file)


def unchecked_note(document: Document, catalogue: Catalogue) -> str:
    """That a student's check left out an edited file, and the command that checks it; empty
    when it left out nothing."""
    doc = as_document(document)
    submission = doc.submission
    unchecked = [name.rsplit("/", 1)[-1] for name in submission.unchecked or []]
    if not unchecked:
        return ""
    files = ", ".join(unchecked)
    notebook = submission.notebook
    if notebook:
        return catalogue.text("ui.unchecked_file", files=files, checked=str(notebook),
                              lab=doc.lab)
    from_lab = [name for name in unchecked if name.endswith(".ipynb")]
    lab = LABS.get(doc.lab)
    checked = lab.main_file if lab else ""
    return catalogue.text("ui.unchecked_notebook", files=", ".join(from_lab) or files,
                          checked=checked, lab=doc.lab)
