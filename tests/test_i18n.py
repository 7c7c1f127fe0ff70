"""Tests for grader.results.i18n: catalogue loading, lookups, translation coverage, language choice."""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from pathlib import Path

import pytest
from language_rules import english_words, lonely_plurals

from grader.common.labs import LABS
from grader.results.i18n import (
    BILINGUAL_FOLDER,
    CATALOGUE_DIR,
    LANGUAGES,
    Catalogue,
    bilingual_entries,
    default_language,
    format_number,
    load_from,
    missing_translations,
    placeholder_mismatches,
    read_entries,
)

PITFALL_IDS = (
    "graph-construction", "leaf-backward", "hash-trap", "seed-gradient",
    "wrong-local-derivative", "topological-order", "missing-visited-set",
    "ignores-upstream-gradient", "grad-overwrite", "number-operand", "missing-zero-grad",
    "mid-flight-mutation", "late-binding-closure", "deep-recursion", "cycle-detection",
    "unsupported-operand", "parameters-copy",
)
LAB01_CHECK_IDS = (
    "add-builds-node", "mul-builds-node", "leaf-backward-is-noop", "value-hashable",
    "backward-seeds-output", "add-local-derivative", "mul-local-derivative",
    "backward-runs-in-topological-order", "backward-calls-each-node-once",
    "add-passes-upstream-gradient", "mul-passes-upstream-gradient", "diamond-accumulates",
    "self-add-accumulates", "self-mul-accumulates", "shared-intermediate-accumulates",
    "equal-data-leaves-stay-distinct", "equal-data-nodes-stay-distinct",
    "number-right-operand", "number-left-operand",
)
# Pictographs and dingbats: the house style has no emoji in student-facing text.
EMOJI = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff]")


def write_catalogues(directory: Path, en: str, es: str) -> Path:
    """Write a synthetic en/es catalogue pair and return its directory."""
    (directory / "en.toml").write_text(en, encoding="utf-8")
    (directory / "es.toml").write_text(es, encoding="utf-8")
    return directory


def write_bilingual(directory: Path, name: str, text: str) -> Path:
    """Write a synthetic bilingual file beside an empty shared en/es pair; return the file."""
    write_catalogues(directory, en="", es="")
    (directory / BILINGUAL_FOLDER).mkdir(exist_ok=True)
    source = directory / BILINGUAL_FOLDER / name
    source.write_text(text, encoding="utf-8")
    return source


BILINGUAL_FILES = sorted((CATALOGUE_DIR / BILINGUAL_FOLDER).glob("*.toml"))


@pytest.mark.parametrize("source", BILINGUAL_FILES, ids=lambda path: path.name)
def test_every_bilingual_entry_has_a_text_in_every_language(source: Path) -> None:
    # bilingual_entries raises, naming the file, the key and the language, on a missing one.
    entries = bilingual_entries(source)
    assert entries and all(set(texts) == set(LANGUAGES) for texts in entries.values()), source


def test_the_bilingual_files_are_the_labs_the_command_line_and_the_platforms() -> None:
    # One file per lab, the command line, the platforms, and one per area of the grader.
    areas = {"contract", "contract41", "deploy", "first_hour", "intake", "lms_return", "sandbox", "semester", "similarity",
             "submitted_work"}
    assert {path.stem for path in BILINGUAL_FILES} == {*LABS, "cli", "platforms", *areas}


def test_a_bilingual_entry_missing_a_language_names_the_file_the_check_and_the_language(
        tmp_path: Path) -> None:
    write_bilingual(tmp_path, "lab01_graph.toml",
                    '[checks.add-builds-node]\ntitle.en = "Builds"\ntitle.es = "Construye"\n'
                    'hint.en = "Look at _prev."\n')
    for lang in LANGUAGES:
        with pytest.raises(ValueError, match=r"lab01_graph\.toml: checks\.add-builds-node\.hint "
                                             r"has no es text \(write checks\.add-builds-node\.hint\.es\)"):
            load_from(tmp_path, lang)


def test_a_bilingual_file_is_read_once_for_every_language_and_again_once_edited(
        tmp_path: Path) -> None:
    source = write_bilingual(tmp_path, "lab.toml", '[ui]\nscore.en = "Score"\nscore.es = "Nota"\n')
    first = bilingual_entries(source)
    assert bilingual_entries(source) is first  # the es catalogue reuses what en read
    source.write_text('[ui]\nscore.en = "Points"\nscore.es = "Puntos"\n', encoding="utf-8")
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 1_000_000))
    assert load_from(tmp_path, "es").text("ui.score") == "Puntos"


