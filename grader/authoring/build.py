"""`make labs`: write every lab's stubs and notebook from the reference solutions, the
docs' generated tables (grader.authoring.readme_tables.PAGES), and the checks column of
docs/contract-clauses.md.

Side: trusted (authoring). Nothing here grades; `build-labs --check` reports drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from grader.authoring import contract_clauses, operation_points, readme_tables
from grader.authoring.notebooks import lab_notebook, notebook_name, notebook_text
from grader.authoring.stubgen import generate_stub
from grader.common.labs import LABS


class DeclaredCheck(readme_tables.DeclaredCheck, contract_clauses.ClauseHolder, Protocol):
    """What the generated files read of a declared check (a marker.CheckSpec)."""


Declared = Mapping[str, Sequence[DeclaredCheck]]  # lab name -> its public and hidden checks


def _solution_files(repo_root: Path) -> list[Path]:
    """Return every solutions/<lab>/*.py file, sorted, skipping hidden and private folders."""
    return sorted(
        path
        for path in (repo_root / "solutions").glob("*/*.py")
        if not path.parent.name.startswith((".", "_"))
    )


def _read_optional(path: Path) -> str:
    """Return a UTF-8 text file's content, or '' if there is no such file."""
    return path.read_bytes().decode("utf-8") if path.is_file() else ""


def _notebooks(repo_root: Path, stubs: dict[Path, str]) -> dict[Path, str]:
    """Return labs/<lab>/<lab>.ipynb, made from the stub, for every registered lab with one.

    A notebook stands for the lab's main file (``lab.files[0]``; see grader.authoring.notebooks), so a
    lab gets one only once it is in the registry and its main file has a solution.
    """
    notebooks: dict[Path, str] = {}
    for lab in LABS.values():
        folder = repo_root / "labs" / lab.name
        stub = stubs.get(folder / lab.main_file)
        if stub is None:
            continue
        readme_en = _read_optional(folder / "README.md")
        readme_es = _read_optional(folder / "README.es.md")
        notebook = lab_notebook(lab.name, stub, readme_en, readme_es)
        notebooks[folder / notebook_name(lab.name)] = notebook_text(notebook)
    return notebooks


def _readme(repo_root: Path, declared: Declared | None) -> dict[Path, str]:
    """Return each page of readme_tables.PAGES (README.md, docs/how-it-works.md) with its
    generated tables made again, when there are checks to count; a page that is absent (a tree
    of solutions alone has none) is skipped."""
    if declared is None:
        return {}
    pages = {}
    for page, tables in readme_tables.PAGES.items():
        path = repo_root / page
        if path.is_file():
            pages[path] = readme_tables.with_tables(path.read_bytes().decode("utf-8"), repo_root,
                                                    declared, tables, page)
    return pages


README_LANGUAGES = (("README.md", "en"), ("README.es.md", "es"))


def _lab_readmes(repo_root: Path, declared: Declared | None) -> dict[Path, str]:
    """Return each lab README (both languages) with its operation-points table made again from
    the lab's declared checks; a README without the table's markers is left out."""
    if declared is None:
        return {}
    found: dict[Path, str] = {}
    for lab in LABS.values():
        for name, lang in README_LANGUAGES:
            path = repo_root / "labs" / lab.name / name
            text = _read_optional(path)
            if operation_points.TABLE in text:
                found[path] = operation_points.with_operation_points(
                    text, declared.get(lab.name, ()), lang)
    return found


def _contract(repo_root: Path, declared: Declared | None) -> dict[Path, str]:
    """Return docs/contract-clauses.md with its checks column made again from the checks'
    clause keys, when there are checks and the document exists."""
    path = repo_root / contract_clauses.DOCUMENT
    if declared is None or not path.is_file():
        return {}
    return {path: contract_clauses.with_checks(path.read_bytes().decode("utf-8"), declared)}


def build_labs(repo_root: Path, check: bool = False,
               declared: Declared | None = None) -> list[str]:
    """Generate labs/<lab>/<file> from every solutions/<lab>/<file>.py, the lab notebooks and,
    given every lab's ``declared`` checks, the generated tables of README.md and
    docs/how-it-works.md and the checks column
    of docs/contract-clauses.md (grader.authoring.contract_clauses).

    Every registered lab whose main file has a solution also gets labs/<lab>/<lab>.ipynb,
    built from that file's stub and the titles of the lab's READMEs (grader.authoring.notebooks).
    The README's tables (grader.authoring.readme_tables) count the checks the caller read
    (authoring does not import grading: the command line passes
    grader.grading.checking.declared's) and the fixtures of tests/fixtures/.
    Returns the repo-relative paths of the files that are missing or differ from what the
    generator makes. With ``check`` nothing is written; without it exactly those files are
    (re)written and files already up to date are left untouched. Everything is generated before
    anything is written, so a MarkerError (or NotebookError, ReadmeTableError,
    ContractClauseError) leaves the tree as it was.
    """
    stubs: dict[Path, str] = {}
    for solution in _solution_files(repo_root):
        lab = solution.parent.name
        source = solution.read_bytes().decode("utf-8")
        relative = solution.relative_to(repo_root).as_posix()
        stubs[repo_root / "labs" / lab / solution.name] = generate_stub(source, lab, relative)
    generated = {**stubs, **_notebooks(repo_root, stubs), **_readme(repo_root, declared),
                 **_lab_readmes(repo_root, declared), **_contract(repo_root, declared)}

    outdated: list[str] = []
    for target, text in generated.items():
        current = target.read_bytes().decode("utf-8", errors="replace") if target.exists() else None
        if current == text:
            continue
        outdated.append(target.relative_to(repo_root).as_posix())
        if not check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
    return outdated
