"""The contract's dimensions as one table, and the programs and sessions generated from it.

Side: trusted process. The lab READMEs state what an engine must handle (section "The inputs
your engine must handle"); this module writes that statement as data, `DIMENSIONS`, and
generates from it what the contract checks run, differentially against the reference solution:

- operations x operand kinds (two Values, the same Value twice, a number on either side, one
  Value) x edge values (0, 1, -1, tiny, large, a number with many significant digits,
  negative, and each function's own edges, the largest float for those defined everywhere) x int or float data, every
  combination whose results and gradients are finite on plain floats (`edge_programs`), data
  compared exactly (`comparing.differences(exact=True)`); relu at its kink, 0 (`judge_kinks`);
- graph shapes: one input feeding several different operations (`fan_out_programs`);
- instance state: programs run one after another with the garbage collector between them,
  two graphs built before either backward(), graphs built interleaved, equal numbers in
  distinct nodes, the same shape with other numbers on fresh nodes (where dead ones were) and on
  the same leaves given new data (`state_sessions`, run by
  `grader.grading.child.graph.run_sessions`).

Programs are the random-graph checks' (`random_graphs.programs`): they are judged, shrunk and
shown by the same code. `judge_sessions` judges the sessions, which are not shrunk: what they
show is an order of building, not a graph.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from grader.grading.checking.random_graphs import as_python, differences, judge, names
from grader.grading.checking.random_graphs.comparing import fails
from grader.grading.checking.random_graphs.programs import Program, node_of, size
from grader.grading.checking.verdict import NotRun, fail, field, said
from grader.grading.child.graph import OPERATIONS

TINY, LARGE = 1e-300, 1e100
FLOAT_MAX = sys.float_info.max  # the largest finite float: x + x, x + abs(x) overflow there
DIGITS = 1.2345678901234567e-7  # every digit significant: rounding to n decimals shows
# The edges of every Value operand: exactly 0, 1 and -1, tiny and large of either sign, a small
# number with many significant digits, and an ordinary number of each sign. (The largest float
# is an edge of the functions defined on every float, below: with it, the intermediate
# products of right formulas for + - * / overflow where the result does not.)
EDGES: tuple[float, ...] = (0.0, 1.0, -1.0, TINY, -TINY, LARGE, -LARGE, -1.75, 2.5, DIGITS)
# int data (the README: every leaf is an int or a float): int / int is a float, 7 / 2 is 3.5.
INT_LEAVES: tuple[int, ...] = (7, -3, 2)
# A divisor: nonzero, and with b**-2 finite (micrograd writes a / b as a * b**-1).
DIVISORS: tuple[float, ...] = (1.0, -1.0, LARGE, -LARGE, -1.75, 2.5, 0.5)
# Plain numbers as students write them (ints included) on either side of an operator.
NUMBERS: tuple[float, ...] = (0, 1, -1, 2, 0.5, TINY, LARGE, -LARGE)
NUMBER_DIVISORS: tuple[float, ...] = (1, -1, 2, 0.5, LARGE, -LARGE)
# Exponents: any int (0 and 1 included), and floats at a positive base.
EXPONENTS: tuple[float, ...] = (0, 1, 2, 3, -1, -2, 0.5, 1.5, -0.5)
# Each function's own edges, inside the stated domain.
EXP_EDGES: tuple[float, ...] = (-700.0, 700.0, 0.0, 1.0, -1.0, TINY, -TINY, 2.5, -1.75)
LOG_EDGES: tuple[float, ...] = (TINY, 1e300, 1.0, 1e-100, LARGE, 0.5, 2.5)
# Small inputs (0.005, 1e-8) besides tiny ones: near 0 tanh(x) is about x, and its data is
# compared relatively there, down to an absolute 1e-14 (`comparing.INEXACT_OPS`): a shortcut
# tanh(x) = x is off by x**3/3.
SMALL = 0.005
ORDINARY_EDGES: tuple[float, ...] = (0.0, 1.0, -1.0, TINY, -TINY, 2.5, -1.75, 20.0, -20.0,
                                     SMALL, -SMALL, 1e-8)
# Where tanh and sigmoid saturate: e**(2x) and e**-x overflow there (a check of their own).
SATURATING_EDGES: tuple[float, ...] = (1000.0, -1000.0, 710.0, -710.0, 1e300, -1e300, FLOAT_MAX,
                                       -FLOAT_MAX)
# relu: every finite float, the largest ones included; exactly 0 is its kink (KINKS).
RELU_EDGES: tuple[float, ...] = (1.0, -1.0, TINY, -TINY, LARGE, -LARGE, 1e300, -1e300, 2.5,
                                 -1.75, DIGITS, FLOAT_MAX, -FLOAT_MAX)
# relu at exactly 0, float and int: the README says its slope there is 0; engines in use take 1
# too, which costs nothing (`judge_kinks`), but a slope that raises or is not a number does.
KINKS: tuple[float, ...] = (0.0, 0)
UPSTREAM = -1.5  # a second copy of each program scales its output: the upstream gradient != 1


@dataclass(frozen=True)
class Dimension:
    """One row of the contract's table: an operation, the operand kind it is used with, the
    values of its first operand, and of its second Value or plain number (empty: none)."""

    op: str
    kind: str  # "two values" | "same value" | "number" | "one value"
    first: tuple[float, ...]
    second: tuple[float, ...] = ()
    group: str = "edges"  # "edges" | "saturating" | "kink": which check runs the row


def _binary(op: str, second: tuple[float, ...] = EDGES) -> list[Dimension]:
    same = tuple(v for v in EDGES if v in second)  # a / a needs a nonzero divisor too
    return [Dimension(op, "two values", EDGES, second), Dimension(op, "same value", same)]


def with_int_data(rows: tuple[Dimension, ...]) -> tuple[Dimension, ...]:
    """The rows, then each edges row again with int data: its Values hold INT_LEAVES, its plain
    numbers are its own int ones."""
    ints = tuple(Dimension(row.op, row.kind, INT_LEAVES,
                           INT_LEAVES if row.kind == "two values"
                           else tuple(k for k in row.second if type(k) is int))
                 for row in rows if row.group == "edges")
    return (*rows, *ints)


_LAB01_FLOAT_ROWS: tuple[Dimension, ...] = (
    *_binary("add"), *_binary("mul"),
    *(Dimension(op, "number", EDGES, NUMBERS) for op in (
        "add-number-on-right", "add-number-on-left", "mul-number-on-right",
        "mul-number-on-left")),
)
DIMENSIONS_LAB01 = with_int_data(_LAB01_FLOAT_ROWS)
DIMENSIONS_LAB02: tuple[Dimension, ...] = with_int_data((
    *_LAB01_FLOAT_ROWS,
    *_binary("sub"), *_binary("truediv", DIVISORS),
    Dimension("sub-number-on-right", "number", EDGES, NUMBERS),
    Dimension("sub-number-on-left", "number", EDGES, NUMBERS),
    Dimension("truediv-number-on-right", "number", EDGES, NUMBER_DIVISORS),
    Dimension("truediv-number-on-left", "number", DIVISORS, NUMBERS),
    Dimension("neg", "one value", EDGES),
    Dimension("pow", "number", EDGES, EXPONENTS),
    Dimension("exp", "one value", EXP_EDGES),
    Dimension("log", "one value", LOG_EDGES),
    Dimension("tanh", "one value", ORDINARY_EDGES),
    Dimension("sigmoid", "one value", ORDINARY_EDGES),
    Dimension("relu", "one value", RELU_EDGES),
    Dimension("tanh", "one value", SATURATING_EDGES, group="saturating"),
    Dimension("sigmoid", "one value", SATURATING_EDGES, group="saturating"),
    Dimension("relu", "one value", KINKS, group="kink"),
))
DIMENSIONS = {"lab01_graph": DIMENSIONS_LAB01, "lab02_ops": DIMENSIONS_LAB02}


def _in_stated_domain(op: str, a: float, k: float | None) -> bool:
    """The README's domain where a finite result alone does not say it: `**`'s base and
    exponent (an int exponent at any base, != 0 when k <= 0; a float one at a base > 0)."""
    if op != "pow" or k is None:
        return True
    if float(k).is_integer():
        return a != 0 or k > 0
    return a > 0


def model(program: Program, kink: float = 0.0,
          passes: int = 1) -> tuple[list[float], list[float]] | None:
    """Every value's data and gradient on plain floats (the chain rule over the operation
    table, relu's slope at exactly 0 being `kink`) after `passes` calls of backward() with
    nothing reset between them (each sets the output's grad to 1 and adds to every other), or
    None when one is not finite or a local derivative cannot be computed: outside the
    contract, where no engine is judged."""
    values = [float(v) for v in program["leaves"]]
    try:
        for n in range(len(program["nodes"])):
            node = node_of(program, len(program["leaves"]) + n)
            if not _in_stated_domain(node.op, values[node.first], node.number):
                return None
            value = OPERATIONS[node.op].forward(*node.operands(values))
            if isinstance(value, complex) or not math.isfinite(value):
                return None
            values.append(float(value))
        grads = [0.0] * len(values)
        for _ in range(passes):
            grads[-1] = 1.0
            for n in range(len(program["nodes"]) - 1, -1, -1):
                index = len(program["leaves"]) + n
                node = node_of(program, index)
                first, second = OPERATIONS[node.op].partials(*node.operands(values))
                if node.op == "relu" and values[node.first] == 0:
                    first = kink
                grads[node.first] += first * grads[index]
                if node.second is not None:
                    grads[node.second] += second * grads[index]
    except (OverflowError, ZeroDivisionError, ValueError):
        return None
    if not all(math.isfinite(g) and abs(g) < 1e306 for g in grads):  # and scaled by UPSTREAM
        return None
    return values, grads


def _programs_of(row: Dimension) -> Iterable[Program]:
    for a in row.first:
        if row.kind == "one value":
            yield {"leaves": [a], "nodes": [[row.op, 0, None, None]]}
        elif row.kind == "same value":
            yield {"leaves": [a], "nodes": [[row.op, 0, 0, None]]}
        for b in row.second:
            if row.kind == "two values":
                yield {"leaves": [a, b], "nodes": [[row.op, 0, 1, None]]}
            elif row.kind == "number":
                yield {"leaves": [a], "nodes": [[row.op, 0, None, b]]}


def scaled(program: Program) -> Program:
    """The program with its output multiplied by UPSTREAM: the operation's `_backward` then
    meets an upstream gradient that is not 1."""
    last = size(program) - 1
    return {"leaves": list(program["leaves"]),
            "nodes": [*program["nodes"], ["mul-number-on-right", last, None, UPSTREAM]]}


def edge_programs(dimensions: Sequence[Dimension], group: str = "edges",
                  ops: Iterable[str] | None = None) -> list[Program]:
    """Every combination of the rows of `group` (of `ops`, if given) whose results and
    gradients are finite, alone and with its output scaled: the same list under every seed."""
    wanted = None if ops is None else set(ops)
    found: list[Program] = []
    for row in dimensions:
        if row.group != group or (wanted is not None and row.op not in wanted):
            continue
        for program in _programs_of(row):
            for variant in (program, scaled(program)):
                if model(variant) is not None:
                    found.append(variant)
    return found


def _ordinary(rng: random.Random) -> float:
    """A leaf value away from 0, from 1 and from the functions' edges, 3 decimals."""
    return rng.choice((-1, 1)) * round(rng.uniform(0.3, 2.5), 3)


# The operations that take one Value (and a number), with a number where they need one, and a
# leaf sign that keeps them in their domain: what one input feeds in `fan_out_programs`.
UNARY_USES: dict[str, tuple[float | None, int]] = {
    "neg": (None, 0), "exp": (None, 0), "log": (None, 1), "tanh": (None, 0),
    "sigmoid": (None, 0), "relu": (None, 0), "pow": (2, 0),
    "add-number-on-right": (2, 0), "mul-number-on-left": (3, 0),
    "sub-number-on-left": (2, 0), "truediv-number-on-right": (2, 0)}


def fan_out_programs(rng: random.Random, ops: Sequence[str]) -> list[Program]:
    """One input a feeding two different operations, then a third: out = f(a) * g(a) + h(a, b)
    for every pair f, g of `ops` (one input, several operations: no other shape has it)."""
    usable = [op for op in UNARY_USES if op in ops]
    binary = [op for op in ("add", "mul", "sub", "truediv") if op in ops]
    found: list[Program] = []
    for n, first in enumerate(usable):
        for second in usable[n + 1:]:
            positive = max(UNARY_USES[first][1], UNARY_USES[second][1])
            a = abs(_ordinary(rng)) if positive else _ordinary(rng)
            b = _ordinary(rng)
            joint = binary[len(found) % len(binary)]
            program = {"leaves": [a, b], "nodes": [
                [first, 0, None, UNARY_USES[first][0]], [second, 0, None, UNARY_USES[second][0]],
                ["mul", 2, 3, None], [joint, 0, 1, None], ["add", 4, 5, None]]}
            if model(program) is not None:
                found.append(program)
    return found


def _chain(op: str, rng: random.Random) -> Program:
    """x = op(a) (or a op b); out = x*b + a: the operation in a small graph of its own."""
    k, positive = UNARY_USES.get(op, (2 if OPERATIONS[op].number else None, 0))
    a = abs(_ordinary(rng)) if positive else _ordinary(rng)
    b = _ordinary(rng)
    second = 1 if OPERATIONS[op].binary else None
    return {"leaves": [a, b], "nodes": [[op, 0, second, k], ["mul", 2, 1, None],
                                        ["add", 3, 0, None]]}


ORDERS = (("sequential", True), ("sequential", False), ("built-first", False),
          ("interleaved", False))


def state_sessions(rng: random.Random, ops: Sequence[str]) -> list[dict[str, Any]]:
    """For each operation, its small graph run three times with the same numbers (fresh leaves
    each time) in every order the contract allows, and beside another operation's graph; then
    the same graph with other numbers, alone, on fresh nodes after the first one died, and on
    the first one's leaves given the new data: a gradient or a result kept by id() outlives its
    node, a node kept per number is shared."""
    sessions: list[dict[str, Any]] = []
    for n, op in enumerate(ops):
        program = _chain(op, rng)
        other = _chain(ops[(n + 1) % len(ops)], rng)
        for order, collect in ORDERS:
            sessions.append({"programs": [program, program, program], "order": order,
                             "collect": collect})
        sessions.append({"programs": [program, other, program], "order": "interleaved",
                         "collect": False})
        renumbered = {"leaves": _chain(op, rng)["leaves"], "nodes": program["nodes"]}
        sessions += [{"programs": [renumbered], "order": "sequential", "collect": False},
                     {"programs": [program, renumbered], "order": "sequential", "collect": True},
                     {"programs": [program, renumbered], "order": "data-changed",
                      "collect": False},
                     {"programs": [program, continued(program, other)], "order": "continued",
                      "collect": False}]
    return [s for s in sessions if all(model(p) is not None for p in s["programs"])]


def continued(program: Program, other: Program) -> Program:
    """`other`'s nodes on `program`'s leaves: built after `program`'s backward() on the same
    leaf nodes, nothing reset (a "continued" session), its leaves' gradients add to theirs."""
    return {"leaves": list(program["leaves"]), "nodes": [list(node) for node in other["nodes"]]}


# How the feedback says a session's order (catalogue details, nested with `said`).
ORDER_DETAILS = {("sequential", True): "session-sequential-collected",
                 ("sequential", False): "session-sequential",
                 ("built-first", False): "session-built-first",
                 ("interleaved", False): "session-interleaved",
                 ("data-changed", False): "session-data-changed",
                 ("continued", False): "session-continued"}


def _shown_session(session: dict[str, Any]) -> dict[str, Any]:
    kind = ORDER_DETAILS[(session["order"], bool(session.get("collect")))]
    return said(kind, count=len(session["programs"]))


def _programs_text(session: dict[str, Any]) -> str:
    """The session's programs as Python, " | " between them; a continued session's later
    programs without their leaves' lines (they use the first program's leaves)."""
    texts = [as_python(program) for program in session["programs"]]
    if session["order"] == "continued":
        leaves = len(session["programs"][0]["leaves"])
        texts[1:] = ["; ".join(text.split("; ")[leaves:]) for text in texts[1:]]
    return " | ".join(texts)


def modelled(sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What every session must give, from `model`: each program's numbers do not depend on the
    order it was built in, nor on the programs beside it (the public checks' expected values)."""
    entries = []
    for session in sessions:
        results: list[dict[str, Any]] = []
        for program in session["programs"]:
            found = model(program)
            if found is None:
                raise ValueError(f"{as_python(program)} is outside the contract's domain")
            data, grad = found
            if session["order"] == "continued" and results:  # the leaves keep what they had
                leaves = len(program["leaves"])
                grad = [g + kept for g, kept in zip(grad[:leaves], results[-1]["grad"],
                                                    strict=False)] + grad[leaves:]
            results.append({"data": data, "grad": grad})
        entries.append({"results": results, "returned": []})
    return entries


def _expected(reference: Callable[..., Any] | None, scen: Any,
              sessions: list[dict[str, Any]]) -> tuple[list[Any], str]:
    """What the sessions must give, and where that comes from: the reference's run, or (None,
    a public check) `model`."""
    if reference is None:
        return modelled(sessions), "literal"
    return field(reference(scen, sessions=sessions), "sessions", list), "reference"


def _runs_agree(program: Program, got: list[Any], sessions: list[dict[str, Any]]) -> bool:
    """True when every run of `program` in the sessions gave the same numbers (or raised):
    then what is wrong with them does not depend on what was built before or beside it."""
    runs = [result for session, entry in zip(sessions, got, strict=True)
            if isinstance(entry, dict) and isinstance(entry.get("results"), list)
            for other, result in zip(session["programs"], entry["results"], strict=False)
            if other == program]
    return all(differences(program, runs[0], {"data": r.get("data"), "grad": r.get("grad")})
               == [] for r in runs[1:] if isinstance(r, dict) and "error" not in r)


def judge_sessions(sandboxed: Callable[..., Any], reference: Callable[..., Any] | None, scen: Any,
                   sessions: list[dict[str, Any]], pitfall: str, evidence: bool = False,
                   exact: bool = False) -> None:
    """Fail, naming `pitfall`, at the first session where a program's data or gradients differ
    from the reference's (`reference` None: from `model`, as a public check does), or the
    student's code raised where the reference did not. With `evidence`, a program that gives
    the same wrong numbers in every run is not state kept between graphs: the check declines
    (`state-not-the-cause`) and the checks of numbers name it. `exact`: data compared exactly
    (`comparing.differences`)."""
    got = field(sandboxed(scen, sessions=sessions), "sessions", list)
    want, source = _expected(reference, scen, sessions)
    if len(got) != len(sessions):
        fail("bad-result", reason="the results do not have one entry per session")
    for session, student, expected in zip(sessions, got, want, strict=True):
        if "error" in expected:
            raise RuntimeError(f"the reference raised on {_programs_text(session)}: "
                               f"{expected['error']}")
        results = _session_results(student, session, pitfall)
        for number, (program, mine, theirs) in enumerate(
                zip(session["programs"], results, expected["results"], strict=True), start=1):
            found = differences(program, mine, theirs, exact) or []
            if (found and evidence and session["order"] != "continued"  # it shows state
                    and _runs_agree(program, got, sessions)):
                raise NotRun("state-not-the-cause", program=as_python(program))
            if found:
                label = names(program)
                shown = [{"quantity": f"{label[d.node]}.{d.what}", "actual": d.actual,
                          "expected": d.expected} for d in found[:6]]
                fail("session-mismatch", pitfall=pitfall, session=_shown_session(session),
                     programs=_programs_text(session), number=number, differences=shown,
                     source=source)


def split_inputs(program: Program) -> Program:
    """The program with every use of a leaf after its first given a leaf of its own, holding
    the same number: the same numbers, and no input shared between operations."""
    offset = len(program["leaves"])
    leaves, used, uses = list(program["leaves"]), set(), []
    for _op, i, j, _k in program["nodes"]:
        row = []
        for x in (i, j):
            if x is not None and x < offset and x in used:
                leaves.append(program["leaves"][x])
                row.append(-len(leaves))  # a new leaf, renumbered below
            else:
                if x is not None and x < offset:
                    used.add(x)
                row.append(x)
        uses.append(row)
    shift = len(leaves) - offset

    def index(x: int | None) -> int | None:
        if x is None:
            return None
        if x < 0:
            return -x - 1
        return x if x < offset else x + shift

    nodes = [[op, index(a), index(b), k]
             for (op, _i, _j, k), (a, b) in zip(program["nodes"], uses, strict=True)]
    return {"leaves": leaves, "nodes": nodes}


def judge_shared_inputs(sandboxed: Callable[..., Any], reference: Callable[..., Any] | None,
                        scen: Any, programs: list[Program], pitfall: str) -> None:
    """Judge programs in which one input feeds several operations, each alone; only those whose
    split version (`split_inputs`: the same numbers, no input shared) is right are judged, so a
    failure is the sharing's; not run (`shared-input-not-the-cause`) when none is."""
    split = one_by_one([split_inputs(program) for program in programs])
    got = field(sandboxed(scen, sessions=split), "sessions", list)
    want, _source = _expected(reference, scen, split)
    if len(got) != len(split):
        fail("bad-result", reason="the results do not have one entry per session")
    kept = [program for program, session, mine, theirs in zip(programs, split, got, want,
                                                               strict=True)
            if isinstance(mine, dict) and isinstance(mine.get("results"), list)
            and len(mine["results"]) == 1
            and not differences(session["programs"][0], mine["results"][0],
                                theirs["results"][0])]
    if not kept:
        raise NotRun("shared-input-not-the-cause", program=as_python(programs[0]))
    judge_sessions(sandboxed, reference, scen, one_by_one(kept), pitfall)


def one_by_one(programs: list[Program]) -> list[dict[str, Any]]:
    """Each program as a session of its own (a public check's edges: code not written yet
    raises through `run_sessions` and is said as such)."""
    return [{"programs": [program], "order": "sequential"} for program in programs]


# The public checks' edges: a few of each row, the same for everyone, shown in full.
PUBLIC_FIRST = (0.0, -1.0, TINY, LARGE, 700.0, -700.0, 1000.0, -1000.0, 1e300, DIGITS, FLOAT_MAX,
                7, SMALL)
PUBLIC_SECOND = (0, 2.5, 1, LARGE, 0.5, 2, -1.75)
PUBLIC_SEED = 32  # the public state sessions' leaves: random.Random(PUBLIC_SEED), visible


def public_programs(dimensions: Sequence[Dimension], group: str = "edges") -> list[Program]:
    """The public subset of `edge_programs`: the rows' first operands among PUBLIC_FIRST (or
    their own edges, for a row with none of those) and second ones among PUBLIC_SECOND."""
    found: list[Program] = []
    for row in dimensions:
        if row.group != group:
            continue
        firsts = tuple(v for v in row.first if v in PUBLIC_FIRST) or row.first[:2]
        seconds = tuple(v for v in row.second if v in PUBLIC_SECOND) or row.second[:2]
        small = Dimension(row.op, row.kind, firsts, seconds, row.group)
        found += [variant for program in _programs_of(small)
                  for variant in (program, scaled(program)) if model(variant) is not None]
    return found


def expect_new_values(result: Any, programs: list[Program], pitfall: str) -> None:
    """Fail when an operation returned one of its operands, or something that is not a Value
    (`run_sessions`' "returned" of one built-first session of `programs`)."""
    [entry] = field(result, "sessions", list)
    if not isinstance(entry, dict) or "error" in entry:
        return  # raising is the numbers' checks' to judge
    for found in field(entry, "returned", list):
        if not isinstance(found, dict):
            fail("bad-result", reason="a returned entry is not an object")
        at = found.get("at")
        if not (isinstance(at, list) and len(at) == 2 and all(type(x) is int for x in at)
                and 0 <= at[0] < len(programs)):
            fail("bad-result", reason="a returned entry does not say where")
        program = programs[at[0]]
        node = program["nodes"][at[1]]
        if found.get("returned") == "operand-in-place":
            _fail_in_place(program, at[1], pitfall)
        cut = {"leaves": program["leaves"], "nodes": program["nodes"][:at[1] + 1]}
        expression = OPERATIONS[node[0]].code.format(a="a", b="a" if node[2] == 0 else "b",
                                                     k=node[3])
        kind = "returned-operand" if found.get("returned") == "operand" else "returned-not-value"
        fail(kind, pitfall=pitfall, program=as_python(cut).rsplit("; ", 1)[0],
             expression=expression, returned=str(found.get("returned"))[:60])


def _fail_in_place(program: Program, index: int, pitfall: str) -> None:
    """Fail naming the node `index` of `program` written in place (`t = x; t += y`), after
    the program up to its operands."""
    before = {"leaves": program["leaves"], "nodes": program["nodes"][:index]}
    label = names(before)
    op, first, second, k = program["nodes"][index]
    written = OPERATIONS[op].code.replace(" {b}", "= {b}").replace(" {k}", "= {k}")
    expression = written.format(a="t", b=label[second] if second is not None else "", k=k)
    fail("changed-in-place", pitfall=pitfall, program=as_python(before).rsplit("; ", 1)[0],
         operand=label[first], expression=expression)



def new_value_session(programs: list[Program]) -> dict[str, Any]:
    """The session that builds `programs` and walks none, each node with a Value on its left
    also written in place (`t += b`): what `expect_new_values` judges."""
    return {"programs": programs, "order": "build-only", "augmented": True}


def edge_cover(dimensions: tuple[Dimension, ...], public: bool = False) -> list[Program]:
    """One program per edge value of each row of `dimensions`, not one per pair: the t-th
    first operand with the (t+1)-th second one (so 0 meets an operand that is not 0), the
    output alone and scaled in turn. Every edge value on each side of every operation, in a
    number of backward() calls that a correct but slow engine (0.05 s a call) finishes within
    the check's time: every pair of edges would be hundreds of calls."""
    found: list[Program] = []
    for row in dimensions:
        if row.group != "edges":
            continue
        firsts, seconds = row.first, row.second
        if public:
            firsts = tuple(v for v in firsts if v in PUBLIC_FIRST) or firsts[:2]
            seconds = tuple(v for v in seconds if v in PUBLIC_SECOND) or seconds[:2]
        for t in range(max(len(firsts), len(seconds))):
            a = firsts[t % len(firsts)]
            b = seconds[(t + 1) % len(seconds)] if seconds else None
            if row.kind == "same value":
                program: Program = {"leaves": [a], "nodes": [[row.op, 0, 0, None]]}
            elif row.kind == "two values":
                program = {"leaves": [a, b], "nodes": [[row.op, 0, 1, None]]}
            elif row.kind == "number":
                program = {"leaves": [a], "nodes": [[row.op, 0, None, b]]}
            else:
                program = {"leaves": [a], "nodes": [[row.op, 0, None, None]]}
            variants = (program, scaled(program))
            for variant in (variants if t % 2 == 0 else variants[::-1]):
                if model(variant) is not None:
                    found.append(variant)
                    break
    return found



def _session_results(student: Any, session: dict[str, Any], pitfall: str) -> list[Any]:
    """The results of one session of the student's reply, one per program of the session;
    fails the check on a reply not so shaped, or a session where the student's code raised."""
    if not isinstance(student, dict):
        fail("bad-result", reason="a session's result is not an object")
    if "error" in student:
        fail("session-raised", pitfall=pitfall, session=_shown_session(session),
             programs=_programs_text(session), error=str(student["error"]))
    results: list[Any] = field(student, "results", list)
    if len(results) != len(session["programs"]):
        fail("bad-result", reason="a session does not have one result per program")
    for found in student.get("returned") or []:
        if isinstance(found, dict) and found.get("returned") == "moved-with-operand":
            _fail_moved(session, found, pitfall)
    return results


def _fail_moved(session: dict[str, Any], found: dict[str, Any], pitfall: str) -> None:
    """Fail naming the node of an earlier program whose data moved when its leaves were given
    a later program's numbers (`run_sessions`' "moved-with-operand")."""
    at = found.get("at")
    if not (isinstance(at, list) and len(at) == 2 and all(type(x) is int for x in at)
            and 0 <= at[0] < len(session["programs"]) - 1):
        fail("bad-result", reason="a moved result does not say where")
    program = session["programs"][at[0]]
    if not 0 <= at[1] < len(program["nodes"]):
        fail("bad-result", reason="a moved result names no node")
    label = names(program)[len(program["leaves"]) + at[1]]
    fail("result-moved", pitfall=pitfall, session=_shown_session(session),
         programs=_programs_text(session), node=label, number=at[0] + 1)

def judge_kinks(sandboxed: Callable[..., Any], scen: Any, programs: list[Program],
                pitfall: str) -> None:
    """Judge programs that meet relu at exactly 0 (`edge_programs(..., "kink")`), each alone:
    the student's code must not raise, and its data (exactly) and gradients must be `model`'s
    with the slope there 0 (the README) or 1 (which engines in use take; it costs nothing)."""
    sessions = one_by_one(programs)
    got = field(sandboxed(scen, sessions=sessions), "sessions", list)
    if len(got) != len(sessions):
        fail("bad-result", reason="the results do not have one entry per session")
    for session, program, student in zip(sessions, programs, got, strict=True):
        results = _session_results(student, session, pitfall)
        found = []
        for slope in (0.0, 1.0):
            modelled_run = model(program, kink=slope)
            if modelled_run is None:
                raise ValueError(f"{as_python(program)} is outside the contract's domain")
            want = {"data": modelled_run[0], "grad": modelled_run[1]}
            found.append(differences(program, results[0], want, exact=True) or [])
        if all(found):
            label = names(program)
            shown = [{"quantity": f"{label[d.node]}.{d.what}", "actual": d.actual,
                      "expected": d.expected} for d in found[0][:6]]
            fail("session-mismatch", pitfall=pitfall, session=_shown_session(session),
                 programs=_programs_text(session), number=1, differences=shown,
                 source="literal")


def model_reference(passes: int = 1) -> Callable[..., dict[str, Any]]:
    """A public check's stand-in for the reference, for `random_graphs.judge`: `model`'s
    numbers after `passes` backward() calls, as the random-graph scenarios reply them."""
    def run(scen: Any, graphs: list[Program], record: bool = False) -> dict[str, Any]:
        results = []
        for program in graphs:
            found = model(program, passes=passes)
            results.append({"error": "outside the contract's domain"} if found is None
                           else {"data": found[0], "grad": found[1]})
        return {"results": results}
    return run


def judge_repeated(sandboxed: Callable[..., Any], reference: Callable[..., Any] | None,
                   once: Any, again: Any, programs: list[Program], pitfall: str) -> None:
    """Judge the programs run by `again` (backward() twice, nothing reset between) against the
    reference (None: `model`, as a public check does), only those that `once` (one backward())
    gets right: a failure is then the repetition's, not the graph's. Shrunk as the random
    checks are."""
    first = reference or model_reference(passes=1)
    second = reference or model_reference(passes=2)
    got = field(sandboxed(once, graphs=programs, record=False), "results", list)
    want = field(first(once, graphs=programs, record=False), "results", list)
    if len(got) != len(programs):
        fail("bad-result", reason="the results do not have one entry per graph")
    kept = [program for program, mine, theirs in zip(programs, got, want, strict=True)
            if not fails(program, mine, theirs)]
    if kept:
        judge(sandboxed, second, again, kept, default_pitfall=pitfall, diagnosed=False,
              source="reference" if reference is not None else "literal")
