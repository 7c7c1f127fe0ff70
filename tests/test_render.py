"""Tests for grader.results.render: score documents render in every format and language."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jinja2
import pytest

from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import check_hint
from grader.results.render import (
    FEEDBACK_TEMPLATES,
    _CompiledTemplates,
    environment,
    isolation_notes,
    render_dashboard,
    render_feedback,
    render_summary,
)

DATA = Path(__file__).parent / "data"
SAMPLES = ("score_all_passed", "score_mixed", "score_ungradable", "score_grader_error")
FORMATS = tuple(FEEDBACK_TEMPLATES)


def load_doc(name: str) -> dict[str, Any]:
    """Load a sample score document from tests/data."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def flat(text: str) -> str:
    """Collapse whitespace, so wrapped terminal lines compare as one sentence."""
    return " ".join(text.split())


def check_by_id(doc: dict[str, Any], check_id: str) -> dict[str, Any]:
    """Return the check with check_id from a score document."""
    return next(check for check in doc["checks"] if check["id"] == check_id)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_renders_in_every_format_and_language(
    sample: str, fmt: str, lang: str
) -> None:
    doc = load_doc(sample)
    text = render_feedback(doc, fmt, lang)
    assert doc["submission"]["id"] in text
    assert Catalogue.load(lang).text("ui.status." + doc["status"]) in text
    assert "{" not in text.replace("{ ", "")  # CSS braces have a space; placeholders do not


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_failure_shows_inputs_expected_actual_hint_and_section(fmt: str) -> None:
    doc = load_doc("score_mixed")
    text = flat(render_feedback(doc, fmt))
    for fragment in ("a = 2, b = -3", "a.grad is -3", "expected -2", "the reference solution"):
        assert fragment in text, fragment
    hint = check_hint("diamond-accumulates", Catalogue.load("en"))
    if fmt == "html":
        assert "add to <code>grad</code> or replace it" in text
    else:
        assert flat(hint) in text
    assert "The diamond pattern in slow motion" in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_score_comes_first(fmt: str) -> None:
    text = render_feedback(load_doc("score_mixed"), fmt)
    assert text.index("4 / 15") < text.index("In ")


def test_html_escapes_student_output() -> None:
    html = render_feedback(load_doc("score_mixed"), "html")
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert '<html lang="en">' in html


def test_html_is_autoescaped_and_terminal_is_not() -> None:
    env = environment()
    assert env.autoescape("feedback.html.j2") is True  # type: ignore[operator]
    assert env.autoescape("feedback.terminal.j2") is False  # type: ignore[operator]


def test_markdown_fences_student_output_beyond_its_own_backticks() -> None:
    md = render_feedback(load_doc("score_mixed"), "markdown")
    assert "````text\n" in md  # the output holds a run of three backticks


def test_markdown_escapes_html_in_student_messages() -> None:
    doc = load_doc("score_mixed")
    check = check_by_id(doc, "number-right-operand")
    check["message"] = "Your code raised ValueError: <img src=x onerror=alert(1)>"
    md = render_feedback(doc, "markdown")
    assert r"\<img src=x onerror=alert(1)\>" in md  # a backslash-escaped tag is plain text
    assert "<img" not in md.replace(r"\<img", "")


def test_terminal_has_no_escape_sequences_unless_asked() -> None:
    doc = load_doc("score_mixed")
    plain = render_feedback(doc, "terminal")
    assert "\x1b" not in plain  # even though the student's output contains some
    coloured = render_feedback(doc, "terminal", color=True)
    assert "\x1b[31m" in coloured


def test_passed_checks_are_listed_compactly() -> None:
    doc = load_doc("score_mixed")
    text = render_feedback(doc, "terminal")
    title = check_by_id(doc, "add-builds-node")["title"]
    assert flat(title) in flat(text)
    hint = check_hint("add-builds-node", Catalogue.load("en"))
    assert flat(hint) not in flat(text)


@pytest.mark.parametrize("fmt", FORMATS)
def test_not_run_check_says_which_checks_it_waits_for(fmt: str) -> None:
    text = flat(render_feedback(load_doc("score_mixed"), fmt))
    assert "Not run, because an earlier check it depends on did not pass" in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_error_check_says_it_is_not_the_students_fault(fmt: str) -> None:
    text = flat(render_feedback(load_doc("score_mixed"), fmt))
    assert "This is not a problem with your code; tell your instructor." in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_all_passed_document_says_so(fmt: str) -> None:
    text = render_feedback(load_doc("score_all_passed"), fmt)
    assert Catalogue.load("es").text("ui.all_passed") in text


