"""grader.similarity.tokens: the rewrites a copier uses give the same normalized tokens."""

from __future__ import annotations

import textwrap

import pytest

from grader.similarity.tokens import MODULE_UNIT, normalized_lines, units


def texts(source: str) -> list[str]:
    """The normalized statements of the source, one string each."""
    return [" ".join(t.text for t in line) for line in normalized_lines(textwrap.dedent(source))]


def stream(source: str) -> list[str]:
    """The normalized tokens of the source, statements joined (as k-grams see them)."""
    return [t.text for line in normalized_lines(textwrap.dedent(source)) for t in line]


@pytest.mark.parametrize(("written", "rewritten"), [
    ("self.grad += other.data * out.grad", "self.grad = self.grad + (other.data * out.grad)"),
    ("total -= x", "total = total - x"),
    ("counts[i] *= 2", "counts[i] = counts[i] * 2"),
    ("visited = set()  # seen nodes", "seen_nodes = set()"),
    ("out = Value(a.data + b.data, (a, b), '+')", "res = Value(x.data + y.data, (x, y), \"add\")"),
    ("return (self * other)", "return self * other"),
])
def test_a_rewrite_that_changes_nothing_gives_the_same_tokens(written: str, rewritten: str) -> None:
    assert texts(written) == texts(rewritten)


def test_a_lambda_reads_as_the_def_it_stands_for() -> None:
    with_lambda = """
        def __init__(self):
            self._backward = lambda: None
    """
    with_def = """
        def __init__(self):
            def _noop():
                return None
            self._backward = _noop
    """
    assert stream(with_lambda) == stream(with_def)


def test_contract_names_builtins_and_dunders_stay_and_chosen_names_do_not() -> None:
    assert texts("node._prev = set(children)") == ["ID . _prev = set ( ID )"]
    assert texts("node.helper_cache = reversed(order)") == ["ID . ID = reversed ( ID )"]
    assert texts("def __mul__(self, other): pass")[0].startswith("def __mul__ ( ID , ID )")
    assert texts("def backward(self): b = self") == ["def backward ( ID ) : ID = ID"]


def test_comments_docstrings_and_blank_lines_are_dropped() -> None:
    assert texts('''
        def f(x):
            """Doubles."""

            # the doubling
            return x * 2
    ''') == ["def ID ( ID ) :", "return ID * NUM"]


def test_each_function_is_a_unit_of_its_own_and_the_rest_is_one_more() -> None:
    found = units(textwrap.dedent("""
        import math
        class Value:
            def b(self): return 1
            def a(self): return 2
        def helper(): return 3
        LIMIT = 4
    """))
    assert [u.name for u in found] == [MODULE_UNIT, "Value.b", "Value.a", "helper"]
    assert [t.text for t in found[0].tokens] == ["import", "ID", "class", "Value", ":",
                                                 "ID", "=", "NUM"]


def test_a_file_that_does_not_parse_is_still_read_as_far_as_it_tokenizes() -> None:
    found = units("def f(x):\n    return x +\n")
    assert [u.name for u in found] == [MODULE_UNIT]
    assert found[0].tokens[0].text == "def"
