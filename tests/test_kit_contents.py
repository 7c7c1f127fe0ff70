"""What the student kit carries: the import closure of what it runs, a catalogue without any
hidden check's text, and requirements that are exactly what it imports."""

from __future__ import annotations

import functools
import html
import json
import re
import tomllib
import zipfile
from pathlib import Path

import pytest

from grader.authoring.kit_contents import (
    KIT_ENTRY_MODULES,
    ClosureError,
    declared_check_ids,
    import_closure,
    kit_closure,
    normalise,
    public_catalogue,
)
from grader.authoring.student_kit import release_closure, release_labs
from grader.common.labs import LABS, PACKAGE_DIR
from grader.grading import shard
from grader.grading.checking.declared import declared_checks
from grader.grading.child.graph import OPERATIONS
from grader.results.i18n import BILINGUAL_FOLDER, LANGUAGES, Catalogue


@pytest.fixture(scope="module")
def kits(built_kit) -> dict[str, tuple[Path, Path]]:
    """release -> (kit folder, kit zip), for every release (the run's kits: tests/conftest.py)."""
    return {release: built_kit(release) for release in LABS}


# -- the closure, on a package made for the purpose -------------------------------------------

def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "grader" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "grader"


def test_the_closure_follows_module_and_function_level_imports_but_not_marked_ones(
        tmp_path: Path) -> None:
    package = _package(tmp_path, {
        "__init__.py": "",
        "__main__.py": "from grader import cli\n",
        "cli.py": ("import jinja2\nfrom grader.sub import used\n"
                   "def check():\n    from grader import lazy\n"
                   "def kit():\n    from grader import authoring  # not in the student kit: authoring\n"),
        "sub/__init__.py": "",
        "sub/used.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from grader import typing_only\n",
        "lazy.py": "import json\n",
        "authoring.py": "",
        "typing_only.py": "",
        "unused.py": "",
    })
    closure = import_closure([], ["grader.__main__"], package)
    names = sorted(path.relative_to(package).as_posix() for path in closure.files)
    assert names == ["__init__.py", "__main__.py", "cli.py", "lazy.py", "sub/__init__.py",
                     "sub/used.py"], names
    assert closure.external == {"jinja2"}, closure.external
    assert closure.missing == frozenset(), closure.missing


def test_a_module_level_import_cannot_be_marked_out_of_the_kit(tmp_path: Path) -> None:
    package = _package(tmp_path, {"__init__.py": "",
                                  "cli.py": "from grader import x  # not in the student kit: no\n",
                                  "x.py": ""})
    with pytest.raises(ClosureError, match="module-level"):
        import_closure([package / "cli.py"], [], package)


def test_an_import_of_a_module_the_package_lacks_is_reported(tmp_path: Path) -> None:
    package = _package(tmp_path, {"__init__.py": "VERSION = 1\n",
                                  "cli.py": "import grader.gone\nfrom grader.gone2 import name\n"
                                            "from grader import gone3, VERSION\n"})
    closure = import_closure([package / "cli.py"], [], package)
    assert closure.missing == {"grader.gone", "grader.gone2", "grader.gone3"}, closure.missing


def test_the_kit_entry_points_include_every_plugin_the_check_pytest_loads() -> None:
    assert set(shard.PLUGINS) <= set(KIT_ENTRY_MODULES), shard.PLUGINS


# -- the built kits --------------------------------------------------------------------------

def test_each_kit_carries_exactly_the_modules_its_checks_import(kits) -> None:
    for release, (folder, _) in kits.items():
        expected = {path.relative_to(PACKAGE_DIR).as_posix()
                    for path in release_closure(release).files}
        carried = {path.relative_to(folder / "grader").as_posix()
                   for path in (folder / "grader").rglob("*.py")}
        assert carried == expected, (release, sorted(carried ^ expected))


def test_nothing_the_kit_runs_imports_a_module_the_kit_lacks(kits) -> None:
    """The closure computed again inside each built kit, on the kit's own files: every module of
    the grader it imports is there (module-level and function-level imports alike)."""
    for release, (folder, _) in kits.items():
        suites = [folder / "labs" / lab.name / "tests" for lab in release_labs(release)]
        closure = kit_closure(suites, folder / "grader")
        assert closure.missing == frozenset(), (release, sorted(closure.missing))
        assert "authoring" not in {path.relative_to(folder / "grader").parts[0]
                                   for path in closure.files}