def _public_checks_only(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as `make check` makes it: its public checks only."""
    public = [check for check in doc["checks"] if check["visibility"] == "public"]
    return {**doc, "checks": public, "score": sum(c["score"] for c in public),
            "max_score": sum(c["max_score"] for c in public)}


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_all_public_checks_passed_says_the_graded_suite_runs_more(fmt: str, lang: str) -> None:
    catalogue = Catalogue.load(lang)
    note = flat(catalogue.text("ui.public_only_note"))
    public = flat(render_feedback(_public_checks_only(load_doc("score_all_passed")), fmt, lang))
    assert catalogue.text("ui.all_passed") in public and note in public, public
    graded = flat(render_feedback(load_doc("score_all_passed"), fmt, lang))
    assert note not in graded, "a graded run with hidden checks is not the public checks only"


@pytest.mark.parametrize("fmt", FORMATS)
def test_ungradable_document_gives_the_reason_and_no_score(fmt: str) -> None:
    text = render_feedback(load_doc("score_ungradable"), fmt)
    assert "The submission has no value.py." in text
    assert "0 / 16" not in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_english_document_rerenders_in_spanish(fmt: str) -> None:
    doc = load_doc("score_mixed")
    text = flat(render_feedback(doc, fmt, lang="es"))
    assert "a recibe el gradiente 2." in text  # "En `a + a`, a recibe el gradiente 2."
    assert "a gets the gradient 2." not in text
    assert "Comprobaciones superadas" in text
    assert "Con a = 1,5, " in text  # the Spanish decimal mark
    assert "a.grad" in text and " vale 1; se esperaba 2 (calculado a mano)." in text


def test_spanish_html_declares_its_language() -> None:
    html = render_feedback(load_doc("score_all_passed"), "html")
    assert '<html lang="es">' in html
    assert '<html lang="en">' in render_feedback(load_doc("score_all_passed"), "html", "en")


def test_unknown_format_is_an_error_naming_the_choices() -> None:
    with pytest.raises(ValueError, match="terminal, markdown, html"):
        render_feedback(load_doc("score_mixed"), "pdf")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_summary_lists_every_submission_with_status_score_and_pitfalls(lang: str) -> None:
    docs = [load_doc(name) for name in SAMPLES]
    text = render_summary(docs, lang)
    catalogue = Catalogue.load(lang)
    assert catalogue.text("ui.summary_submission") in text
    lines = text.splitlines()
    alice = next(line for line in lines if line.startswith("alice"))
    assert "4 / 15" in alice
    assert "topological-order, grad-overwrite, number-operand, hash-trap" in alice
    carlos = next(line for line in lines if line.startswith("carlos"))
    assert catalogue.text("ui.status.ungradable") in carlos


def test_summary_columns_line_up() -> None:
    docs = [load_doc(name) for name in SAMPLES]
    lines = render_summary(docs, "en").splitlines()
    header = next(line for line in lines if line.startswith("Submission "))
    rows = [line for line in lines if line.split(" ")[0] in {"bea", "alice", "carlos", "dana"}]
    assert len(rows) == len(docs)
    for column in ("Status", "Score", "Pitfalls"):
        start = header.index(column)
        assert all(row[start - 1] == " " and row[start] != " " for row in rows), column


def test_summary_of_no_submissions_renders() -> None:
    assert "0" in render_summary([], "en")


def _with_isolation(name: str, level: str, how: str) -> dict[str, Any]:
    doc = load_doc(name)
    doc["isolation"] = {"level": level, "how": how, "memory": "process-count"}
    return doc


@pytest.mark.parametrize("lang", LANGUAGES)
def test_summary_names_the_jail_plainly_and_the_dashboard_too(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    docs = [_with_isolation(name, "jail", "userns") for name in SAMPLES]
    line = catalogue.text("ui.isolation_line", level=catalogue.text("ui.isolation_level.jail"),
                          how=catalogue.text("ui.isolation_how.userns"),
                          memory=catalogue.text("ui.isolation_memory.process-count"))
    assert line in render_summary(docs, lang)
    dashboard = render_dashboard(docs, lang)
    assert catalogue.text("ui.dashboard.isolation_all_full", level="jail") in dashboard


@pytest.mark.parametrize("lang", LANGUAGES)
def test_anything_below_the_jail_is_a_warning_once_per_isolation(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    docs = [_with_isolation("score_mixed", "uid", "setuid"),
            _with_isolation("score_all_passed", "uid", "setuid"),
            _with_isolation("score_ungradable", "limits", "none")]
    notes = isolation_notes(docs, catalogue)
    assert [note["warning"] for note in notes] == [True, True], notes
    summary = render_summary(docs, lang)
    for note in notes:
        assert summary.count(note["text"]) == 1, note["text"]
    dashboard = render_dashboard(docs, lang)
    warning = catalogue.text("ui.dashboard.isolation_warning", level="jail")
    assert f'<p class="warning">{warning}</p>' in dashboard


def test_documents_from_before_schema_1_1_render_without_an_isolation_line() -> None:
    docs = [load_doc(name) for name in SAMPLES]
    for doc in docs:
        del doc["isolation"]
        doc["schema_version"] = "1.0"
    assert isolation_notes(docs, Catalogue.load("en")) == []
    assert "Isolation" not in render_summary(docs, "en")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_feedback_says_a_late_attempt_and_its_files_of_one_name(fmt: str, lang: str) -> None:
    catalogue = Catalogue.load(lang)
    late = flat(catalogue.text("platforms.attempts.late"))
    earlier = flat(catalogue.text("platforms.attempts.duplicates", files="value-1.py, value.py"))
    doc = load_doc("score_mixed")
    before = flat(render_feedback(doc, fmt, lang))
    assert late not in before and "value-1.py" not in before  # nothing when the LMS said nothing
    doc["submission"].update(late=True, duplicates=["value-1.py", "value.py"])
    text = flat(render_feedback(doc, fmt, lang))
    for sentence in (late, earlier):
        assert sentence in text, (sentence, text[:600])


# --- compiled templates kept in __pycache__ ----------------------------------------------------


def _templates_in(folder: Path, text: str) -> jinja2.Environment:
    """An environment over one template in folder, its compiled form kept as render keeps it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "page.j2").write_text(text, encoding="utf-8")
    return jinja2.Environment(loader=jinja2.FileSystemLoader(folder),
                              bytecode_cache=_CompiledTemplates(str(folder / "__pycache__")))


