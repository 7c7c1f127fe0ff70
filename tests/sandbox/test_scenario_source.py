"""Tests for grader.grading.child.scenario and kit: the source that crosses the boundary, and its helpers."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import io
import symtable
import sys
import tokenize
from pathlib import Path

import pytest

from grader.common.labs import LABS
from grader.grading.child.graph import (
    HELPER_NAMES,
    WrongType,
    data_of,
    grad_of,
    number,
    parents_of,
    record_calls,
    text,
)
from grader.grading.child.scenario import HELPERS_SOURCE, Scenario, helpers_namespace, scenario
from grader.grading.child.scenarios import lab01_graph
from grader.grading.sandbox import Limits, Sandbox

MODULE_FACTOR = 3.0  # a module global: scenarios must not see it


class Node:
    """A stand-in for a student's Value, for the kit helpers."""

    def __init__(self, data: object = 1.0, grad: object = 0.0, prev: tuple[Node, ...] = ()):
        self.data = data
        self.grad = grad
        self._prev = prev
        self._backward = lambda: None


@scenario
def commented(Value, x):
    # a comment the child must not receive
    node = Value(x)  # and a trailing one
    return {"data": data_of(node, "node")}


@scenario
def uses_module_global(Value, x):
    return {"data": x * MODULE_FACTOR}


@scenario
def visible_globals(Value):
    return sorted(name for name in globals() if not name.startswith("__"))


def comments_in(source: str) -> list[str]:
    """The comment tokens of a piece of Python source."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [token.string for token in tokens if token.type == tokenize.COMMENT]


def all_scenarios() -> list[Scenario]:
    """Every Scenario the shipped scenario modules define."""
    return [value for value in vars(lab01_graph).values() if isinstance(value, Scenario)]


def unresolved_globals(source: str) -> set[str]:
    """Global names the scenario's body reads that are neither builtins nor kit names."""
    known = set(dir(builtins)) | set(helpers_namespace())
    missing: set[str] = set()
    tables = symtable.symtable(source, "<scenario>", "exec").get_children()
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for symbol in table.get_symbols():
            if symbol.is_global() and symbol.is_referenced() and symbol.get_name() not in known:
                missing.add(symbol.get_name())
    return missing


# --- the shipped source ----------------------------------------------------------------------


def test_shipped_source_has_no_decorator_and_no_comments() -> None:
    source = commented.source
    assert source.startswith("def commented(Value, x):"), source
    assert "@" not in source, f"decorator shipped: {source!r}"
    assert comments_in(source) == [], f"comments shipped: {comments_in(source)}"


def test_scenario_is_named_after_its_function() -> None:
    assert commented.name == "commented"


def test_only_plain_functions_can_be_scenarios() -> None:
    async def coroutine(Value):
        return {}

    with pytest.raises(TypeError, match="must be a plain function"):
        scenario(coroutine)


def test_a_scenario_read_from_its_module_tree_is_the_source_inspect_gives() -> None:
    # The scenarios of a lab are found in their module's one parse, not tokenized one by one:
    # each must ship exactly what inspect's own source of the function, parsed, would give.
    modules = [importlib.import_module(f"grader.grading.child.scenarios.{lab}") for lab in LABS]
    shipped = [(module, value) for module in modules for value in vars(module).values()
               if isinstance(value, Scenario)]
    assert len(shipped) > 40
    for module, scen in shipped:
        tree = ast.parse(inspect.getsource(module))
        [definition] = [node for node in tree.body
                        if isinstance(node, ast.FunctionDef) and node.name == scen.name]
        definition.decorator_list = []
        assert scen.source == ast.unparse(definition), scen.name


def test_a_scenario_defined_inside_a_function_is_read_through_inspect() -> None:
    def nested(Value, x):
        return {"data": x * 2}  # a comment

    assert scenario(nested).source == "def nested(Value, x):\n    return {'data': x * 2}"


@pytest.mark.parametrize("shipped", all_scenarios(), ids=lambda s: s.name)
def test_every_shipped_scenario_reads_only_kit_names_and_builtins(shipped: Scenario) -> None:
    missing = unresolved_globals(shipped.source)
    assert missing == set(), (
        f"scenario {shipped.name} reads {sorted(missing)}, which the sandbox child does not have")