def test_kit_requirements_list_exactly_the_distributions_the_kit_imports(kits) -> None:
    for release, (folder, _) in kits.items():
        imported = kit_closure([folder / "labs" / lab.name / "tests"
                                for lab in release_labs(release)],
                               folder / "grader").distributions()
        lines = (folder / "requirements.txt").read_text(encoding="utf-8").split()
        listed = {normalise(re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0]) for line in lines}
        assert listed <= imported, f"{release}: installs what it never imports: {listed - imported}"
        assert {"pytest", "pytest-json-report", "nbformat", "jinja2"} <= listed, listed


# -- nothing hidden --------------------------------------------------------------------------

def _hidden_texts() -> tuple[set[str], dict[str, str]]:
    """Every hidden check's id, and its title and hint in each language (those that are not
    also the text of a public check)."""
    declared = [check for lab in LABS.values() for check in declared_checks(lab)]
    hidden = {check.id for check in declared if check.visibility == "hidden"}
    public = {check.id for check in declared if check.visibility == "public"}
    texts: dict[str, str] = {}
    for lang in LANGUAGES:
        catalogue = Catalogue.load(lang)
        shown = {catalogue.text_template(f"checks.{check}.{part}")
                 for check in public for part in ("title", "hint")}
        for check in hidden:
            for part in ("title", "hint"):
                text = catalogue.text_template(f"checks.{check}.{part}")
                if text not in shown:
                    texts[f"{lang}: checks.{check}.{part}"] = text
    return hidden, texts


def _operation_names() -> set[str]:
    """The operations the scenarios take by name (`sub-number-on-left` and the like, from the
    one vocabulary in the kit's graph helpers): a hidden check named after its operation
    shares the name."""
    return set(OPERATIONS)


def notebook_shown_text(notebook: dict) -> str:  # type: ignore[type-arg]
    """What a notebook shows: every cell's source and every output's text, HTML and plain."""
    parts = []
    for cell in notebook.get("cells", []):
        parts.append("".join(cell.get("source", "")))
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            parts += ["".join(output.get("text", "")), "".join(data.get("text/html", "")),
                      "".join(data.get("text/plain", ""))]
    return html.unescape(html.unescape("\n".join(parts)))  # an iframe's srcdoc: escaped twice


@functools.lru_cache(maxsize=1)
def _hidden_ids_and_texts() -> tuple[frozenset[str], re.Pattern[str], dict[str, str]]:
    hidden, texts = _hidden_texts()
    ids = frozenset(hidden - _operation_names())
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(ids))) + r")(?![\w-])")
    return ids, pattern, texts


def hidden_text_found(body: str) -> list[tuple[str, str]]:
    """The hidden checks' ids, titles and hints (each language) that `body` holds."""
    _ids, pattern, texts = _hidden_ids_and_texts()
    return ([("id", match) for match in pattern.findall(body)]
            + [("text", key) for key, text in texts.items() if text in body])


def test_no_hidden_check_id_title_or_hint_is_in_any_built_kit(kits) -> None:
    ids, _pattern, texts = _hidden_ids_and_texts()
    assert len(ids) > 50 and texts, "the hidden suites declare no checks?"
    found = []
    for release, (_, archive) in kits.items():
        with zipfile.ZipFile(archive) as bundle:
            for name in bundle.namelist():
                body = bundle.read(name).decode("utf-8", errors="replace")
                if name.endswith(".ipynb"):  # cells and outputs as shown, not JSON-escaped
                    body += "\n" + notebook_shown_text(json.loads(body))
                found += [(release, name, *what) for what in hidden_text_found(body)]
                found += [(release, name, "file name") for check in ids if check in name]
    assert found == [], f"hidden checks' texts in the kit: {found[:10]}"


def test_the_kit_catalogue_keeps_every_public_check_and_every_shared_text(kits) -> None:
    folder, _ = kits["lab02_ops"]
    where = Path("results") / "catalogue" / BILINGUAL_FOLDER / "lab02_ops.toml"
    original = tomllib.loads((PACKAGE_DIR / where).read_text(encoding="utf-8"))
    kit = tomllib.loads((folder / "grader" / where).read_text(encoding="utf-8"))
    public = {check.id for check in declared_checks(LABS["lab02_ops"], hidden=False)}
    assert set(kit["checks"]) == public, sorted(set(kit["checks"]) ^ public)
    # A check's table holds all its languages: every kept check keeps every translation.
    assert kit["checks"] == {check: original["checks"][check] for check in public}
    assert {key: value for key, value in kit.items() if key != "checks"} == \
        {key: value for key, value in original.items() if key != "checks"}


