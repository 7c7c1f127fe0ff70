"""Tests for grader.authoring.stubgen: solution regions become TODO stubs, malformed markers are errors."""

from __future__ import annotations

import ast
import pickle
import types
from pathlib import Path

import pytest

from grader.authoring.build import build_labs
from grader.authoring.stubgen import MarkerError, generate_stub
from grader.common.todo_format import TODO_NUMBER, UNTOUCHED_TODO

REPO_ROOT = Path(__file__).resolve().parent.parent
LAB01_SOLUTION = REPO_ROOT / "solutions" / "lab01_graph" / "value.py"
LAB01_STUB = REPO_ROOT / "labs" / "lab01_graph" / "value.py"

HEADER = (
    "# lab: write the TODOs below, in order; `make check LAB=lab` checks them.\n"
    "# lab: escribe los TODO de abajo, en orden; `make check LAB=lab` los comprueba.\n"
)
GIVEN_HEADER = (
    "# lab: this file is given complete; you do not need to edit it.\n"
    "# lab: este archivo se entrega completo; no necesitas editarlo.\n"
)

SMALL_SOLUTION = '''\
def add(a, b):
    """Return a + b."""
    # BEGIN SOLUTION
    # en: Return the sum of a and b.
    # es: Devuelve la suma de a y b.
    return a + b
    # END SOLUTION
'''


def load_module(path: Path, name: str) -> types.ModuleType:
    """Execute a Python file as a fresh module, without writing bytecode next to it."""
    module = types.ModuleType(name)
    module.__file__ = str(path)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


def stub_of(source: str) -> str:
    """Generate the stub of a test solution for the lab 'lab', file 'sol.py'."""
    return generate_stub(source, "lab", "sol.py")


# --- regions --------------------------------------------------------------------------------


def test_region_is_replaced_by_bilingual_todo_and_raise() -> None:
    expected = HEADER + (
        "def add(a, b):\n"
        '    """Return a + b."""\n'
        "    # TODO(lab): Return the sum of a and b.\n"
        "    # TODO(lab) es: Devuelve la suma de a y b.\n"
        "    raise NotImplementedError('lab, TODO 1: Return the sum of a and b. / Devuelve la suma de a y b.')\n"
    )
    assert stub_of(SMALL_SOLUTION) == expected


def test_text_outside_regions_is_copied_verbatim() -> None:
    before = "import math  \n\n\nX = {'a':1}   # odd  spacing kept\n"
    after = "\n\ndef tail():\n    return math.pi  # after the region\n\n\n"
    stub = stub_of(before + SMALL_SOLUTION + after)
    assert stub.startswith(HEADER + before), "text before the region changed"
    assert stub.endswith("raise NotImplementedError('lab, TODO 1: Return the sum of a and b. / Devuelve la suma de a y b.')\n" + after)


def test_file_without_regions_only_gains_the_given_complete_header() -> None:
    source = "X = 1\n"
    assert stub_of(source) == GIVEN_HEADER + source


def test_header_keeps_the_module_docstring_first() -> None:
    source = '"""Module docstring."""\n\n' + SMALL_SOLUTION
    stub = stub_of(source)
    assert stub.startswith(HEADER + '"""Module docstring."""')
    assert ast.get_docstring(ast.parse(stub)) == "Module docstring."


def test_header_goes_after_shebang_and_encoding_line() -> None:
    source = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n" + SMALL_SOLUTION
    lines = stub_of(source).splitlines()
    assert lines[:2] == ["#!/usr/bin/env python3", "# -*- coding: utf-8 -*-"]
    assert lines[2:4] == HEADER.splitlines()


def test_header_says_what_students_can_do_with_commands_they_have() -> None:
    """No `make labs` and no solutions/ (students have neither): the lab and `make check`."""
    stub = generate_stub(SMALL_SOLUTION, "lab07_x", "/somewhere/else/solutions/lab07_x/mod.py")
    header = stub.splitlines()[:2]
    assert header[0].startswith("# lab07_x: write the TODOs") and "`make check LAB=lab07_x`" in header[0]
    assert header[1].startswith("# lab07_x: escribe los TODO") and "`make check LAB=lab07_x`" in header[1]
    assert not any("make labs" in line or "solutions/" in line for line in header), header


