"""The student's loop: what a student sees while working through a lab with the public checks.

- Every pitfall a lab's README lists has a public check (the fixture meta-test then shows that
  check failing on a fixture of that pitfall).
- The README's table "What you implement" has one row per TODO of the stub, numbered as the
  stub's NotImplementedError messages number them.
- Written in order, TODO after TODO, the lab earns its public checks as it goes: the score
  never drops, correct code never meets a pitfall's hint (only "not written yet"), the unedited
  stub scores 0 and says where to start, and the finished solution scores full marks.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.stubgen import generate_stub
from grader.common.labs import LABS, Lab
from grader.common.todo_format import UNTOUCHED_TODO
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for
from grader.results.messages import is_not_written

README_LANGUAGES = {"README.md": "en", "README.es.md": "es"}


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table of a text, as rows of stripped cells (header first, rule dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def table_with_header(text: str, first_header: str) -> list[list[str]]:
    """The rows (without the header) of the first table whose first header cell is given."""
    for table in markdown_tables(text):
        if table[0][0] == first_header:
            return table[1:]
    raise AssertionError(f"no table whose first column is {first_header!r}")


def public_check_pitfalls(lab: Lab) -> dict[str, str]:
    """Public check id -> pitfall, read from the check markers of the lab's public tests."""
    found: dict[str, str] = {}
    for path in sorted(lab.public_tests.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("check", "check_case")):
                keywords = {k.arg: k.value for k in node.keywords}
                if isinstance(keywords.get("id"), ast.Constant):
                    found[keywords["id"].value] = keywords["pitfall"].value  # type: ignore[attr-defined]
    return found


def stub_text(lab: Lab) -> str:
    return (lab.student_dir / lab.main_file).read_text(encoding="utf-8")


def code_ids(cell: str) -> list[str]:
    """The `code` spans of a table cell."""
    return re.findall(r"`([^`]+)`", cell)


@pytest.mark.parametrize("readme", sorted(README_LANGUAGES))
@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_pitfall_the_readme_lists_has_a_public_check(lab: str, readme: str) -> None:
    text = (LABS[lab].student_dir / readme).read_text(encoding="utf-8")
    listed = [code_ids(row[0])[0] for row in table_with_header(text, "Id")]
    covered = set(public_check_pitfalls(LABS[lab]).values())
    assert listed, f"{lab}/{readme}: the table of pitfalls is empty"
    missing = [pitfall for pitfall in listed if pitfall not in covered]
    assert missing == [], f"{lab}/{readme}: pitfalls listed with no public check: {missing}"


@pytest.mark.parametrize("readme", sorted(README_LANGUAGES))
@pytest.mark.parametrize("lab", sorted(LABS))
def test_the_readme_numbers_the_todos_as_the_stub_does(lab: str, readme: str) -> None:
    text = (LABS[lab].student_dir / readme).read_text(encoding="utf-8")
    rows = table_with_header(text, "#")
    numbers = [int(found["number"]) for found in UNTOUCHED_TODO.finditer(stub_text(LABS[lab]))]
    assert [row[0] for row in rows] == [str(n) for n in numbers], (
        f"{lab}/{readme}: the table of TODOs must have one row per TODO of the stub, numbered "
        f"1 to {len(numbers)}")
    tree = ast.parse(stub_text(LABS[lab]))
    lines = stub_text(LABS[lab]).splitlines()
    for row, number in zip(rows, numbers, strict=True):
        line = next(i for i, text in enumerate(lines, start=1)
                    if f", TODO {number}: " in text and "raise NotImplementedError" in text)
        holder = min((node for node in ast.walk(tree)
                      if isinstance(node, ast.FunctionDef | ast.ClassDef)
                      and node.lineno <= line <= (node.end_lineno or node.lineno)),
                     key=lambda node: (node.end_lineno or node.lineno) - node.lineno)
        named = " ".join(code_ids(row[1]))
        outer = [node.name for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef | ast.ClassDef) and node is not holder
                 and node.lineno <= holder.lineno <= (node.end_lineno or node.lineno)]
        assert holder.name in named or any(name in named for name in outer), (
            f"{lab}/{readme}: TODO {number} is in `{holder.name}`, but its row names {named!r}")


# --- written in order, TODO after TODO ---------------------------------------------------------


def partial_submissions(lab: Lab, root: Path) -> list[Path]:
    """The lab's main file with the first k TODOs written, for k = 0 .. number of TODOs."""
    source = (lab.solution_dir / lab.main_file).read_text(encoding="utf-8")
    count = len(UNTOUCHED_TODO.findall(generate_stub(source, lab.name, lab.main_file)))
    folders = []
    for written in range(count + 1):
        folder = root / f"written-{written:02d}"
        folder.mkdir()
        (folder / lab.main_file).write_text(
            generate_stub(source, lab.name, lab.main_file, written=written), encoding="utf-8")
        folders.append(folder)
    return folders


