"""One vocabulary per language, and references students can open (docs/glossary.md).

- No student-facing text (catalogues, lab READMEs, notebook intros) uses a variant the
  glossary rules out, such as "calificador" beside "corrector".
- Every reference to a section, `section “…”` in English and `sección «…»` in Spanish, names a
  section of the course chapter (its real Spanish heading, or the English title the glossary
  gives it) or a heading of a lab README in the same language; nothing points at chapters,
  phases or functions the kit does not have.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.authoring.notebooks import INTRO_EN, INTRO_ES
from grader.common.labs import LABS
from grader.results.i18n import CATALOGUE_DIR, catalogue_files

REPO_ROOT = Path(__file__).resolve().parent.parent

GLOSSARY = REPO_ROOT / "docs" / "glossary.md"
REFERENCE = {"en": re.compile(r"section “([^”]+)”"), "es": re.compile(r"sección «([^»]+)»")}
README = {"en": "README.md", "es": "README.es.md"}
# Material the course chapter mentions but the kit does not hold.
STALE = re.compile(r"Chapter 0[2-9]|Cap[ií]tulo 0[2-9]|\bPhase \d|\bFase \d|build_topo|\bCh\. \d"
                   r"|\bCap\. \d|Worked backprop|Backprop resuelto")
CHAPTER = "01-grafos-de-computo.es.txt"


def glossary_tables() -> list[list[list[str]]]:
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*GLOSSARY.read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-:") for c in cells):
                current.append(cells)
        elif current:
            tables.append(current[1:])
            current = []
    return tables


TERMS, SECTIONS = glossary_tables()
CHAPTER_TITLES = {"es": {row[0] for row in SECTIONS}, "en": {row[1] for row in SECTIONS}}
NEVER = {lang: sorted({v.strip() for row in TERMS for v in row[column].split(",") if v.strip()})
         for lang, column in (("en", 2), ("es", 3))}


def texts(lang: str) -> dict[str, str]:
    """Every student-facing text of a language, by where it comes from."""
    found = {str(path.relative_to(REPO_ROOT)): "\n".join(entries.values())
             for path, entries in catalogue_files(CATALOGUE_DIR, lang).items()}
    for lab in LABS.values():
        path = lab.student_dir / README[lang]
        found[str(path.relative_to(REPO_ROOT))] = path.read_text(encoding="utf-8")
    found["notebook intro"] = INTRO_EN if lang == "en" else INTRO_ES
    return found


def headings(path: Path) -> set[str]:
    return {line.lstrip("#").strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


def readme_headings(source: str, lang: str) -> set[str]:
    """The README headings a text may refer to: its own lab's, or any lab's for shared texts."""
    labs = [lab for lab in LABS.values() if f"/{lab.name}" in f"/{source}"] or list(LABS.values())
    return set().union(*(headings(lab.student_dir / README[lang]) for lab in labs))


@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_text_uses_a_variant_the_glossary_rules_out(lang: str) -> None:
    found = []
    for source, text in texts(lang).items():
        for variant in NEVER[lang]:
            if re.search(rf"(?<![\w`-]){re.escape(variant)}(?![\w`-])", text, re.IGNORECASE):
                found.append((source, variant))
    assert found == [], f"variants docs/glossary.md rules out: {found}"


def test_spanish_never_runs_the_preposition_into_a_variable() -> None:
    found = [(source, match.group(0)) for source, text in texts("es").items()
             for match in re.finditer(r"\b(?:da|dan|pasa|suma) a [a-e]\b(?![.\w])", text)]
    assert found == [], f"write a.grad = ... or 'el gradiente de a' instead: {found}"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_section_reference_names_an_existing_heading(lang: str) -> None:
    unresolved = []
    for source, text in texts(lang).items():
        known = CHAPTER_TITLES[lang] | readme_headings(source, lang)
        unresolved += [(source, title) for title in REFERENCE[lang].findall(text)
                       if title not in known]
    assert unresolved == [], f"references to no chapter section or README heading: {unresolved}"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_nothing_points_at_material_the_kit_does_not_have(lang: str) -> None:
    stale = [(source, match.group(0)) for source, text in texts(lang).items()
             for match in STALE.finditer(text)]
    assert stale == [], f"references to chapters, phases or names students do not have: {stale}"


@pytest.mark.parametrize("lab", sorted(LABS))
@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_pitfall_row_of_a_readme_says_where_to_read(lab: str, lang: str) -> None:
    text = (LABS[lab].student_dir / README[lang]).read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if re.match(r"\| `[a-z][a-z-]+` \|", line)]
    missing = [row.split("|")[1].strip() for row in rows
               if not REFERENCE[lang].search(row.split("|")[-2])]
    assert rows and missing == [], f"{lab}/{README[lang]}: rows without a reference: {missing}"


def _chapter() -> Path | None:
    """The course chapter, in the shared folder beside the repository, if it is there."""
    for folder in REPO_ROOT.parents:
        candidate = folder / "shared" / "course" / CHAPTER
        if candidate.is_file():
            return candidate
    return None


def test_the_spanish_titles_are_the_chapter_headings() -> None:
    chapter = _chapter()
    if chapter is None:
        pytest.skip(f"the course chapter {CHAPTER} is not beside the repository")
    # The chapter's headings end with a pilcrow, as its web page renders them.
    real = {line.rstrip("¶").strip() for line in chapter.read_text(encoding="utf-8").splitlines()
            if line.endswith("¶")}
    assert CHAPTER_TITLES["es"] <= real, sorted(CHAPTER_TITLES["es"] - real)