def test_region_keeps_its_indentation_and_nested_blocks_compile() -> None:
    source = (
        "class A:\n"
        "    def f(self):\n"
        "        def inner():\n"
        "            # BEGIN SOLUTION\n"
        "            # en: Inner body.\n"
        "            # es: Cuerpo interior.\n"
        "            return 1\n"
        "            # END SOLUTION\n"
        "        return inner\n"
    )
    stub = stub_of(source)
    assert (
        "            raise NotImplementedError('lab, TODO 1: Inner body. / Cuerpo interior.')\n        return inner\n" in stub
    )


def test_continuation_lines_stay_in_todo_and_join_in_message() -> None:
    source = (
        "def f():\n"
        "    # BEGIN SOLUTION\n"
        "    # en: First part,\n"
        "    #    second part.\n"
        "    # es: Primera parte,\n"
        "    #    segunda parte.\n"
        "    return 1\n"
        "    # END SOLUTION\n"
    )
    body = stub_of(source).split("def f():\n", 1)[1]
    assert body == (
        "    # TODO(lab): First part,\n"
        "    #    second part.\n"
        "    # TODO(lab) es: Primera parte,\n"
        "    #    segunda parte.\n"
        "    raise NotImplementedError('lab, TODO 1: First part, second part. / Primera parte, segunda parte.')\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Use the label '+'.",
        'Say "hi".',
        """Mix 'single' and "double" quotes.""",
        r"A backslash \n is not a newline.",
    ],
)
def test_quotes_in_todo_text_survive_in_the_error_message(text: str) -> None:
    source = SMALL_SOLUTION.replace("Return the sum of a and b.", text)
    namespace: dict[str, object] = {}
    exec(compile(stub_of(source), "sol.py", "exec"), namespace)
    add = namespace["add"]
    assert callable(add)
    with pytest.raises(NotImplementedError) as raised:
        add(1, 2)
    assert str(raised.value) == f"lab, TODO 1: {text} / Devuelve la suma de a y b."


def test_todos_are_numbered_in_order_and_the_numbers_read_back() -> None:
    two = SMALL_SOLUTION + SMALL_SOLUTION.replace("def add", "def add_again")
    stub = stub_of(two)
    assert [int(m["number"]) for m in UNTOUCHED_TODO.finditer(stub)] == [1, 2]
    namespace: dict[str, object] = {}
    exec(compile(stub, "sol.py", "exec"), namespace)
    with pytest.raises(NotImplementedError) as raised:
        namespace["add_again"](1, 2)  # type: ignore[operator]
    found = TODO_NUMBER.match(str(raised.value))
    assert found is not None and (found["lab"], found["number"]) == ("lab", "2")


def test_windows_line_endings_are_kept() -> None:
    stub = stub_of(SMALL_SOLUTION.replace("\n", "\r\n"))
    assert stub == stub_of(SMALL_SOLUTION).replace("\n", "\r\n")


def test_region_at_end_of_file_without_newline_keeps_no_newline() -> None:
    stub = stub_of(SMALL_SOLUTION.rstrip("\n"))
    assert stub.endswith("raise NotImplementedError('lab, TODO 1: Return the sum of a and b. / Devuelve la suma de a y b.')")


# --- malformed markers ----------------------------------------------------------------------


def region(
    *inside: str, begin: str = "    # BEGIN SOLUTION", end: str = "    # END SOLUTION"
) -> str:
    """Return a function whose body is one region made of the given lines (line 2 is BEGIN)."""
    return "\n".join(["def f():", begin, *inside, end]) + "\n"


GOOD_TODO = ("    # en: Do it.", "    # es: Hazlo.")

