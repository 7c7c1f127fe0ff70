"""Student-facing sentences: turn check ids, structured details and flags into catalogue text."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from typing import Any

from grader.i18n import Catalogue, format_number

# Parameters whose values are not printed as they come (see describe_detail).
INPUTS_PARAM = "inputs"
SOURCE_PARAM = "source"
CHECKS_PARAM = "checks"
# A list of {quantity, actual, expected}: the numbers of a graph that differ.
DIFFERENCES_PARAM = "differences"
# A nested detail {kind, params}: what a random-graph check found out about the failure.
FINDING_PARAM = "finding"
# Parameters that carry data values from the student's code: strings are shown quoted,
# so that a label '+' or an empty string '' is unmistakable.
VALUE_PARAMS = frozenset({"expected", "actual"})
# Details of code that is not written yet (see grader.checking.todos): they blame no pitfall,
# and their hint says which TODO to write instead of the check's own hint.
NOT_WRITTEN_KINDS = frozenset({"not-written", "not-implemented"})
# Failures that fall into no pitfall: code not written yet, and a module that cannot be imported.
NOT_A_PITFALL_KINDS = NOT_WRITTEN_KINDS | {"import-error"}


def format_value(value: Any, quote_strings: bool = False) -> str:
    """Format one parameter value: numbers to 6 significant digits, sequences as tuples."""
    if isinstance(value, str):
        return repr(value) if quote_strings else value
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int | float):
        return format_number(value)
    if isinstance(value, list | tuple):
        return "(" + ", ".join(format_value(item, quote_strings) for item in value) + ")"
    if isinstance(value, Mapping):
        return format_assignments(value, quote_strings)
    return str(value)


def format_assignments(values: Mapping[str, Any], quote_strings: bool = False) -> str:
    """Format named values as 'a = 1.5, b = -2'."""
    return ", ".join(
        f"{name} = {format_value(value, quote_strings)}" for name, value in values.items()
    )


def check_title(check_id: str, catalogue: Catalogue) -> str:
    """Return the sentence that says what a check verifies."""
    return catalogue.text(f"checks.{check_id}.title")


def shows_hint(status: str) -> bool:
    """Whether a check with this status carries its hint: only a failure of the student's code."""
    return status == "failed"


def is_not_written(detail: Mapping[str, Any] | None) -> bool:
    """Whether a failure's detail says the code it ran into is not written yet."""
    return detail is not None and detail.get("kind") in NOT_WRITTEN_KINDS


def names_a_pitfall(detail: Mapping[str, Any] | None) -> bool:
    """Whether a failure with this detail counts towards the check's pitfall."""
    return not detail or detail.get("kind") not in NOT_A_PITFALL_KINDS


def todo_hint(detail: Mapping[str, Any], catalogue: Catalogue) -> str:
    """The hint of code not written yet: where to start, or the next TODO to write."""
    params = detail.get("params") or {}
    file = str(params.get("file", ""))
    following = params.get("next")
    if not isinstance(following, int):
        return catalogue.text("todo.finish", file=file)
    if following == 1:
        return catalogue.text("todo.start", file=file)
    return catalogue.text("todo.next", next=format_value(following), file=file)


def check_hint(check_id: str, catalogue: Catalogue,
               detail: Mapping[str, Any] | None = None) -> str:
    """Return a check's hint: why it matters and where to look (for code not written yet: which
    TODO to write)."""
    if detail is not None and is_not_written(detail):
        return todo_hint(detail, catalogue)
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
            texts.append(catalogue.text(
                "ui.difference", quantity=format_value(item.get("quantity")),
                actual=format_value(item.get("actual")),
                expected=format_value(item.get("expected"))))
    return "; ".join(texts)


def _format_param(name: str, value: Any, catalogue: Catalogue) -> str:
    """Format one detail parameter, resolving the parameters that are ids or input maps."""
    if name == SOURCE_PARAM and isinstance(value, str):
        return catalogue.text(f"sources.{value}")
    if name == DIFFERENCES_PARAM:
        return _differences(value, catalogue)
    if name == FINDING_PARAM and isinstance(value, Mapping) and "kind" in value:
        return describe_detail(value, catalogue)
    if name == CHECKS_PARAM:
        return _check_list(value, catalogue)
    if name == INPUTS_PARAM and isinstance(value, Mapping) and not value:
        return catalogue.text("ui.no_inputs")
    return format_value(value, quote_strings=name in VALUE_PARAMS)


def describe_detail(detail: Mapping[str, Any], catalogue: Catalogue) -> str:
    """Render a detail {"kind", "params"} as the "what happened" sentence."""
    kind = detail["kind"]
    key = f"details.{kind}.text"
    if not catalogue.has(key):
        raise KeyError(f"unknown detail kind {kind!r}")
    raw: Mapping[str, Any] = detail.get("params") or {}
    params = {name: _format_param(name, value, catalogue) for name, value in raw.items()}
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
    params = {name: format_value(value) for name, value in raw.items()}
    return catalogue.text(f"flags.{flag['id']}.text", **params)


def _or_keep(render: Callable[[], str], original: str) -> str:
    """Return render(), or the original text when the catalogue cannot render it."""
    try:
        return render()
    except KeyError:
        return original


def _localise_check(check: Mapping[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    """Return a copy of one check with its texts rendered from ids and detail."""
    out = dict(check)
    check_id, pitfall, detail = check["id"], check["pitfall"], check.get("detail")
    out["title"] = _or_keep(lambda: check_title(check_id, catalogue), check["title"])
    if check.get("hint"):
        out["hint"] = _or_keep(lambda: check_hint(check_id, catalogue, detail), check["hint"])
    if check.get("section"):
        out["section"] = _or_keep(lambda: check_section(check_id, pitfall, catalogue, detail),
                                  check["section"])
    if detail:
        out["message"] = _or_keep(lambda: describe_detail(detail, catalogue), check["message"])
    return out


def localise_document(doc: Mapping[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    """Return a copy of a score document whose rendered texts are in the catalogue's language.

    Texts are rebuilt from the ids and structured details the document keeps; a text the
    catalogue cannot rebuild (an id it does not know) is kept as it was.
    """
    out = copy.deepcopy(dict(doc))
    if doc.get("lang") == catalogue.lang:
        return out
    out["lang"] = catalogue.lang
    out["checks"] = [_localise_check(check, catalogue) for check in out["checks"]]
    reason = out.get("reason")
    if reason:
        reason["text"] = _or_keep(lambda: describe_detail(reason, catalogue), reason["text"])
    problem = out.get("problem")
    if problem:
        problem["text"] = _or_keep(lambda: describe_detail(problem, catalogue), problem["text"])
    for flag in out.get("flags", []):
        flag["text"] = _or_keep(functools.partial(describe_flag, flag, catalogue), flag["text"])
    return out


def attempt_notes(doc: Mapping[str, Any], catalogue: Catalogue) -> list[str]:
    """What the LMS said of this attempt, as sentences for the student: that it came in late,
    and which of its files share one name. Empty when the intake knew neither."""
    submission = doc["submission"]
    notes = [catalogue.text("platforms.attempts.late")] if submission.get("late") else []
    duplicates = submission.get("duplicates") or []
    if duplicates:
        notes.append(catalogue.text("platforms.attempts.duplicates", files=", ".join(duplicates)))
    return notes
