"""The docs' link check: every relative link and `#anchor` of the user documentation resolves,
and every docs/ page can be reached from README.md.

The pages are read as GitHub renders them (and, the labs' READMEs, in the student kit), so the
check applies GitHub's own anchor rule rather than building a site (docs/development.md says
why): a heading's anchor is its text lower-cased, with the characters github-slugger strips
removed and each space made `-`, and `-1`, `-2`, ... appended to a repeat. The rule is ported
from github-slugger (the library GitHub's renderer follows): `index.js`, `BananaSlug.slug` and
`slug`, and the Unicode categories of `script/generate-regex.mjs`; the slug tests below take
their cases from its `test/fixtures.json`.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_PAGES = ("README.md", "SECURITY.md", "CHANGES.md", "deploy/README.md", "demo/README.md")
# The Unicode general categories github-slugger strips (script/generate-regex.mjs, `ranges`):
# Other_Number, the punctuation but Connector_Punctuation, every symbol, Control, Private_Use,
# Format, Unassigned and the separators; a space becomes `-` and `-` itself is kept.
STRIPPED = {"No", "Pe", "Pf", "Pi", "Ps", "Po", "Pd", "Sm", "Sc", "Sk", "So",
            "Cc", "Co", "Cf", "Cn", "Zs", "Zl", "Zp"}
FENCE = re.compile(r"^ {0,3}(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
HTML_ANCHOR = re.compile(r"""<a\s+(?:name|id)=["']([^"']+)["']""")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
INLINE_LINK_TEXT = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def slug(text: str) -> str:
    """A heading's text as github-slugger makes its anchor, before the repeat suffix."""
    kept = (ch for ch in text.lower()
            if ch in " -" or unicodedata.category(ch) not in STRIPPED)
    return "".join(kept).replace(" ", "-")


class Slugger:
    """The anchors of one page in order: a repeated slug gets `-1`, `-2`, ... (BananaSlug)."""

    def __init__(self) -> None:
        self.occurrences: dict[str, int] = {}

    def slug(self, text: str) -> str:
        """The anchor of the next heading with this text."""
        original = result = slug(text)
        while result in self.occurrences:
            self.occurrences[original] += 1
            result = f"{original}-{self.occurrences[original]}"
        self.occurrences[result] = 0
        return result


def prose_lines(markdown: str) -> Iterable[tuple[int, str]]:
    """The page's lines outside fenced code blocks, numbered from 1."""
    fence = ""
    for number, line in enumerate(markdown.splitlines(), start=1):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1) == fence:
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        yield number, line


def heading_text(raw: str) -> str:
    """What GitHub shows of a heading: link text without its target, code without backticks."""
    return INLINE_LINK_TEXT.sub(r"\1", raw).replace("`", "")


def anchors(markdown: str) -> set[str]:
    """Every anchor a page defines: its headings' slugs and its HTML anchors."""
    slugger, found = Slugger(), set()
    for _, line in prose_lines(markdown):
        heading = HEADING.match(line)
        if heading:
            found.add(slugger.slug(heading_text(heading.group(2))))
        found.update(HTML_ANCHOR.findall(line))
    return found


def links(markdown: str) -> list[tuple[int, str]]:
    """The page's link and image targets with their line, outside code."""
    found = []
    for number, line in prose_lines(markdown):
        reference = REFERENCE.match(line)
        if reference:
            found.append((number, reference.group(1)))
            continue
        found.extend((number, target) for target in LINK.findall(CODE_SPAN.sub("", line)))
    return found


def checked_pages(root: Path) -> list[Path]:
    """The documentation the check reads: the top pages that exist, docs/, the labs' READMEs."""
    pages = [root / name for name in TOP_PAGES if (root / name).is_file()]
    pages += sorted((root / "docs").glob("*.md"))
    pages += sorted((root / "labs").glob("*/README*.md"))
    return pages


def broken_links(root: Path, pages: Iterable[Path]) -> list[str]:
    """One line per relative link whose file or `#anchor` does not exist."""
    problems, cache = [], {}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for number, target in links(text):
            if EXTERNAL.match(target):
                continue
            path_part, _, anchor = target.partition("#")
            where = f"{page.relative_to(root)}:{number}: {target}"
            destination = (page.parent / path_part).resolve() if path_part else page
            if not destination.exists():
                problems.append(f"{where}: no such file")
                continue
            if not anchor or destination.suffix != ".md" or destination.is_dir():
                continue
            if destination not in cache:
                cache[destination] = anchors(destination.read_text(encoding="utf-8"))
            if anchor not in cache[destination]:
                problems.append(f"{where}: no heading makes #{anchor}")
    return problems


def unreachable(root: Path) -> list[str]:
    """The docs/ pages that no chain of links from README.md reaches."""
    seen, todo = set(), [(root / "README.md").resolve()]
    while todo:
        page = todo.pop()
        if page in seen or page.suffix != ".md" or not page.is_file():
            continue
        seen.add(page)
        for _, target in links(page.read_text(encoding="utf-8")):
            path_part = target.partition("#")[0]
            if path_part and not EXTERNAL.match(target):
                todo.append((page.parent / path_part).resolve())
    return [page.relative_to(root).as_posix() for page in sorted((root / "docs").glob("*.md"))
            if page.resolve() not in seen]


# --- the slug rule, on github-slugger's own cases and on headings of these pages -------------


