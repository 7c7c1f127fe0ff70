"""Every release's kit gives nothing away: graded with the hidden suite of the lab it releases,
no file in it scores more than that lab's unedited stub.

The course calendar behind it (docs/instructors.md, "Reference: releases and the student kit"): a lab opens when the previous one closes.
So a kit may hold complete work of a closed lab; ALLOWED_CLOSED_LAB_WORK lists the files that
do, with the reason, and the test proves each one ships only once that lab has closed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from grader.authoring.student_kit import kit_files, later_labs, release_labs
from grader.common.labs import LABS
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan

# File of the kit -> (the closed lab it completes, why it may ship).
ALLOWED_CLOSED_LAB_WORK = {
    "labs/lab02_ops/value.py": (
        "lab01_graph", "lab02 extends the lab01 Value; its + and * are given so the new "
                       "operations can be tested on their own"),
    "labs/lab02_ops/lab02_ops.ipynb": ("lab01_graph", "the notebook version of the same stub"),
    "labs/lab03_backprop/value.py": (
        "lab02_ops", "lab03 walks larger graphs built with every lab02 operation"),
    "labs/lab03_backprop/lab03_backprop.ipynb": ("lab02_ops", "the notebook of the same stub"),
    "labs/lab04_xor/value.py": (
        "lab03_backprop", "lab04 trains a network: it needs the whole engine, and the grader "
                          "grades nn.py against its own copy of it"),
    "labs/lab04_xor/lab04_xor.ipynb": ("lab03_backprop", "holds the same given engine"),
}

# What a file of a closed lab may earn on the released lab's hidden suite beyond the stub:
# (release, file) -> (the checks it may pass, why). lab01's recursive backward (closed, in the
# lab02 stub) seeds the output with 1, which lab03's stub leaves to the student's new walk.
ALLOWED_ABOVE_STUB = {
    ("lab03_backprop", "labs/lab02_ops/value.py"): (
        {"backward-seeds-output-with-one", "backward-seeds-over-a-stale-output-gradient"},
        "the closed lab01 backward seeds the output (also over a stale gradient); none of lab03's own work (the iterative "
        "walk, zero_grad, cycles, deep graphs) passes"),
    ("lab03_backprop", "labs/lab02_ops/lab02_ops.ipynb"): (
        {"backward-seeds-output-with-one", "backward-seeds-over-a-stale-output-gradient"},
        "the notebook version of the same stub"),
}


@pytest.fixture(scope="module", params=list(LABS))
def release(request: pytest.FixtureRequest, built_kit):
    """(release, kit folder, kit zip): the run's kit of the release (tests/conftest.py)."""
    return request.param, *built_kit(request.param)


def test_the_kit_holds_the_released_lab_and_earlier_ones_and_no_later_one(release) -> None:
    name, folder, _ = release
    shipped = sorted(path.name for path in (folder / "labs").iterdir())
    assert shipped == [lab.name for lab in release_labs(name)], shipped
    for later in later_labs(name):
        mentions = [path for path in kit_files(folder) if later in path.as_posix()]
        assert mentions == [], f"the {name} kit holds files of {later}: {mentions[:3]}"


def test_files_of_closed_labs_ship_only_after_their_lab_closed(release) -> None:
    name, folder, _ = release
    opened = [lab.name for lab in release_labs(name)]
    for relative, (closed_lab, reason) in ALLOWED_CLOSED_LAB_WORK.items():
        if (folder / relative).exists():
            assert closed_lab in opened[:-1], (
                f"{relative} completes {closed_lab} ({reason}), which is still open at {name}")


def test_nothing_in_the_kit_scores_more_than_the_unedited_stub(release) -> None:
    name, folder, archive = release
    lab = LABS[name]
    plan = GradingPlan(lab, (lab.hidden_tests,), "release-kit-test", "en")
    files = [*kit_files(folder), archive]
    docs = grade_class(plan, files, BatchOptions(out_dir=None, workers=2),
                       progress=lambda *_: None)
    scores = {path: doc for path, doc in zip(files, docs, strict=True)}
    stub = scores[folder / "labs" / name / lab.main_file]
    assert stub["status"] == "graded", stub["reason"]
    errors = [str(path) for path, doc in scores.items() if doc["status"] == "grader-error"]
    assert errors == [], f"the grader failed on {errors}"
    stub_passed = passed_checks(stub)
    above = {}
    for path, doc in scores.items():
        if doc["score"] <= stub["score"]:
            continue
        relative = path.relative_to(folder).as_posix()
        allowed, _why = ALLOWED_ABOVE_STUB.get((name, relative), (set(), ""))
        extra = passed_checks(doc) - stub_passed - allowed
        if extra or not allowed:
            above[relative] = (doc["score"], sorted(passed_checks(doc) - stub_passed))
    assert above == {}, (f"in the {name} kit these score more than the unedited stub "
                         f"({stub['score']}) on the hidden suite: {above}")
    for (release, relative), (allowed, _why) in ALLOWED_ABOVE_STUB.items():
        if release != name:
            continue
        doc = scores[folder / relative]
        extra = passed_checks(doc) - stub_passed
        assert extra == allowed, (f"{relative} on {name}'s hidden suite passes {sorted(extra)} "
                                  f"beyond the stub; ALLOWED_ABOVE_STUB says {sorted(allowed)}")
        assert_exception_stated(name, relative, extra, doc["score"] - stub["score"],
                                doc["max_score"], {check["id"] for check in doc["checks"]})


