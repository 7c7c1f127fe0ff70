"""Which programs a random-graph check runs: fixed shapes under every seed, then random ones.

Side: trusted process. A check draws the shapes that matter for every seed (`fixed_shapes`:
nodes consumed at different depths, repeated operands, shared subexpressions, numbers on either
side, chains, every operation reused and scaled) with seeded leaf values, plus random programs
from the same seeded rng (`random_program`), so a bug these shapes expose fails the check under
every seed. The same rng gives the same programs: the order of every draw is part of the seed.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

from grader.grading.checking.random_graphs.programs import (
    Program,
    fold_sinks,
    forward_values,
    in_domain,
)
from grader.grading.child.graph import OPERATIONS

MAX_DATA = 8.0  # a node that would hold more is drawn as a * 0.5 instead: nothing overflows

# The operations each lab's random programs draw from, in the order the rng picks them (part of
# the seeded draw: reordering changes every program drawn).
LAB01_OPS = ("add", "mul", "add-number-on-right", "add-number-on-left", "mul-number-on-right",
             "mul-number-on-left")
LAB02_OPS = (*LAB01_OPS, "sub", "truediv", "sub-number-on-right", "sub-number-on-left",
             "truediv-number-on-right", "truediv-number-on-left", "neg", "pow",
             "exp", "log", "tanh", "relu", "sigmoid")
NUMBERS = (2, 3, -2, 0.5, 1.5, 2.5)
EXPONENTS = (2, 3, -1, -2, 0.5, 1.5)


def random_program(rng: random.Random, ops: Sequence[str], max_nodes: int = 12) -> Program:
    """A random program of `ops`: nodes often use recent values, so values get several users at
    different depths, and a two-Value op often takes the same value twice.

    Drawn from a seeded `random.Random`, not by hypothesis's engine: a check draws a few dozen
    programs per submission, and hypothesis's per-run overhead (tens of milliseconds) would be
    most of the check's cost. The project's own tests draw the seeds with hypothesis.
    """
    leaves = [rng.choice((-1, 1)) * rng.randint(300, 2500) / 1000
              for _ in range(rng.randint(1, 4))]
    values, nodes = list(leaves), []
    for _ in range(rng.randint(1, max_nodes)):
        op = rng.choice(list(ops))
        last = len(values) - 1
        i = rng.randint(max(0, last - 3), last) if rng.random() < 0.5 else rng.randint(0, last)
        j = k = None
        if OPERATIONS[op].binary:
            j = i if rng.random() < 0.3 else rng.randint(0, last)
        if OPERATIONS[op].number:
            k = rng.choice(EXPONENTS if op == "pow" else NUMBERS)
        spec = OPERATIONS[op]
        a, b = values[i], values[j] if j is not None else 0.0
        value = None
        if in_domain(op, a, b, k or 0.0):
            try:
                value = spec.forward(a, b, k or 0.0)
            except (OverflowError, ZeroDivisionError, ValueError):
                value = None
        # an exact 0 (a + b with b = -a) is an edge of the domain, which the contract checks
        # judge under every seed (contract_grid); drawn here, it would be judged under some
        if value is None or isinstance(value, complex) or abs(value) > MAX_DATA or value == 0:
            op, j, k, value = "mul-number-on-right", None, 0.5, a * 0.5  # |a| <= MAX_DATA: so is a * 0.5
        nodes.append([op, i, j, k])
        values.append(value)
    return fold_sinks(leaves, nodes)


def _leaf_values(rng: random.Random, signs: str) -> list[float]:
    """Leaf values for a fixed shape, one per character of `signs` ('+' positive, '-'
    negative, '?' either, '<' positive below 1, '=' the same as the previous leaf): magnitudes
    in [0.5, 2.5] ('<': [0.3, 0.9]), 3 decimals, away from 1 and from each other, so no bug
    hides behind a coincidence."""
    while True:
        values: list[float] = []
        for sign in signs:
            if sign == "=":
                values.append(values[-1])
                continue
            low, high = (0.3, 0.9) if sign == "<" else (0.5, 2.5)
            magnitude = round(rng.uniform(low, high), 3)
            factor = {"+": 1, "<": 1, "-": -1}.get(sign) or rng.choice((-1, 1))
            values.append(factor * magnitude)
        magnitudes = [abs(v) for s, v in zip(signs, values, strict=True) if s != "="]
        if (all(abs(m - 1) > 0.1 for m in magnitudes) and all(
                abs(x - y) > 0.05 for x, y in itertools.combinations(magnitudes, 2))):
            return values


# Shapes drawn under every seed: (leaf signs, nodes). Operand indices count the leaves first.
SHAPES_LAB01: list[tuple[str, list[list[Any]]]] = [
    # the diamond, both ways round: a*b + a, a + a*b
    ("??", [["mul", 0, 1, None], ["add", 2, 0, None]]),
    ("??", [["mul", 0, 1, None], ["add", 0, 2, None]]),
    # the same value twice: (a + a) * b, (a * a) * b
    ("??", [["add", 0, 0, None], ["mul", 2, 1, None]]),
    ("??", [["mul", 0, 0, None], ["mul", 2, 1, None]]),
    # x = a*b consumed at depths 1 and 2 (y = x*c; out = y + x, and out = x + y) ...
    ("???", [["mul", 0, 1, None], ["mul", 3, 2, None], ["add", 4, 3, None]]),
    ("???", [["mul", 0, 1, None], ["mul", 3, 2, None], ["add", 3, 4, None]]),
    # ... and at depths 1 and 3
    ("???", [["mul", 0, 1, None], ["mul", 3, 2, None], ["mul", 4, 2, None],
             ["add", 5, 3, None]]),
    ("???", [["mul", 0, 1, None], ["add", 3, 2, None], ["mul", 4, 2, None],
             ["add", 3, 5, None]]),
    # siblings: x = a*b; out = x*c + x*d
    ("????", [["mul", 0, 1, None], ["mul", 4, 2, None], ["mul", 4, 3, None],
              ["add", 5, 6, None]]),
    # numbers on either side: (a*2 + 3*a) ... then 1.5 + _, _ + 0.5, 2.5 * _
    ("??", [["mul-number-on-right", 0, None, 2], ["mul-number-on-left", 0, None, 3], ["add", 2, 3, None],
            ["add-number-on-left", 4, None, 1.5], ["add-number-on-right", 5, None, 0.5], ["mul-number-on-left", 6, None, 2.5],
            ["mul", 7, 1, None]]),
    # a chain that reuses its leaves: t = t*b + a, three times
    ("??", [["mul", 0, 1, None], ["add", 2, 0, None], ["mul", 3, 1, None], ["add", 4, 0, None],
            ["mul", 5, 1, None], ["add", 6, 0, None]]),
    # equal data: a*b and b*a are different nodes; two leaves holding the same number
    ("???", [["mul", 0, 1, None], ["mul", 1, 0, None], ["mul", 3, 2, None],
             ["add", 5, 4, None]]),
    ("?=?", [["mul", 0, 1, None], ["add", 3, 2, None]]),
    # a shared square: x = a + b; out = x*x + x*c
    ("???", [["add", 0, 1, None], ["mul", 3, 3, None], ["mul", 3, 2, None],
             ["add", 4, 5, None]]),
]


def _unary_shape(op: str, k: float | None = None, sign: str = "?") -> tuple[str, list[list[Any]]]:
    """x = op(a); out = ((x*b) + x) + a: scaled by b, used twice, its input reused."""
    return (sign + "?", [[op, 0, None, k], ["mul", 2, 1, None], ["add", 3, 2, None],
                         ["add", 4, 0, None]])


def _binary_shape(op: str, sign: str = "??") -> tuple[str, list[list[Any]]]:
    """x = a op b; out = ((x*c) + x) + a + b, and out = b op b."""
    return (sign + "?", [[op, 0, 1, None], ["mul", 3, 2, None], ["add", 4, 3, None],
                         ["add", 5, 0, None], ["add", 6, 1, None]])


def _number_shape(op: str, k: float, sign: str = "?") -> tuple[str, list[list[Any]]]:
    """x = a op k (or k op a); out = (x*b + x) + a."""
    return (sign + "?", [[op, 0, None, k], ["mul", 2, 1, None], ["add", 3, 2, None],
                         ["add", 4, 0, None]])


def _twice_shape(op: str) -> tuple[str, list[list[Any]]]:
    """op(a) * op(b): the same operation twice in one program."""
    return ("??", [[op, 0, None, None], [op, 1, None, None], ["mul", 2, 3, None]])


SHAPES_LAB02: list[tuple[str, list[list[Any]]]] = [
    *SHAPES_LAB01,
    *(_unary_shape(op) for op in ("neg", "exp", "tanh", "sigmoid")),
    _unary_shape("log", sign="+"),
    _unary_shape("relu", sign="+"), _unary_shape("relu", sign="<"), _unary_shape("relu", sign="-"),
    *(_unary_shape("pow", k) for k in (2, 3, -1, -2)),
    _unary_shape("pow", 0.5, sign="+"), _unary_shape("pow", 1.5, sign="+"),
    _binary_shape("sub"), _binary_shape("truediv"),
    ("??", [["sub", 0, 0, None], ["add", 2, 1, None]]),
    ("??", [["truediv", 0, 1, None], ["truediv", 1, 0, None], ["mul", 2, 3, None]]),
    *(_number_shape(op, k) for op in ("sub-number-on-right", "sub-number-on-left", "truediv-number-on-right", "truediv-number-on-left") for k in (2, 0.5)),
    # the same operation twice in one program: op(a) * op(b)
    *(_twice_shape(op) for op in ("neg", "exp", "tanh", "sigmoid")),
    ("++", [["log", 0, None, None], ["log", 1, None, None], ["mul", 2, 3, None]]),
    ("+-", [["relu", 0, None, None], ["relu", 1, None, None], ["add", 2, 3, None]]),
    ("??", [["pow", 0, None, 3], ["pow", 1, None, 2], ["mul", 2, 3, None]]),
    # a negative base under an int exponent in every draw: a `**` that fails there (as
    # e^(n log x) does) fails this check under every seed, not under some
    _unary_shape("pow", 3, sign="-"),
    # one input feeding two functions: a result kept on the input (`self._out`) and read back
    # by `_backward` is overwritten by the second, under every seed, not only when a draw
    # happens to share an input
    ("??", [["exp", 0, None, None], ["tanh", 0, None, None], ["mul", 2, 3, None],
            ["sigmoid", 0, None, None], ["add", 4, 5, None], ["add", 6, 1, None]]),
    # two leaves holding the same number, each through exp: a node kept per input number hands
    # the second leaf the first one's node, under every seed
    ("?=", [["exp", 0, None, None], ["exp", 1, None, None], ["mul", 2, 3, None]]),
]


# Lab 03 walks big graphs: the traversal shapes of lab 01, and a graph where x*x and x + x list
# x twice in _prev while x has other users on both sides of the final sums (a sort that counts
# users per distinct parent runs x too early whichever side it finishes first).
SHAPES_LAB03: list[tuple[str, list[list[Any]]]] = [
    *SHAPES_LAB01,
    ("???", [["mul", 0, 1, None], ["mul", 3, 3, None], ["add", 3, 2, None], ["add", 4, 5, None],
             ["mul", 0, 2, None], ["add", 7, 1, None], ["mul", 7, 7, None], ["add", 8, 9, None],
             ["add", 6, 10, None], ["add", 0, 0, None], ["mul", 12, 11, None]]),
    ("??", [["tanh", 0, None, None], ["sub", 2, 1, None], ["mul", 3, 3, None],
            ["add", 4, 2, None], ["pow", 5, None, 2], ["add", 6, 3, None]]),
    # every operation lab 02 wrote, its node scaled and used twice: lab 03's value.py hands
    # them over complete, but a student's edit can still break one (relu below 1 and below 0:
    # its slope is 1 on (0, 1) as well)
    *(_unary_shape(op) for op in ("neg", "exp", "tanh", "sigmoid")),
    _unary_shape("log", sign="+"),
    _unary_shape("relu", sign="<"), _unary_shape("relu", sign="-"),
    _unary_shape("pow", 3), _binary_shape("sub"), _binary_shape("truediv"),
]


def reused_op_programs(rng: random.Random) -> list[Program]:
    """op(a) + a for every operation of lab02 (and (a op b) + a + b for - and /): a node that
    overwrites its input's gradient loses the + a, whatever the op."""
    unary = [("neg", None, "?"), ("exp", None, "?"), ("log", None, "+"), ("tanh", None, "?"),
             ("relu", None, "+"), ("sigmoid", None, "?"), ("pow", 2, "-"), ("pow", 0.5, "+")]
    programs = [{"leaves": _leaf_values(rng, sign), "nodes": [[op, 0, None, k], ["add", 1, 0, None]]}
                for op, k, sign in unary]
    programs += [{"leaves": _leaf_values(rng, "??"),
                  "nodes": [[op, 0, 1, None], ["add", 2, 0, None], ["add", 3, 1, None]]}
                 for op in ("sub", "truediv")]
    return programs


def programs_without(programs: list[Program], ops: set[str]) -> list[Program]:
    """The programs that use none of `ops`: a cross-operation check judges each operation on its
    own, so an operation whose own checks failed costs those checks, not this one."""
    return [program for program in programs
            if not {node[0] for node in program["nodes"]} & ops]


def fixed_shapes(rng: random.Random, shapes: Sequence[tuple[str, list[list[Any]]]]) -> list[Program]:
    """The shapes that matter, with fresh leaf values from `rng`."""
    return [{"leaves": _leaf_values(rng, signs), "nodes": [list(node) for node in nodes]}
            for signs, nodes in shapes]


def draw_programs(rng: random.Random, ops: Sequence[str], count: int,
                  shapes: Sequence[tuple[str, list[list[Any]]]]) -> list[Program]:
    """The fixed shapes, then `count` random programs: the same ones for the same rng."""
    programs = fixed_shapes(rng, shapes)
    drawn = [random_program(rng, ops) for _ in range(count)]
    return programs + [p for p in drawn if forward_values(p) is not None]