def _copy_of(source: Path) -> Path:
    return source.parent / "__pycache__" / (source.name + ".marshal")


def read_toml(source: Path) -> dict:
    """The file's table, through read_entries's copy."""
    return read_entries(source, lambda table, path: table)


def test_a_catalogue_file_is_parsed_once_then_read_from_its_copy_while_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    source = tmp_path / "en.toml"
    source.write_text('[ui]\nscore = "Score"\n', encoding="utf-8")
    assert read_toml(source) == {"ui": {"score": "Score"}}
    assert _copy_of(source).is_file()
    monkeypatch.setattr("tomllib.load", lambda handle: pytest.fail("parsed again"))
    assert read_toml(source) == {"ui": {"score": "Score"}}  # from the copy


def test_a_catalogue_file_edited_since_its_copy_is_parsed_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    source = tmp_path / "en.toml"
    source.write_text('[ui]\nscore = "Score"\n', encoding="utf-8")
    read_toml(source)
    source.write_text('[ui]\nscore = "Points"\n', encoding="utf-8")
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 1_000_000))
    assert read_toml(source) == {"ui": {"score": "Points"}}


def test_a_copy_made_by_another_version_of_the_reader_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    source = tmp_path / "en.toml"
    source.write_text('[ui]\nscore = "Score"\n', encoding="utf-8")
    assert read_entries(source, lambda table, path: {"old": 1}) == {"old": 1}
    reader = tmp_path / "i18n.py"  # the module that checks the entries, edited since
    reader.write_text("# a newer reader\n", encoding="utf-8")
    monkeypatch.setattr("grader.results.i18n._READER", reader)
    assert read_entries(source, lambda table, path: {"new": 2}) == {"new": 2}


def test_a_catalogue_file_with_an_error_says_so_every_time(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    write_bilingual(tmp_path, "lab.toml", '[ui]\nscore.en = "Score"\n')
    (tmp_path / "en.toml").write_text("", encoding="utf-8")
    for _ in range(2):  # no copy of a file that did not check
        with pytest.raises(ValueError, match="no es text"):
            load_from(tmp_path, "en")


@pytest.mark.parametrize("copy", [b"", b"not marshal data", b"\x00" * 7],
                         ids=["empty", "garbage", "truncated"])
def test_a_broken_copy_is_ignored_and_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               copy: bytes) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    source = tmp_path / "en.toml"
    source.write_text('[ui]\nscore = "Score"\n', encoding="utf-8")
    _copy_of(source).parent.mkdir()
    _copy_of(source).write_bytes(copy)
    assert read_toml(source) == {"ui": {"score": "Score"}}
    assert _copy_of(source).read_bytes() != copy


def test_no_copy_is_written_when_python_writes_no_bytecode_or_the_folder_is_read_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "en.toml"
    source.write_text('[ui]\nscore = "Score"\n', encoding="utf-8")
    monkeypatch.setattr("sys.dont_write_bytecode", True)
    assert read_toml(source) == {"ui": {"score": "Score"}}
    assert not _copy_of(source).parent.exists()
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    _copy_of(source).parent.write_text("a file where the folder would be", encoding="utf-8")
    assert read_toml(source) == {"ui": {"score": "Score"}}  # still read, no copy kept


def test_an_empty_text_in_a_bilingual_entry_is_a_missing_translation(tmp_path: Path) -> None:
    write_bilingual(tmp_path, "lab.toml", '[ui]\nscore.en = "Score"\nscore.es = " "\n')
    with pytest.raises(ValueError, match=r"lab\.toml: ui\.score has no es text"):
        load_from(tmp_path, "en")


@pytest.mark.parametrize("line", ['title.fr = "Construit"', 'title = "Builds"'])
def test_a_bilingual_text_under_a_name_that_is_not_a_language_is_an_error(
        tmp_path: Path, line: str) -> None:
    write_bilingual(tmp_path, "lab.toml",
                    f'[checks.x]\nhint.en = "Look."\nhint.es = "Mira."\n{line}\n')
    with pytest.raises(ValueError, match=r"lab\.toml: checks\.x\.title(\.fr)?: '(fr|title)' is not a "
                                         r"language of the catalogue"):
        load_from(tmp_path, "es")