def test_a_compiled_template_is_kept_and_found_again_by_a_copy_of_the_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    first = _templates_in(tmp_path / "image", "Hello {{ name }}")
    assert first.get_template("page.j2").render(name="a") == "Hello a"
    assert len(list((tmp_path / "image" / "__pycache__").iterdir())) == 1
    shutil.copytree(tmp_path / "image", tmp_path / "copy")  # as PrairieLearn's run.sh copies
    copy = _templates_in(tmp_path / "copy", "Hello {{ name }}")
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda *args, **kwargs: pytest.fail("compiled again"))
    assert copy.get_template("page.j2").render(name="b") == "Hello b"


def test_an_edited_template_is_compiled_again(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    _templates_in(tmp_path, "Hello {{ name }}").get_template("page.j2")
    assert _templates_in(tmp_path, "Bye {{ name }}").get_template("page.j2").render(
        name="a") == "Bye a"


def test_no_compiled_template_is_written_without_bytecode_or_a_writable_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", True)
    assert _templates_in(tmp_path / "a", "x").get_template("page.j2").render() == "x"
    assert not (tmp_path / "a" / "__pycache__").exists()
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "__pycache__").write_text("a file, not a folder", encoding="utf-8")
    assert _templates_in(tmp_path / "b", "y").get_template("page.j2").render() == "y"


@pytest.mark.parametrize("kept", [b"", b"garbage", jinja2.bccache.bc_magic + b"\x80broken"],
                         ids=["empty", "garbage", "broken-after-the-magic"])
def test_a_broken_compiled_template_is_compiled_again(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      kept: bytes) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    _templates_in(tmp_path, "Hello {{ name }}").get_template("page.j2")
    [entry] = (tmp_path / "__pycache__").iterdir()
    entry.write_bytes(kept)
    assert _templates_in(tmp_path, "Hello {{ name }}").get_template("page.j2").render(
        name="a") == "Hello a"