MALFORMED = {
    "begin-without-end": (
        "def f():\n    # BEGIN SOLUTION\n    # en: a\n    # es: b\n    x = 1\n",
        2,
    ),
    "end-without-begin": ("def f():\n    x = 1\n    # END SOLUTION\n", 3),
    "nested-begin": (region(*GOOD_TODO, "    # BEGIN SOLUTION", "    x = 1"), 5),
    "end-at-other-indentation": (region(*GOOD_TODO, "    x = 1", end="# END SOLUTION"), 6),
    "missing-en-line": (region("    # es: Hazlo.", "    x = 1"), 3),
    "missing-es-line": (region("    # en: Do it.", "    x = 1"), 4),
    "es-before-en": (region("    # es: Hazlo.", "    # en: Do it.", "    x = 1"), 3),
    "empty-en-text": (region("    # en:", "    # es: Hazlo.", "    x = 1"), 3),
    "empty-es-text": (region("    # en: Do it.", "    # es:   ", "    x = 1"), 4),
    "en-line-at-other-indentation": (
        region("        # en: Do it.", "    # es: Hazlo.", "    x = 1"),
        3,
    ),
    "region-with-no-lines": (region(), 3),
    "region-with-only-todo-text": (region(*GOOD_TODO), 2),
    "region-with-only-comments": (region(*GOOD_TODO, "", "    # just a comment"), 2),
    "marker-without-space": (region(*GOOD_TODO, "    x = 1", begin="    #BEGIN SOLUTION"), 2),
    "marker-in-lower-case": (region(*GOOD_TODO, "    x = 1", end="    # end solution"), 6),
    "marker-plural": (region(*GOOD_TODO, "    x = 1", end="    # END SOLUTIONS"), 6),
    "marker-after-code": (region(*GOOD_TODO, "    x = 1  # END SOLUTION"), 5),
}


@pytest.mark.parametrize(("source", "lineno"), MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_marker_raises_marker_error_naming_the_line(source: str, lineno: int) -> None:
    with pytest.raises(MarkerError) as raised:
        generate_stub(source, "lab", "sol.py")
    message = str(raised.value)
    assert message.startswith(f"sol.py:{lineno}: "), message
    assert "\n" not in message, "the error message must fit on one line"
    assert raised.value.lineno == lineno


def test_marker_error_is_a_value_error_that_survives_pickling() -> None:
    error = MarkerError("sol.py", 3, "bad marker")
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, ValueError)
    assert (str(copy), copy.lineno) == ("sol.py:3: bad marker", 3)


def test_stub_that_does_not_compile_raises_at_the_region() -> None:
    source = (
        "X = (\n"
        "    # BEGIN SOLUTION\n"
        "    # en: A value.\n"
        "    # es: Un valor.\n"
        "    1\n"
        "    # END SOLUTION\n"
        ")\n"
    )
    with pytest.raises(MarkerError, match=r"^sol\.py:2: the generated stub is not valid Python"):
        generate_stub(source, "lab", "sol.py")


def test_solution_that_does_not_compile_raises_at_its_line() -> None:
    with pytest.raises(MarkerError, match=r"^sol\.py:2: the solution is not valid Python"):
        generate_stub("X = 1\nY = = 2\n", "lab", "sol.py")


# --- build_labs -----------------------------------------------------------------------------


