"""The meta-test: every buggy fixture fails exactly the checks that name its pitfall.

For each lab with fixtures (`tests/fixtures/<lab>/<defect>/expected.toml`), the fixtures,
the reference solution and the unedited stub are graded in one `grade_class` call; each
fixture then proves its checks: the hidden checks it fails are exactly `failed`, the public
ones exactly `public_failed`, every failure names `pitfall`, nothing is a grader error,
correct engines score full marks and the stub scores zero. Coverage tests make sure no hidden
check, no public check and no pitfall goes unproven: every public check fails on a fixture of
its own pitfall, so the public checks a student runs are shown to catch the bug they name.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Callable
from typing import Any

import pytest
from graded_classes import (
    ALL_FIXTURES,
    FEEDBACK_ROW,
    FIXTURES,
    LAB_FOLDERS,
    ROOT,
    VERDICTS,
    Fixture,
    LabRun,
)
from structure_variants import VARIANTS, lost_checks, structural_failure, structure_checks, weights

from grader.authoring.readme_tables import HEADLINE_PITFALLS, lab_table, points_by_pitfall
from grader.common.labs import LABS
from grader.grading.checking.declared import declared_by_lab
from grader.results.messages import names_a_pitfall
from grader.results.score_document import parse, to_json


def fixture_params(fixtures: list[Fixture]) -> list[Any]:
    """pytest params named by fixture."""
    return [pytest.param(f, id=f.id) for f in fixtures]


# `graded(lab)` (tests/conftest.py): the lab's documents, graded once per session on first use.


def fixture_doc(graded: Callable[[str], LabRun], fixture: Fixture) -> dict[str, Any]:
    """The fixture's document, which must be a graded one."""
    doc = graded(fixture.folder).fixtures[fixture.name]
    assert doc["status"] == "graded", f"{fixture.id} was not graded: {doc['reason']}"
    return doc


def ids_where(doc: dict[str, Any], status: str, visibility: str | None = None) -> list[str]:
    """Ids of the document's checks with this status (and visibility)."""
    return [c["id"] for c in doc["checks"] if c["status"] == status
            and (visibility is None or c["visibility"] == visibility)]


# --- expected.toml ---------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", fixture_params(ALL_FIXTURES))
def test_expected_toml_is_well_formed(fixture: Fixture) -> None:
    expected = fixture.expected
    keys = {"description", "pitfall", "failed", "public_failed"}
    assert set(expected) == keys or (fixture.correct and set(expected) == keys - {"public_failed"}), (
        f"{fixture.id}: expected.toml has {sorted(expected)}; a buggy fixture names "
        f"{sorted(keys)} (public_failed: the public checks it fails, [] if none)")
    assert isinstance(expected["description"], str) and expected["description"].strip()
    for key in ("failed", "public_failed"):
        listed = expected.get(key, [])
        assert isinstance(listed, list) and all(isinstance(c, str) for c in listed), listed
    if fixture.correct:
        assert (expected["pitfall"], expected["failed"], expected.get("public_failed", [])) == (
            "", [], []), expected
    else:
        # the public checks count in the grade too: a bug only a public check sees still fails
        assert expected["pitfall"] and (expected["failed"] or expected["public_failed"]), (
            f"a buggy fixture names its pitfall and the checks it fails: {expected}")


# --- each fixture proves its checks ----------------------------------------------------------


@pytest.mark.parametrize("fixture", fixture_params(ALL_FIXTURES))
def test_fixture_fails_exactly_its_hidden_checks(
    graded: Callable[[str], LabRun], fixture: Fixture
) -> None:
    doc = fixture_doc(graded, fixture)
    got = set(ids_where(doc, "failed", "hidden"))
    expected = set(fixture.expected["failed"])
    assert got == expected, (
        f"{fixture.id}: failed hidden checks got {sorted(got)}, expected {sorted(expected)} "
        f"(unexpected: {sorted(got - expected)}, missing: {sorted(expected - got)}; "
        f"not run: {ids_where(doc, 'not-run', 'hidden')})")