INSTRUCTORS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "instructors.md"


def _points(value: float) -> str:
    return f"{value:g}"


def assert_exception_stated(release: str, relative: str, checks: set[str], points: float,
                            max_points: float, check_ids: set[str]) -> None:
    """docs/instructors.md's sentence on the exception says what was measured: the file, the
    checks it passes (no other check id of the lab) and the points, out of the lab's."""
    text = INSTRUCTORS_PAGE.read_text(encoding="utf-8")
    paragraph = text.split("One exception is listed with its checks", 1)[1].split("\n\n", 1)[0]
    flat = " ".join(paragraph.split())
    named = {word for word in re.findall(r"`([a-z0-9-]+)`", flat) if word in check_ids}
    assert relative.split("/")[1] in flat and release.split("_")[0] in flat, flat
    assert named == checks, f"the page names {sorted(named)}; measured: {sorted(checks)}"
    said = re.search(r"(\d+(?:\.\d+)?) of \w+'s (\d+(?:\.\d+)?) points", flat)
    assert said, flat
    assert (said[1], said[2]) == (_points(points), _points(max_points)), (
        f"the page says {said[0]!r}; measured: {_points(points)} of {_points(max_points)}")


def passed_checks(doc: dict) -> set[str]:
    """The ids of the checks a document passed."""
    return {check["id"] for check in doc["checks"] if check["status"] == "passed"}


# Named in issue 35 as lab02's answers found in the lab01 kit; the test adds every local
# derivative read from the later labs' solutions and from the child's table of operations.
LAB02_FORMULAS = ("1 - t**2", "math.exp", "sigmoid", "out.data * (1 - out.data)",
                  "1 / self.data", "1 - out.data ** 2", "s * (1 - s)")


def _squeezed(text: str) -> str:
    return "".join(text.split())


def _new_methods(lab: str) -> dict[str, ast.FunctionDef]:
    """The methods of Value a lab's solution adds to the previous lab's solution."""
    def methods(name: str) -> dict[str, ast.FunctionDef]:
        path = LABS[name].solution_dir / "value.py"
        if not path.is_file():
            return {}
        return {item.name: item for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.ClassDef) and node.name == "Value"
                for item in node.body if isinstance(item, ast.FunctionDef)}
    names = list(LABS)
    before = methods(names[names.index(lab) - 1]) if names.index(lab) else {}
    return {name: item for name, item in methods(lab).items() if name not in before}


def _solution_derivatives(lab: str) -> set[str]:
    """The local derivatives a lab's solution writes: in each new method's `_backward`, the
    factor multiplying `out.grad` in every `<x>.grad += ...`."""
    source = (LABS[lab].solution_dir / "value.py").read_text(encoding="utf-8")
    found = set()
    for method in _new_methods(lab).values():
        for node in ast.walk(method):
            if not (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute)
                    and node.target.attr == "grad"):
                continue
            value = node.value
            if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
                other = value.left if "out.grad" in ast.unparse(value.right) else value.right
                # a bare `out.data` (exp's) is ordinary code too: the child's `math.exp` stands in
                if not isinstance(other, ast.Name | ast.Attribute):
                    found.add(ast.get_source_segment(source, other) or ast.unparse(other))
            found.add(ast.get_source_segment(source, value) or ast.unparse(value))
    return found


def _child_derivatives(lab: str) -> set[str]:
    """The child table's local derivatives of the operations whose method a lab adds."""
    import grader.grading.child.graph as graph
    from grader.authoring.kit_contents import operation_method

    source = Path(graph.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    rows = {ast.literal_eval(row.elts[0]): row for row in ast.walk(tree)
            if isinstance(row, ast.Tuple) and len(row.elts) >= 5
            and isinstance(row.elts[0], ast.Constant) and row.elts[0].value in graph.OPERATIONS}
    new = set(_new_methods(lab))
    return {ast.get_source_segment(source, partial) or ""  # in the partials lambda's tuple
            for name, row in rows.items()
            if operation_method(graph.OPERATIONS[name].code) in new
            for partial in getattr(row.elts[4].body, "elts", [row.elts[4].body])
            if not isinstance(partial, ast.Constant | ast.UnaryOp)}


def test_no_kit_holds_a_later_labs_local_derivatives(release) -> None:
    name, folder, _ = release
    for later in later_labs(name):
        solved = (LABS[later].solution_dir / "value.py").is_file()
        formulas = {*(_solution_derivatives(later) if solved else ()),
                    *_child_derivatives(later), *(LAB02_FORMULAS if later == "lab02_ops" else ())}
        # a bare name (`sigmoid`) is an operation's name, which tables of operations carry; a
        # derivative is an expression
        formulas = {formula for formula in formulas if formula and not formula.isidentifier()}
        if later == "lab02_ops":  # the oracle finds what it must: exp's, tanh's, sigmoid's
            assert {"1 - out.data ** 2", "s * (1 - s)", "1 - math.tanh(a) ** 2",
                    "math.exp(a)"} <= formulas, formulas
        found = {}
        for path in kit_files(folder):
            text = _squeezed(path.read_text(encoding="utf-8", errors="replace"))
            hits = sorted(formula for formula in formulas if _squeezed(formula) in text)
            if hits:
                found[path.relative_to(folder).as_posix()] = hits
        assert found == {}, f"the {name} kit holds local derivatives of {later}: {found}"