# --- load(): the trusted side runs with the same namespace as the child -----------------------


def test_loaded_scenario_runs_against_a_class() -> None:
    assert commented.load()(Node, 2.5) == {"data": 2.5}


def test_loaded_scenario_sees_only_kit_names() -> None:
    visible = set(visible_globals.load()(Node))
    expected = set(HELPER_NAMES) | {"HELPER_NAMES", "Any", "gc", "math", "operator",
                                     "visible_globals"}
    assert visible == expected, f"got {sorted(visible)}, expected {sorted(expected)}"


def test_module_global_is_a_name_error_on_the_trusted_side() -> None:
    with pytest.raises(NameError, match="MODULE_FACTOR"):
        uses_module_global.load()(Node, 2.0)


def test_module_global_is_a_name_error_in_the_child_too(tmp_path: Path) -> None:
    (tmp_path / "value.py").write_text("class Value:\n    pass\n", encoding="utf-8")
    with Sandbox(tmp_path, "value", "Value", ("value.py",), Limits()) as sandbox:
        outcome = sandbox.run(uses_module_global, {"x": 2.0})
    assert (outcome.status, outcome.detail.get("type")) == ("exception", "NameError"), (
        f"got {outcome.status} {outcome.detail}")
    assert "MODULE_FACTOR" in outcome.detail["message"], outcome.detail


def test_load_compiles_once() -> None:
    assert commented.load() is commented.load()


# --- kit ---------------------------------------------------------------------------------------


def test_kit_imports_only_the_standard_library() -> None:
    imported = set()
    for node in ast.walk(ast.parse(HELPERS_SOURCE)):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    outside = imported - set(sys.stdlib_module_names)
    assert outside == set(), f"kit.py imports {sorted(outside)}, which the child cannot"


def test_kit_names_all_exist() -> None:
    namespace = helpers_namespace()
    assert [name for name in HELPER_NAMES if name not in namespace] == []


@pytest.mark.parametrize("value", [1.5, -0.0, 3])
def test_number_accepts_exact_floats_and_ints_as_float(value: float) -> None:
    result = number(value, "a.data")
    assert type(result) is float and result == value, repr(result)


@pytest.mark.parametrize(("value", "type_name"), [
    (True, "bool"), (False, "bool"), (type("Sub", (float,), {})(1.0), "Sub"),
    ("1.0", "str"), (None, "NoneType"), (1j, "complex")])
def test_number_refuses_bools_float_subclasses_and_strings(value: object, type_name: str) -> None:
    with pytest.raises(WrongType) as caught:
        number(value, "a.grad")
    error = caught.value
    assert (error.quantity, error.actual_type, error.expected_type) == (
        "a.grad", type_name, "float"), vars(error)


def test_text_refuses_anything_but_str() -> None:
    assert text("+", "out._op") == "+"
    with pytest.raises(WrongType) as caught:
        text(b"+", "out._op")
    assert (caught.value.actual_type, caught.value.expected_type) == ("bytes", "str")


def test_grad_of_and_data_of_name_the_quantity() -> None:
    node = Node(data=2.0, grad=True)
    assert data_of(node, "a") == 2.0
    with pytest.raises(WrongType) as caught:
        grad_of(node, "a")
    assert caught.value.quantity == "a.grad"


def test_parents_of_names_parents_by_identity_and_marks_strangers() -> None:
    a, b, stranger = Node(1.0), Node(1.0), Node(1.0)
    out = Node(prev=(b, stranger, a))
    assert parents_of(out, {"a": a, "b": b}) == ["?", "a", "b"]


def test_record_calls_records_each_backward_call_and_keeps_its_effect() -> None:
    a, out = Node(), Node()
    effects = []
    out._backward = lambda: effects.append("out")
    a._backward = None  # a broken leaf: recording must not crash on it
    calls = record_calls({"a": a, "out": out})
    out._backward()
    a._backward()
    out._backward()
    assert calls == ["out", "a", "out"], calls
    assert effects == ["out", "out"], "the original _backward must still run"