@pytest.mark.parametrize("fixture", fixture_params(ALL_FIXTURES))
def test_fixture_fails_exactly_its_public_checks(
    graded: Callable[[str], LabRun], fixture: Fixture
) -> None:
    doc = fixture_doc(graded, fixture)
    got = ids_where(doc, "failed", "public")
    expected = fixture.expected.get("public_failed", [])
    assert sorted(got) == sorted(expected), (
        f"{fixture.id}: failed public checks got {got}, expected {expected}; if the change is "
        f"meant, write public_failed = {got!r} in its expected.toml")


# The random-graph checks (random=True), which defer to the fixed checks marked random_defers.
RANDOM_CHECKS = {check.id for checks in declared_by_lab().values() for check in checks
                 if check.random}


@pytest.mark.parametrize("fixture", fixture_params(ALL_FIXTURES))
def test_every_failure_names_the_fixture_pitfall(
    graded: Callable[[str], LabRun], fixture: Fixture
) -> None:
    doc = fixture_doc(graded, fixture)
    pitfall = fixture.expected["pitfall"]
    blamed = {c["id"]: c["pitfall"] for c in doc["checks"]
              if c["status"] == "failed" and c["pitfall"] != pitfall}
    random = [check for check in blamed if check in RANDOM_CHECKS]
    advice = (f"; {random[0]} is a random check: if a fixed check this fixture fails names the "
              "bug, mark that check random_defers=True (docs/writing-checks.md)" if random else "")
    assert blamed == {}, (f"{fixture.id}: checks blaming another pitfall than {pitfall!r}: "
                          f"{blamed}{advice}")
    expected = [pitfall] if pitfall else []
    assert doc["pitfalls"] == expected, (
        f"{fixture.id}: pitfalls got {doc['pitfalls']}, expected {expected}")


@pytest.mark.parametrize("fixture", fixture_params(ALL_FIXTURES))
def test_no_check_is_a_grader_error(graded: Callable[[str], LabRun], fixture: Fixture) -> None:
    doc = fixture_doc(graded, fixture)
    errors = {c["id"]: c["detail"] for c in doc["checks"] if c["status"] == "error"}
    assert errors == {}, f"{fixture.id}: grader errors {errors}"


@pytest.mark.parametrize("fixture", fixture_params([f for f in ALL_FIXTURES if f.correct]))
def test_correct_engine_scores_full_marks(
    graded: Callable[[str], LabRun], fixture: Fixture
) -> None:
    doc = fixture_doc(graded, fixture)
    assert doc["score"] == doc["max_score"] > 0, (
        f"{fixture.id}: got {doc['score']} / {doc['max_score']}; not passed: "
        f"{[(c['id'], c['status']) for c in doc['checks'] if c['status'] != 'passed']}")


# The four headline pitfalls of the course (issue 9): wherever one occurs, it costs at least a
# tenth of the lab's points (its own checks, the checks that defer to them, the checks gated).
@pytest.mark.parametrize("fixture", fixture_params(
    [f for f in ALL_FIXTURES if f.expected["pitfall"] in HEADLINE_PITFALLS]))
def test_a_headline_pitfall_costs_at_least_a_tenth_of_the_lab(
    graded: Callable[[str], LabRun], fixture: Fixture
) -> None:
    doc = fixture_doc(graded, fixture)
    lost = doc["max_score"] - doc["score"]
    assert lost >= 0.1 * doc["max_score"], (
        f"{fixture.id} ({fixture.expected['pitfall']}) loses {lost:g} of {doc['max_score']:g}")


# Proportion (issue 32): a correct engine whose only difference is structural (a label, the
# parents' name or collection: structure_variants.VARIANTS) loses the structure checks about
# that attribute at the suites' weights, and nothing else: no check of numbers fails, none is
# left unrun behind it. Where the README leaves the attribute free (`correct-`), it loses 0.
@pytest.mark.parametrize("fixture", fixture_params(
    [f for f in ALL_FIXTURES if f.name in VARIANTS.get(f.folder, {})]))