def test_a_bilingual_text_that_is_not_a_string_is_an_error(tmp_path: Path) -> None:
    write_bilingual(tmp_path, "lab.toml", '[ui]\nscore.en = 3\nscore.es = "x"\n')
    with pytest.raises(ValueError, match=r"lab\.toml: ui\.score\.en must be a string"):
        load_from(tmp_path, "en")


def test_a_bilingual_entry_loads_each_language_under_the_same_key(tmp_path: Path) -> None:
    write_bilingual(tmp_path, "lab.toml", '[checks.x]\ntitle.en = "Builds {n}"\n'
                                          'title.es = "Construye {n}"\n')
    assert load_from(tmp_path, "en").text("checks.x.title", n="2") == "Builds 2"
    assert load_from(tmp_path, "es").text("checks.x.title", n="2") == "Construye 2"


def test_a_key_in_a_shared_file_and_a_bilingual_file_is_an_error_naming_both(
        tmp_path: Path) -> None:
    write_bilingual(tmp_path, "lab.toml", '[ui]\nscore.en = "Score"\nscore.es = "Nota"\n')
    (tmp_path / "en.toml").write_text('[ui]\nscore = "Score"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"lab\.toml: ui\.score is already defined in .*en\.toml"):
        load_from(tmp_path, "en")


def test_real_catalogues_have_every_key_in_every_language() -> None:
    assert missing_translations() == {}


def test_real_catalogues_use_the_same_placeholders_in_every_language() -> None:
    assert placeholder_mismatches() == []


def test_a_key_missing_from_one_language_is_reported(tmp_path: Path) -> None:
    directory = write_catalogues(
        tmp_path,
        en='[ui]\nscore = "Score"\nhint = "Hint"\n',
        es='[ui]\nscore = "Puntuación"\n',
    )
    assert missing_translations(directory) == {"es": ["ui.hint"]}


def test_an_empty_translation_is_reported(tmp_path: Path) -> None:
    directory = write_catalogues(
        tmp_path, en='[ui]\nscore = "Score"\n', es='[ui]\nscore = "  "\n'
    )
    assert missing_translations(directory) == {"es": ["ui.score"]}


def test_different_placeholders_between_languages_are_reported(tmp_path: Path) -> None:
    directory = write_catalogues(
        tmp_path,
        en='[details.timeout]\ntext = "Not done in {seconds} s."\n',
        es='[details.timeout]\ntext = "No terminó a tiempo."\n',
    )
    assert placeholder_mismatches(directory) == ["details.timeout.text"]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("pitfall_id", PITFALL_IDS)
def test_every_pitfall_has_title_explanation_and_section(lang: str, pitfall_id: str) -> None:
    catalogue = Catalogue.load(lang)
    for field in ("title", "explanation", "section"):
        assert catalogue.has(f"pitfalls.{pitfall_id}.{field}"), f"{lang}: {pitfall_id}.{field}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("check_id", LAB01_CHECK_IDS)
def test_every_lab01_check_has_title_and_hint(lang: str, check_id: str) -> None:
    catalogue = Catalogue.load(lang)
    assert catalogue.has(f"checks.{check_id}.title"), f"{lang}: {check_id}.title"
    assert catalogue.has(f"checks.{check_id}.hint"), f"{lang}: {check_id}.hint"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalogue_text_has_no_emoji(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    with_emoji = [key for key, text in catalogue.entries.items() if EMOJI.search(text)]
    assert with_emoji == [], f"{lang}: emoji in {with_emoji}"


def test_text_fills_named_parameters() -> None:
    catalogue = Catalogue.load("en")
    assert catalogue.text("details.timeout.text", seconds="2").startswith(
        "Your code did not finish within 2 s"
    )


def test_missing_key_error_names_key_and_language() -> None:
    with pytest.raises(KeyError, match=r"checks\.no-such-check\.title.*'es'"):
        Catalogue.load("es").text("checks.no-such-check.title")


def test_missing_parameter_error_names_the_parameter() -> None:
    with pytest.raises(KeyError, match="seconds"):
        Catalogue.load("en").text("details.timeout.text")


def test_has_tells_present_from_absent_keys() -> None:
    catalogue = Catalogue.load("en")
    assert catalogue.has("ui.hint")
    assert not catalogue.has("ui.no-such-label")


def test_unknown_language_error_names_the_choices() -> None:
    with pytest.raises(ValueError, match="en, es"):
        Catalogue.load("fr")


def test_catalogues_are_loaded_once_per_language() -> None:
    assert Catalogue.load("es") is Catalogue.load("es")
    assert Catalogue.load("en").lang == "en"


def test_catalogue_cannot_be_changed_after_loading() -> None:
    catalogue = Catalogue.load("en")
    with pytest.raises(dataclasses.FrozenInstanceError):
        catalogue.lang = "es"  # type: ignore[misc]
    with pytest.raises(TypeError):
        catalogue.entries["ui.hint"] = "changed"  # type: ignore[index]


def test_loader_rejects_a_value_that_is_not_a_string(tmp_path: Path) -> None:
    directory = write_catalogues(tmp_path, en="[ui]\nscore = 3\n", es='[ui]\nscore = "x"\n')
    with pytest.raises(ValueError, match=r"ui\.score must be a string"):
        load_from(directory, "en")


def test_loader_rejects_a_placeholder_that_is_not_a_plain_name(tmp_path: Path) -> None:
    directory = write_catalogues(tmp_path, en='[ui]\nscore = "{0}"\n', es='[ui]\nscore = "x"\n')
    with pytest.raises(ValueError, match="plain name"):
        load_from(directory, "en")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"GRADER_LANG": "es"}, "es"),
        ({"GRADER_LANG": "en", "LANG": "es_ES.UTF-8"}, "en"),
        ({"LANG": "es_AR.UTF-8"}, "es"),
        ({"LC_ALL": "C.UTF-8", "LANG": "es_ES.UTF-8"}, "en"),
        ({"LC_ALL": "", "LC_MESSAGES": "es_MX", "LANG": "en_US"}, "es"),
        ({"LANGUAGE": "es:en"}, "es"),
        ({"GRADER_LANG": "ES"}, "es"),
        ({"GRADER_LANG": "fr"}, "en"),
    ],
)
def test_default_language_follows_the_environment(
    environ: dict[str, str], expected: str
) -> None:
    assert default_language(environ) == expected