def write(path: Path, text: str) -> None:
    """Write a text file, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_build_labs_writes_missing_stubs_then_reports_none(tmp_path: Path) -> None:
    write(tmp_path / "solutions" / "lab09_demo" / "mod.py", SMALL_SOLUTION)
    assert build_labs(tmp_path, check=True) == ["labs/lab09_demo/mod.py"]
    assert not (tmp_path / "labs").exists(), "check mode must not write"
    assert build_labs(tmp_path) == ["labs/lab09_demo/mod.py"]
    stub = (tmp_path / "labs" / "lab09_demo" / "mod.py").read_text(encoding="utf-8")
    assert stub == generate_stub(SMALL_SOLUTION, "lab09_demo", "solutions/lab09_demo/mod.py")
    assert build_labs(tmp_path, check=True) == []
    assert build_labs(tmp_path) == [], "up-to-date stubs are not rewritten"


def test_build_labs_reports_a_hand_edited_stub(tmp_path: Path) -> None:
    write(tmp_path / "solutions" / "lab09_demo" / "mod.py", SMALL_SOLUTION)
    build_labs(tmp_path)
    write(tmp_path / "labs" / "lab09_demo" / "mod.py", "# edited by hand\n")
    assert build_labs(tmp_path, check=True) == ["labs/lab09_demo/mod.py"]


def test_build_labs_writes_nothing_when_any_solution_is_malformed(tmp_path: Path) -> None:
    write(tmp_path / "solutions" / "lab01_a" / "mod.py", SMALL_SOLUTION)
    write(tmp_path / "solutions" / "lab02_b" / "mod.py", "# BEGIN SOLUTION\n")
    with pytest.raises(MarkerError, match=r"^solutions/lab02_b/mod\.py:1: "):
        build_labs(tmp_path)
    assert not (tmp_path / "labs").exists()


def test_committed_labs_match_the_solutions() -> None:
    outdated = build_labs(REPO_ROOT, check=True)
    assert outdated == [], f"run `make labs` and commit the result; out of date: {outdated}"


# --- the lab01 stub and solution ------------------------------------------------------------


@pytest.fixture(scope="module")
def stub_value() -> type:
    """The Value class of the committed lab01 stub."""
    return load_module(LAB01_STUB, "lab01_stub").Value


@pytest.fixture(scope="module")
def solution_value() -> type:
    """The Value class of the lab01 reference solution."""
    return load_module(LAB01_SOLUTION, "lab01_solution").Value


def test_lab01_stub_compiles() -> None:
    compile(LAB01_STUB.read_text(encoding="utf-8"), str(LAB01_STUB), "exec")


def test_lab01_stub_builds_leaves_but_not_graphs(stub_value: type) -> None:
    assert stub_value(2.0).data == pytest.approx(2.0)
    with pytest.raises(NotImplementedError, match="lab01_graph"):
        stub_value(2.0) + stub_value(3.0)


@pytest.mark.parametrize(
    "use_stub",
    [
        pytest.param(lambda V: V(2.0) * V(3.0), id="mul"),
        pytest.param(lambda V: 2.0 + V(3.0), id="radd"),
        pytest.param(lambda V: 2.0 * V(3.0), id="rmul"),
        pytest.param(lambda V: V(2.0)._backward(), id="leaf-backward"),
        pytest.param(lambda V: V(2.0).backward(), id="backward"),
    ],
)
def test_every_lab01_todo_raises_not_implemented(stub_value: type, use_stub) -> None:
    with pytest.raises(NotImplementedError, match="^lab01_graph, TODO [0-9]+: "):
        use_stub(stub_value)


def test_lab01_solution_diamond_accumulates_both_paths(solution_value: type) -> None:
    a, b = solution_value(2.0), solution_value(-3.0)
    d = a * b + a
    d.backward()
    assert d.data == pytest.approx(-4.0)
    assert a.grad == pytest.approx(b.data + 1.0), "d(a*b + a)/da is b + 1"
    assert b.grad == pytest.approx(a.data), "d(a*b + a)/db is a"


def test_lab01_solution_accepts_numbers_on_either_side(solution_value: type) -> None:
    a = solution_value(3.0)
    out = 2 * a + 1 + a * 4 + (5 + a)
    out.backward()
    assert out.data == pytest.approx(27.0)
    assert a.grad == pytest.approx(7.0)


def test_lab01_solution_backward_survives_a_chain_of_100000_nodes(solution_value: type) -> None:
    x = solution_value(0.0)
    out = x
    for _ in range(100_000):
        out = out + 1.0
    out.backward()
    assert out.data == pytest.approx(100_000.0)
    assert x.grad == pytest.approx(1.0)
