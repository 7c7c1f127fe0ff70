"""The short first screen of `check` (grader.results.first_screen) and the "not written yet"
hint that names its TODO, on synthetic checks. The untouched stubs' first screens, counted
from every release's kit in both languages, are in tests/test_kit.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grader.common.labs import LABS
from grader.results.first_screen import MAX_TODO_LINES, Waiting, first_screen
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import todo_hint
from grader.results.score_document import Check, CheckStatus, Detail


def _check(check_id: str, status: CheckStatus, kind: str, params: dict[str, Any]) -> Check:
    return Check(id=check_id, title=check_id, pitfall="", status=status, score=0.0,
                 max_score=1.0, visibility="public", message="", hint="",
                 detail=Detail(kind=kind, params=params), output=None, section="")


def _not_written(check_id: str, todo: int, following: int = 1) -> Check:
    return _check(check_id, "failed", "not-written",
                  {"todo": todo, "file": "value.py", "next": following})


def _not_run(check_id: str) -> Check:
    return _check(check_id, "not-run", "prerequisite", {"checks": []})


def _bug(check_id: str) -> Check:
    return _check(check_id, "failed", "wrong-gradient", {})


def test_the_lowest_unwritten_todo_is_shown_and_the_rest_counted_per_todo() -> None:
    attention = [_not_written("b", 2), _not_written("a", 1), _not_run("c"), _not_run("d"),
                 _not_run("e")]
    todos = {"a": (1,), "b": (2,), "c": (2,), "d": (1, 3), "e": ()}
    shown, waiting = first_screen(attention, todos)
    assert [check.id for check in shown] == ["a"]
    assert waiting == [Waiting(2, 2, True), Waiting(3, 1, True), Waiting(None, 1, False)]


def test_failures_of_written_code_stay_in_full_and_their_dependants_are_held_back() -> None:
    attention = [_bug("a"), _not_run("b"), _not_written("c", 4, following=4), _not_run("d")]
    shown, waiting = first_screen(attention, {"a": (1,), "b": (2,), "c": (4,), "d": (5,)})
    assert [check.id for check in shown] == ["a", "c"]
    assert waiting == [Waiting(2, 1, False), Waiting(5, 1, True)]


def test_many_unwritten_todos_share_one_line_past_the_first_ones() -> None:
    attention = [_not_written("a", 1), *(_not_run(f"c{n}") for n in range(2, 12))]
    todos = {"a": (1,), **{f"c{n}": (n,) for n in range(2, 12)}}
    _, waiting = first_screen(attention, todos)
    assert len(waiting) == MAX_TODO_LINES
    assert waiting[-1] == Waiting(MAX_TODO_LINES + 1, 11 - MAX_TODO_LINES, True, 11)
    assert sum(line.count for line in waiting) == 10


def test_no_unwritten_code_shows_every_failure() -> None:
    attention = [_bug("a"), _bug("b")]
    shown, waiting = first_screen(attention, {})
    assert shown == attention and waiting == []


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("todo", "following"), [(1, 1), (3, 1), (3, 2), (2, 2)])
def test_every_not_written_hint_names_the_todo_it_is_about(lang: str, todo: int,
                                                           following: int) -> None:
    catalogue = Catalogue.load(lang)
    hint = todo_hint({"kind": "not-written", "params": {"todo": todo, "file": "value.py",
                                                        "next": following}}, catalogue)
    assert f"TODO {todo} " in hint, hint



def test_the_spanish_progress_line_says_elapsed_time_in_agreement() -> None:
    """"0:00:06 transcurrido" did not agree with the seconds it counts (issue 35)."""
    from grader.results.console import ProgressLines

    times = iter([0.0, 6.0])
    lines = ProgressLines("es", clock=lambda: next(times))
    doc = json.loads((Path(__file__).parent.parent / "data" / "score_mixed.json").read_text("utf-8"))
    line = lines.line(1, 2, doc, kept=False)
    assert "tiempo transcurrido: 0:00:06," in line, line


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_empty_file_is_said_empty_and_no_line_is_promised(tmp_path, lang: str) -> None:
    """An empty value.py has no line to open it at (issue 35): the notice says it is empty;
    a file that loads nothing without a line (no class Value) promises no line either."""
    from grader.grading.batch import check_submission
    from grader.results.render import render_feedback

    catalogue = Catalogue.load(lang)
    line_shown = catalogue.text("ui.problem_notice", count="23", file="value.py")
    for content, key in ((b"\n  \n", "ui.problem_notice_empty"),
                         (b"x = 1\n", "ui.problem_notice_no_line")):
        folder = tmp_path / key / lang
        folder.mkdir(parents=True)
        (folder / "value.py").write_bytes(content)
        doc = check_submission(LABS["lab01_graph"], folder, lang)
        assert doc["problem"] and doc["problem"]["line"] is None, doc["problem"]
        text = " ".join(render_feedback(doc, "terminal").split())
        count = str(len(doc["checks"]))
        assert catalogue.text(key, count=count, file="value.py") in text, text
        assert line_shown.replace("23", count) not in text, text