def test_default_language_reads_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRADER_LANG", "es")
    assert default_language() == "es"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, "3"),
        (1234567, "1234567"),
        (2.0, "2"),
        (-2.5, "-2.5"),
        (1 / 3, "0.333333"),
        (123456789.0, "1.23457e+08"),
        (1e-7, "1e-07"),
        (-0.0, "0"),
    ],
)
def test_format_number_keeps_six_significant_digits(value: float, expected: str) -> None:
    assert format_number(value) == expected


# --- every line the command line prints comes from the catalogue -------------------------

PRINTING_MODULES = ("cli.py", "results/console.py", "grading/batch.py",
                    "grading/shard.py")
GRADER = Path(__file__).resolve().parent.parent / "grader"


def _literal_words(node: ast.AST) -> list[str]:
    """The literal text with letters in a printed argument (a str, or an f-string's parts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if re.search(r"[A-Za-z]", node.value) else []
    if isinstance(node, ast.JoinedStr):
        return [word for part in node.values for word in _literal_words(part)]
    return []


def _printing_calls(tree: ast.AST) -> list[ast.Call]:
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in ("print", "write", "error", "exit"):
                calls.append(node)
    return calls


@pytest.mark.parametrize("module", PRINTING_MODULES)
def test_the_command_line_prints_no_text_of_its_own(module: str) -> None:
    tree = ast.parse((GRADER / module).read_text(encoding="utf-8"))
    english = [(call.lineno, word) for call in _printing_calls(tree)
               for arg in call.args for word in _literal_words(arg)]
    assert english == [], f"{module} prints text that is not in the catalogue: {english}"


@pytest.mark.parametrize("module", PRINTING_MODULES)
def test_every_catalogue_key_the_command_line_uses_exists_in_both_languages(module: str) -> None:
    source = (GRADER / module).read_text(encoding="utf-8")
    keys = set(re.findall(r"[\"'](cli\.[a-z_.-]+|ui\.[a-z_.-]+)[\"']", source))
    keys |= {f"cli.errors.{key}" for key in re.findall(r"UsageError\(\"([a-z_]+)\"", source)}
    for lang in LANGUAGES:
        catalogue = Catalogue.load(lang)
        missing = sorted(key for key in keys if not catalogue.has(key))
        assert missing == [], f"{module} uses {missing}, absent from {lang}"


# --- every message, rendered: Spanish all through, plurals that agree ---------------------------

# The placeholders that hold a count or another number: set to 1, the words after them must be
# singular. Every other placeholder gets a name-like sample.
NUMBER_PLACEHOLDERS = frozenset({
    "count", "total", "done", "written", "folders", "graded", "ungradable", "errors", "omitted",
    "limit", "nodes", "uses", "same", "distinct", "failed", "score", "max_score", "seconds",
    "full", "index", "todo", "next", "percent", "low", "high", "line", "cell", "cell_line",
    "delta", "duration", "mean", "median", "signal", "before", "forward", "grad", "value",
    "other", "target", "elapsed", "positions",
})


def _rendered(catalogue: Catalogue, key: str) -> str:
    """The message at key with every number set to 1 (what plurals hang on), other values 'x'."""
    return catalogue.text(key, **{name: "1" if name in NUMBER_PLACEHOLDERS else "x"
                                  for name in catalogue.placeholders(key)})


def test_every_spanish_message_is_spanish_outside_its_code() -> None:
    catalogue = Catalogue.load("es")
    found = {key: words for key in sorted(catalogue.entries)
             if (words := english_words(_rendered(catalogue, key)))}
    assert found == {}, f"English words in Spanish messages (write them in Spanish, or as `code`): {found}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_says_one_of_a_plural(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    found = {key: plurals for key in sorted(catalogue.entries)
             if (plurals := lonely_plurals(_rendered(catalogue, key)))}
    assert found == {}, f"{lang}: '1 <plural>' (use {{count:singular|plural}}): {found}"


def test_the_english_word_rule_catches_english_and_leaves_code_alone() -> None:
    assert english_words("(en value.py, line 13, in _leaf_backward)") == ["line", "in"]
    assert english_words("Con `graph = x = a*b`, a.grad vale 0,5 tras `out._backward()`") == []
    assert english_words("pytest exited with 3") == ["exited", "with"]


def test_the_plural_rule_catches_one_of_a_plural() -> None:
    assert lonely_plurals("1 entregas en 2 s") == ["1 entregas"]
    assert lonely_plurals("1 submissions, 1 nodes") == ["1 submissions", "1 nodes"]
    assert lonely_plurals("1 entrega en 1 s; 1,5 veces más") == []


@pytest.mark.parametrize(("text", "lang", "word"), [
    ("{count} {count:entrega|entregas}", "es", {"1": "1 entrega", "3": "3 entregas"}),
    ("{count} {count:node|nodes}", "en", {"1": "1 node", "0": "0 nodes"}),
])
def test_a_plural_field_picks_the_word_for_its_number(tmp_path: Path, text: str, lang: str,
                                                      word: dict[str, str]) -> None:
    other = "es" if lang == "en" else "en"
    directory = write_catalogues(tmp_path, **{lang: f'[ui]\nn = "{text}"\n',
                                              other: '[ui]\nn = "{count}"\n'})
    catalogue = load_from(directory, lang)
    for count, expected in word.items():
        assert catalogue.text("ui.n", count=count) == expected


def test_a_malformed_plural_field_is_an_error(tmp_path: Path) -> None:
    directory = write_catalogues(tmp_path, en='[ui]\nn = "{count:x}"\n', es='[ui]\nn = "{count}"\n')
    with pytest.raises(ValueError, match="singular|plural"):
        load_from(directory, "en")


@pytest.mark.parametrize(("lang", "value", "expected"), [
    ("en", 0.537883, "0.537883"), ("es", 0.537883, "0,537883"), ("es", 2, "2"),
    (None, 0.5, "0.5"), ("es", -0.0, "0"), ("es", 1e-7, "1e-07"),
])
def test_one_decimal_mark_per_language(lang: str | None, value: float, expected: str) -> None:
    assert format_number(value, lang) == expected


def test_no_spanish_message_writes_a_decimal_point_in_prose() -> None:
    catalogue = Catalogue.load("es")
    # Code spans keep Python's point, and so do versions ("Python 3.11"); "100.000" is a
    # Spanish thousands separator.
    prose = {key: re.sub(r"`[^`]*`|\{[^}]*\}|\d{1,3}(?:\.\d{3})+(?![\d,])"
                         r"|(?:Python|Ubuntu) \d+\.\d+", "", text)
             for key, text in catalogue.entries.items()}
    found = {key: text for key, text in prose.items() if re.search(r"\d\.\d", text)}
    assert found == {}, f"decimal points in Spanish prose (the comma is the Spanish mark): {found}"