def test_declared_ids_read_from_the_source_are_the_ids_pytest_sees() -> None:
    for lab in LABS.values():
        from_source = declared_check_ids(lab.public_tests.glob("*.py"))
        assert from_source == {check.id for check in declared_checks(lab, hidden=False)}, lab.name


def test_filtering_drops_the_hidden_tables_and_refuses_a_file_it_would_change_otherwise(
        tmp_path: Path) -> None:
    source = tmp_path / "lab.toml"
    source.write_text('# -- hidden checks: x\n[pitfalls.p]\ntitle.en = "P"\ntitle.es = "E"\n\n'
                      '[checks.public]\ntitle.en = "shown"\ntitle.es = "visible"\n\n'
                      '[checks.secret]\ntitle.en = "hidden"\ntitle.es = "oculta"\n'
                      'hint.en = "h"\nhint.es = "p"\n', encoding="utf-8")
    kept = public_catalogue(source, {"public"}, "lab.toml")
    assert "secret" not in kept and "hidden" not in kept and "oculta" not in kept, kept
    assert "shown" in kept and "visible" in kept, kept
    source.write_text('[checks.public]\ntitle = """\n[checks.secret]\n"""\n', encoding="utf-8")
    with pytest.raises(ClosureError):
        public_catalogue(source, {"public"}, "lab.toml")


# -- what the kit's READMEs say -----------------------------------------------------------------

def test_every_make_check_a_kit_readme_shows_checks_the_lab_it_is_written_for(kits) -> None:
    """In the lab02 kit, `make check` checks lab02: lab01's README must not offer it for lab01."""
    for release, (folder, _) in kits.items():
        for readme in sorted(folder.rglob("README*.md")):
            owner = readme.parent.name if readme.parent.parent.name == "labs" else release
            text = readme.read_text(encoding="utf-8")
            for line in re.findall(r"^\s*make check\b[^\n]*", text, re.MULTILINE):
                command = line.split("#", 1)[0]
                named = re.search(r"\bLAB=(\S+)", command)
                checked = named[1] if named else release
                if checked != "<lab>":
                    assert checked == owner, (f"{readme.relative_to(folder)} in the {release} "
                                              f"kit: `{line.strip()}` checks {checked}")


def test_every_child_operation_calls_a_method_of_the_full_engine() -> None:
    """operation_method reads each row's written form; lab02's solution defines them all, and
    lab01's stub only the ones lab01 teaches."""
    from grader.authoring.kit_contents import class_methods, operation_method
    from grader.common.labs import LABS
    from grader.grading.child.graph import OPERATIONS

    engine = class_methods([(LABS["lab02_ops"].solution_dir / "value.py").read_text(encoding="utf-8")])
    methods = {name: operation_method(operation.code) for name, operation in OPERATIONS.items()}
    assert set(methods.values()) <= engine, set(methods.values()) - engine
    assert methods["add-number-on-left"] == "__radd__" and methods["neg"] == "__neg__"
    stub = class_methods([(LABS["lab01_graph"].student_dir / "value.py").read_text(encoding="utf-8")])
    assert {name for name, method in methods.items() if method in stub} == {
        "add", "mul", "add-number-on-right", "add-number-on-left", "mul-number-on-right",
        "mul-number-on-left"}


def test_the_kit_copy_of_the_child_table_runs_with_the_kept_rows_only() -> None:
    from grader.authoring.kit_contents import child_operations_source
    from grader.common.labs import PACKAGE_DIR

    source = (PACKAGE_DIR / "grading" / "child" / "graph.py").read_text(encoding="utf-8")
    namespace: dict = {}
    kept = child_operations_source(source, {"__add__", "__mul__"})
    exec(compile(kept, "graph.py", "exec"), namespace)
    assert set(namespace["OPERATIONS"]) == {"add", "mul", "add-number-on-right",
                                            "mul-number-on-right"}
    assert "sigmoid" not in namespace and "sigmoid" not in namespace["HELPER_NAMES"]
    assert all(name in namespace for name in namespace["HELPER_NAMES"])