@pytest.fixture(scope="module")
def written_in_order(tmp_path_factory: pytest.TempPathFactory) -> Any:
    runs: dict[str, list[dict[str, Any]]] = {}

    def run_for(name: str) -> list[dict[str, Any]]:
        if name not in runs:
            lab = LABS[name]
            paths = partial_submissions(lab, tmp_path_factory.mktemp(name))
            plan = GradingPlan(lab, suites_for(lab, hidden=False), "student-loop", "en")
            options = BatchOptions(out_dir=None, workers=max(2, os.cpu_count() or 1),
                                   shard_timeout_s=240)
            runs[name] = grade_class(plan, paths, options, lambda *_: None)
        return runs[name]

    return run_for


def failures(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["id"], (c["detail"] or {}).get("kind", "")) for c in doc["checks"]
            if c["status"] in ("failed", "error")]


@pytest.mark.parametrize("lab", sorted(LABS))
def test_correct_code_written_in_order_meets_no_pitfall(written_in_order: Any, lab: str) -> None:
    for written, doc in enumerate(written_in_order(lab)):
        assert doc["status"] == "graded", doc["reason"]
        blamed = [(check, kind) for check, kind in failures(doc)
                  if not is_not_written({"kind": kind})]
        assert blamed == [], f"{lab} with TODOs 1-{written} written: {blamed}"
        assert doc["pitfalls"] == [], f"{lab} with TODOs 1-{written} written: {doc['pitfalls']}"


@pytest.mark.parametrize("lab", sorted(LABS))
def test_each_todo_written_keeps_or_raises_the_score(written_in_order: Any, lab: str) -> None:
    docs = written_in_order(lab)
    scores = [doc["score"] for doc in docs]
    assert scores[0] == 0, f"{lab}: the unedited stub scores {scores[0]}"
    assert scores[-1] == docs[-1]["max_score"], f"{lab}: all TODOs written scores {scores[-1]}"
    assert scores == sorted(scores), f"{lab}: scores as the TODOs are written: {scores}"
    earning = [k for k in range(1, len(scores)) if scores[k] > scores[k - 1]]
    assert len(earning) >= (len(scores) - 1) / 2, (
        f"{lab}: only TODOs {earning} earn a public check when written: {scores}")


def test_lab04_neuron_alone_earns_its_checks(written_in_order: Any) -> None:
    # TODOs 1-4: Module.zero_grad and Neuron; Layer, MLP and train_xor not written yet.
    doc = written_in_order("lab04_xor")[4]
    passed = {c["id"] for c in doc["checks"] if c["status"] == "passed"}
    assert {"example-module-zero-grad", "example-neuron-output", "example-neuron-parameters",
            "example-neuron-gradients"} <= passed, passed


@pytest.mark.parametrize("lab", sorted(LABS))
def test_the_first_message_on_the_stub_says_where_to_start(written_in_order: Any,
                                                           lab: str) -> None:
    stub = written_in_order(lab)[0]
    first = next(c for c in stub["checks"] if c["status"] != "passed")
    assert first["status"] == "failed" and first["detail"]["kind"] == "not-written", first
    assert "Start with TODO 1 of " in first["hint"], first["hint"]
    # the hint names the TODO the check needs (issue 35), when it is not TODO 1 itself
    todo = first["detail"]["params"]["todo"]
    assert todo == 1 or first["hint"].startswith(f"This check needs TODO {todo} of "), first["hint"]
    assert "What you implement" in first["section"], first["section"]


@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_not_written_hint_names_its_todo_in_both_languages(written_in_order: Any,
                                                                 lab: str) -> None:
    """Issue 35: on the stub and on every partly written lab, each check that ran into a TODO
    has a hint naming that TODO and its file (not only the first screen's check)."""
    from grader.results.i18n import LANGUAGES, Catalogue
    from grader.results.messages import localise_document

    seen = 0
    for written, doc in enumerate(written_in_order(lab)):
        for lang in LANGUAGES:
            for check in localise_document(doc, Catalogue.load(lang))["checks"]:
                if (check.get("detail") or {}).get("kind") != "not-written":
                    continue
                seen += 1
                todo, file = check["detail"]["params"]["todo"], check["detail"]["params"]["file"]
                named = rf"\bTODO {todo}\b[^.]* {re.escape(file)}"
                assert re.search(named, check["hint"]), (lab, written, lang, check["id"],
                                                         check["hint"])
    assert seen, f"{lab}: no check ran into a TODO"