@pytest.mark.parametrize(("text", "expected"), [
    # github-slugger test/fixtures.json
    ("alpha", "alpha"),
    ("bravoCharlieDelta", "bravocharliedelta"),
    ("heading with a - dash", "heading-with-a---dash"),
    ("heading with an _ underscore", "heading-with-an-_-underscore"),
    ("heading with a period.txt", "heading-with-a-periodtxt"),
    ("exchange.bind_headers(exchange, routing [, bindCallback])",
     "exchangebind_headersexchange-routing--bindcallback"),
    ("apostrophe’s should be trimmed", "apostrophes-should-be-trimmed"),
    ("I ♥ unicode", "i--unicode"),
    ("en–dash", "endash"),
    ("😄 - an emoji", "---an-emoji"),
    (":ok_hand: Single", "ok_hand-single"),
    ("Привет non-latin 你好", "привет-non-latin-你好"),
    # headings of these pages
    ("Reference: `grade`", "reference-grade"),
    ("6. Gradescope and PrairieLearn instead of an LMS download",
     "6-gradescope-and-prairielearn-instead-of-an-lms-download"),
    ("Students: first steps", "students-first-steps"),
    ("Qué tienes que implementar", "qué-tienes-que-implementar"),
])
def test_slug_follows_github_slugger(text: str, expected: str) -> None:
    assert slug(heading_text(text)) == expected


def test_repeated_headings_get_numbered_anchors_as_github_slugger_gives_them() -> None:
    slugger = Slugger()
    # test/fixtures.json, "Repetition (1)" to "(5)" and "More repetition"
    assert [slugger.slug(text) for text in ("echo", "echo", "echo 1", "echo-1", "echo")] == [
        "echo", "echo-1", "echo-1-1", "echo-1-2", "echo-2"]
    slugger = Slugger()
    assert [slugger.slug(text) for text in ("foxtrot-1", "foxtrot", "foxtrot")] == [
        "foxtrot-1", "foxtrot", "foxtrot-2"]


def test_headings_and_links_inside_code_blocks_do_not_count() -> None:
    page = "# Real\n\n```sh\n# not a heading [x](missing.md)\n```\n`[y](gone.md)` [z](#real)\n"
    assert anchors(page) == {"real"}
    assert links(page) == [(6, "#real")]


# --- the committed documentation -------------------------------------------------------------


def test_every_relative_link_and_anchor_of_the_docs_resolves() -> None:
    pages = checked_pages(ROOT)
    assert {"README.md", "docs/instructors.md", "docs/development.md"} <= {
        page.relative_to(ROOT).as_posix() for page in pages}
    problems = broken_links(ROOT, pages)
    assert not problems, "broken links in the docs:\n" + "\n".join(problems)


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    missing = unreachable(ROOT)
    assert not missing, f"no chain of links from README.md reaches: {', '.join(missing)}"


def test_the_readme_is_a_page_for_users_and_the_wheel_describes_itself_with_it() -> None:
    """README.md stays short (what it is, the two commands, first steps, the lab table, links);
    the rest lives in docs/. The wheel's long description is the same page."""
    import tomllib

    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"README.md has {lines} lines; move what is not a first step to docs/"
    with (ROOT / "pyproject.toml").open("rb") as file:
        assert tomllib.load(file)["project"]["readme"] == "README.md"


def test_the_benchmarks_find_their_blocks_on_their_pages() -> None:
    """bench/performance.py and bench/test_suite_time.py write between these markers."""
    for page, marker in (("docs/performance.md", "performance"),
                         ("docs/development.md", "suite-times")):
        text = (ROOT / page).read_text(encoding="utf-8")
        assert text.count(f"<!-- {marker} -->") == 1 == text.count(f"<!-- /{marker} -->"), page


# --- the check fails: a copy of the docs with one thing broken --------------------------------


@pytest.fixture
def docs_copy(tmp_path: Path) -> Path:
    """A copy of the checked pages, every other top-level entry of the repository linked in."""
    folders = {Path(".")}
    for page in checked_pages(ROOT):
        relative = page.relative_to(ROOT)
        folders.update(relative.parents)
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, tmp_path / relative)
    for folder in folders:
        for entry in (ROOT / folder).iterdir():
            if not (tmp_path / folder / entry.name).exists():
                (tmp_path / folder / entry.name).symlink_to(entry)
    assert broken_links(tmp_path, checked_pages(tmp_path)) == [] and unreachable(tmp_path) == []
    return tmp_path


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first `old` of a page by `new`; `old` must be there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_link_to_a_missing_page_fails(docs_copy: Path) -> None:
    edit(docs_copy / "README.md", "(docs/students.md)", "(docs/student.md)")
    problems = broken_links(docs_copy, checked_pages(docs_copy))
    assert len(problems) == 1 and problems[0].startswith("README.md:"), problems
    assert problems[0].endswith("docs/student.md: no such file"), problems


def test_a_link_to_a_missing_anchor_fails(docs_copy: Path) -> None:
    edit(docs_copy / "docs" / "platforms.md", "#reference-lms-downloads-and-gradebooks",
         "#reference-lms-downloads")
    problems = broken_links(docs_copy, checked_pages(docs_copy))
    assert len(problems) == 1, problems
    assert problems[0].startswith("docs/platforms.md:"), problems
    assert problems[0].endswith("no heading makes #reference-lms-downloads"), problems


def test_a_renamed_heading_breaks_the_links_to_it(docs_copy: Path) -> None:
    edit(docs_copy / "docs" / "instructors.md", "## Reference: `grade`", "## Grading reference")
    problems = broken_links(docs_copy, checked_pages(docs_copy))
    assert problems and all("#reference-grade" in line for line in problems), problems


def test_a_page_nothing_links_to_fails(docs_copy: Path) -> None:
    (docs_copy / "docs" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    assert unreachable(docs_copy) == ["docs/orphan.md"]