def test_a_structural_variant_loses_only_its_structure_checks(
    graded: Callable[[str], LabRun], fixture: Fixture
) -> None:
    attributes = VARIANTS[fixture.folder][fixture.name]
    doc = fixture_doc(graded, fixture)
    lost = lost_checks(doc)
    weight = weights(fixture.folder)
    structure = structure_checks(fixture.folder, attributes)
    assert {i: c["status"] for i, c in lost.items() if c["status"] != "failed"} == {}, (
        f"{fixture.id}: checks left unrun or broken behind a structural difference")
    beyond = sorted(i for i, c in lost.items()
                    if i not in structure and not structural_failure(c, attributes))
    assert beyond == [], f"{fixture.id} loses checks that are not about {attributes}: {beyond}"
    if fixture.correct:  # the README leaves the attribute free
        assert lost == {}, f"{fixture.id} loses {sorted(lost)}"
    elif structure:  # a structure check about the attribute names it (a label of another
        # spelling still passes the check that the constructor takes `_op` by name)
        assert structure & set(lost), f"{fixture.id} passes every one of {sorted(structure)}"
    assert doc["score"] == doc["max_score"] - sum(weight[i] for i in lost)


# --- reference solution and stub -------------------------------------------------------------


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_reference_solution_scores_full_marks(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    doc = graded(folder).solution
    not_passed = [(c["id"], c["status"], c["detail"]) for c in doc["checks"]
                  if c["status"] != "passed"]
    assert doc["status"] == "graded" and not_passed == [], (
        f"{folder} solution: got {doc['score']} / {doc['max_score']}, not passed {not_passed}")
    assert doc["max_score"] > 0


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_unedited_stub_scores_zero(graded: Callable[[str], LabRun], folder: str) -> None:
    doc = graded(folder).stub
    assert doc["status"] == "graded", doc["reason"]
    assert doc["score"] == 0.0, f"{folder} stub scores {doc['score']}: passes {ids_where(doc, 'passed')}"
    errors = ids_where(doc, "error")
    assert errors == [], f"{folder} stub: grader errors in {errors}"


# --- coverage: no hidden check or pitfall goes unproven ----------------------------------------


def hidden_checks(doc: dict[str, Any]) -> dict[str, str]:
    """Hidden check id -> pitfall, from a graded document."""
    return {c["id"]: c["pitfall"] for c in doc["checks"] if c["visibility"] == "hidden"}


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_every_pitfall_check_is_proven_by_a_buggy_fixture(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    pitfalls = set(hidden_checks(graded(folder).solution).values())
    proven = {f.expected["pitfall"] for f in ALL_FIXTURES if f.folder == folder}
    assert sorted(pitfalls - proven) == [], (
        f"{folder}: pitfalls of hidden checks with no fixture: {sorted(pitfalls - proven)}")


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_every_hidden_check_is_failed_by_some_fixture(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    checks = hidden_checks(graded(folder).solution)
    failed = {c for f in ALL_FIXTURES if f.folder == folder for c in f.expected["failed"]}
    unproven = [check for check in checks if check not in failed]
    assert unproven == [], f"{folder}: hidden checks no fixture fails: {unproven}"


def public_checks(doc: dict[str, Any]) -> dict[str, str]:
    """Public check id -> pitfall, from a graded document."""
    return {c["id"]: c["pitfall"] for c in doc["checks"] if c["visibility"] == "public"}


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_every_public_check_fails_on_a_fixture_of_its_pitfall(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    checks = public_checks(graded(folder).solution)
    caught = {(check, f.expected["pitfall"]) for f in ALL_FIXTURES if f.folder == folder
              for check in f.expected.get("public_failed", [])}
    unproven = sorted(check for check, pitfall in checks.items() if (check, pitfall) not in caught)
    assert unproven == [], (
        f"{folder}: public checks that no fixture of their own pitfall fails: {unproven}")


def test_every_fixture_folder_is_named_after_a_registered_lab() -> None:
    folders = {path.name for path in FIXTURES.iterdir() if path.is_dir()} - {"redteam"}
    unknown = sorted(folders - set(LABS))
    assert unknown == [], (
        f"fixture folders that match no lab (they would never be graded): {unknown}; "
        f"known labs: {sorted(LABS)}")


def test_every_fixture_has_an_expected_toml() -> None:
    missing = sorted(str(path.relative_to(FIXTURES)) for lab in LABS
                     for path in (FIXTURES / lab).glob("*/") if not (path / "expected.toml").is_file())
    assert missing == [], f"fixtures without expected.toml are never proven: {missing}"


# -- verdict snapshots -------------------------------------------------------------------------
# tests/data/verdicts/<lab>.txt keeps what the grader concluded about each fixture (and the
# solution and the stub), one sorted line per fixture and check: its status, the pitfall its
# failure names (else -) and the kind of its detail (else -); and one `(feedback)` line per
# fixture: the document's status, the pitfalls its feedback names and its flags. No points: a
# reweighting moves nothing here (each score is the weight of its passed checks, asserted below,
# so the statuses pinned here pin the scores the code's weights give), and a regression is a
# one-line diff. When a verdict changes on purpose (a new check, a new fixture), regenerate with
#     UPDATE_VERDICTS=1 .venv/bin/python -m pytest tests/test_lab_fixtures.py -k snapshot
# and say in the commit message which verdicts moved and why.
# Fixed widths, from the longest names today: a longer new name pushes its own line, no other.
COLUMN_WIDTHS = (40, 50, 9, 28)
DIFF_LINES = 200  # of the failure message; the rest are counted


def snapshot_row(*cells: str) -> str:
    """One line of the snapshot: the cells in fixed-width columns, two spaces at least."""
    padded = [(cell + "  ").ljust(width) for cell, width in zip(cells, COLUMN_WIDTHS, strict=False)]
    return "".join(padded) + cells[-1]


def concluded_pitfall(check: dict[str, Any]) -> str:
    """The pitfall a failed check names (`-` if it passed, was not run, or its code is not
    written yet)."""
    named = check["status"] == "failed" and names_a_pitfall(check.get("detail"))
    return check["pitfall"] if named else "-"


def verdict_rows(name: str, doc: dict[str, Any]) -> list[str]:
    """What the grader concluded about one submission, without points, timings or texts."""
    feedback = snapshot_row(name, FEEDBACK_ROW, doc["status"],
                            ",".join(sorted(doc["pitfalls"])) or "-",
                            ",".join(sorted({f["id"] for f in doc["flags"]})) or "-")
    return [feedback] + [
        snapshot_row(name, c["id"], c["status"], concluded_pitfall(c),
                     (c.get("detail") or {}).get("kind") or "-") for c in doc["checks"]]


def lab_documents(run: LabRun) -> dict[str, dict[str, Any]]:
    """The lab's documents by fixture name, with the solution and the stub."""
    return {**run.fixtures, "(solution)": run.solution, "(stub)": run.stub}


def snapshot_text(folder: str, run: LabRun) -> str:
    """The lab's snapshot file: a header that says how to read and write it, then sorted rows."""
    rows = sorted(row for name, doc in lab_documents(run).items()
                  for row in verdict_rows(name, doc))
    header = [
        f"# {folder}: what the grader concluded about each fixture, the solution and the stub.",
        "# Written by UPDATE_VERDICTS=1 .venv/bin/python -m pytest tests/test_lab_fixtures.py "
        "-k snapshot",
        snapshot_row("# fixture", "check", "status", "pitfall named", "detail kind"),
        snapshot_row("# fixture", FEEDBACK_ROW, "status", "pitfalls named", "flags"),
    ]
    return "\n".join(header + rows) + "\n"


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_verdicts_match_the_snapshot(graded: Callable[[str], LabRun], folder: str) -> None:
    path = VERDICTS / f"{folder}.txt"
    current = snapshot_text(folder, graded(folder))
    if os.environ.get("UPDATE_VERDICTS"):
        path.write_text(current, encoding="utf-8")
    assert path.is_file(), f"no snapshot {path}: run with UPDATE_VERDICTS=1 to write one"
    stored = path.read_text(encoding="utf-8")
    if current != stored:  # the diff alone: pytest's own comparison of the texts adds noise
        pytest.fail(f"{folder}: verdicts differ from {path.name} (- snapshot, + now); if the "
                    f"change is meant, run with UPDATE_VERDICTS=1 and say why in the commit:\n"
                    f"{snapshot_diff(stored, current, path.name)}", pytrace=False)


def snapshot_diff(stored: str, current: str, name: str) -> str:
    """The changed lines of the snapshot as a unified diff, cut at DIFF_LINES lines."""
    lines = list(difflib.unified_diff(stored.splitlines(), current.splitlines(),
                                      f"{name} (snapshot)", f"{name} (now)", n=0, lineterm=""))
    cut = lines[:DIFF_LINES]
    if len(lines) > DIFF_LINES:
        cut.append(f"... and {len(lines) - DIFF_LINES} more lines")
    return "\n".join(cut)


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_each_score_is_the_weight_of_its_passed_checks(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    # With this, the statuses the snapshot pins pin every score the code's weights give. The
    # same floats added in the same order as the document's: equal exactly.
    for name, doc in lab_documents(graded(folder)).items():
        passed = sum(c["max_score"] for c in doc["checks"] if c["status"] == "passed")
        total = sum(c["max_score"] for c in doc["checks"])
        assert (doc["score"], doc["max_score"]) == (passed, total), (
            f"{folder}/{name}: scores {doc['score']:g} / {doc['max_score']:g}, but its passed "
            f"checks weigh {passed:g} of {total:g}")


# -- the generated tables (README.md's lab table, docs/how-it-works.md's points per pitfall) ----
# `build-labs` writes them from the declared checks and the fixture folders (readme_tables);
# these tests hold the generator to what grading the reference solution reports.
README_ROW = re.compile(r"^\| `(?P<lab>lab\w+)` \|.*\| (?P<hidden>\d+) \+ (?P<public>\d+) \| "
                        r"(?P<pitfalls>\d+) \| (?P<fixtures>\d+) \((?P<correct>\d+) correct\) \|$")


def generated_lab_table() -> dict[str, dict[str, int]]:
    """The counts of each row of the lab table `build-labs` generates."""
    rows = {}
    for line in lab_table(ROOT, declared_by_lab(), {}).splitlines():
        match = README_ROW.match(line)
        if match:
            rows[match["lab"]] = {key: int(value) for key, value in match.groupdict().items()
                                  if key != "lab"}
    return rows


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_readme_lab_table_matches_the_code(graded: Callable[[str], LabRun], folder: str) -> None:
    checks = graded(folder).solution["checks"]
    fixtures = [f for f in ALL_FIXTURES if f.folder == folder]
    actual = {
        "hidden": sum(c["visibility"] == "hidden" for c in checks),
        "public": sum(c["visibility"] == "public" for c in checks),
        "pitfalls": len({c["pitfall"] for c in checks}),
        "fixtures": len(fixtures),
        "correct": sum(f.correct for f in fixtures),
    }
    row = generated_lab_table().get(folder)
    assert row == actual, (
        f"build-labs counts {row} for {folder}; grading the reference solution and the fixture "
        f"folders give {actual}: the generator (grader/authoring/readme_tables.py) is wrong")


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_readme_points_per_pitfall_match_the_graded_solution(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    graded_points: dict[str, float] = {}
    for check in graded(folder).solution["checks"]:
        graded_points[check["pitfall"]] = graded_points.get(check["pitfall"], 0.0) + check["max_score"]
    counted = points_by_pitfall(declared_by_lab()[folder])
    assert counted == pytest.approx(graded_points), (
        f"build-labs counts {counted} points per pitfall for {folder}; the graded reference "
        f"solution has {graded_points}")


# -- titles describe the graph the check builds -------------------------------------------------


def shown_expression(check: dict[str, Any]) -> str | None:
    """The expression a failed check reports it built (`out` or `graph` of its inputs), if any."""
    inputs = ((check.get("detail") or {}).get("params") or {}).get("inputs")
    if isinstance(inputs, dict):
        for key in ("out", "graph"):
            if isinstance(inputs.get(key), str):
                return str(inputs[key])
    return None


def squashed(text: str) -> str:
    """The expression as titles write it: no spaces, a drawn exponent as k, `(a.exp())` as
    `a.exp()`."""
    text = re.sub(r"\*\*\s*-?[0-9.]+", "** k", text)
    text = re.sub(r"\((a\.\w+\(\))\)", r"\1", text)
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_a_failed_checks_title_names_the_graph_it_built(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    from grader.results.i18n import Catalogue

    catalogue = Catalogue.load("en")
    unnamed: dict[str, tuple[str, list[str]]] = {}
    for doc in graded(folder).fixtures.values():
        for check in doc["checks"]:
            hidden = check["visibility"] == "hidden"  # a public title names its fixed numbers
            expression = shown_expression(check) if check["status"] == "failed" and hidden \
                else None
            if expression is None:
                continue
            title = squashed(catalogue.text(f"checks.{check['id']}.title"))
            missing = [part for part in re.split(r"[;,] ", expression)
                       if squashed(part) not in title]
            if missing:
                unnamed[check["id"]] = (expression, missing)
    assert unnamed == {}, f"{folder}: titles that do not name the graph the check built: {unnamed}"


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_a_failed_checks_title_uses_the_names_of_its_message(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    """Issue 35: a title that says `y` where the message says `out` (tests/title_names.py)."""
    from title_names import NAMING_KINDS, names_missing_from

    from grader.results.i18n import Catalogue

    catalogue = Catalogue.load("en")
    differing: dict[str, tuple[list[str], str]] = {}
    for doc in graded(folder).fixtures.values():
        for check in doc["checks"]:
            if check["status"] != "failed" or check["detail"]["kind"] not in NAMING_KINDS:
                continue
            missing = names_missing_from(check["message"],
                                         catalogue.text(f"checks.{check['id']}.title"))
            if missing:
                differing[check["id"]] = (missing, check["message"])
    assert differing == {}, f"{folder}: titles naming what their messages do not: {differing}"


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_a_gradescope_student_sees_every_load_problem(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    """Every document of the class (fixtures, solution, stub) as Gradescope shows it to the
    student before the due date (gradescope_oracle.student_view, specs.md's visibility rules),
    in both languages: a document whose code could not be loaded shows its problem; no visible
    test points to a problem "at the top" that the top-level output does not hold.
    tests/platforms/test_student_view.py makes and reads the load errors themselves."""
    from platforms import gradescope_oracle

    from grader.platforms import gradescope
    from grader.results.i18n import LANGUAGES, Catalogue
    from grader.results.messages import localise_document

    run = graded(folder)
    unseen = []
    for name, doc in {**run.fixtures, "solution": run.solution, "stub": run.stub}.items():
        for lang in LANGUAGES:
            found = gradescope.results(localise_document(doc, Catalogue.load(lang)))
            seen = gradescope_oracle.student_view(found, after_due_date=False, published=False)
            heading = Catalogue.load(lang).text("ui.problem_heading")
            pointed = Catalogue.load(lang).text("details.submission-problem.text")
            problem = doc.get("problem")
            if (problem or pointed in seen) and heading not in found["output"]:
                unseen.append(f"{name} ({lang})")
            if problem and problem["params"].get("type", "") not in found["output"]:
                unseen.append(f"{name} ({lang}): {problem['params']}")
    assert unseen == [], f"{folder}: a load problem a Gradescope student cannot see: {unseen}"


@pytest.mark.parametrize("folder", LAB_FOLDERS)
def test_every_document_round_trips_through_the_typed_records(
    graded: Callable[[str], LabRun], folder: str
) -> None:
    """grader/results/score_document.py reads every document the class produced, and writes
    it back unchanged (key order included)."""
    run = graded(folder)
    for name, doc in [*run.fixtures.items(), ("(solution)", run.solution), ("(stub)", run.stub)]:
        written = to_json(parse(doc))
        assert written == doc, f"{folder}/{name}: the document changed through the records"
        assert json.dumps(written) == json.dumps(doc), f"{folder}/{name}: key order changed"
