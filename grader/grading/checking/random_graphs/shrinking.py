"""Shrinking a failing program: greedy rounds of smaller candidates, within a time budget.

Side: trusted process. Each round runs every smaller candidate once in the sandbox (through the
`still_fails` callback) and keeps the smallest that still fails, so the student is shown the
smallest program found, not the one first drawn.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from grader.grading.checking.random_graphs.programs import (
    Program,
    forward_values,
    program_nodes,
    prune,
    size,
)

SHRINK_SECONDS = 1.0
SHRINK_ROUNDS = 12


def _without_node(program: Program, node: int, replacement: int) -> Program:
    """The program with every use of value `node` replaced by the earlier value `replacement`."""
    offset = len(program["leaves"])
    nodes = []
    for n, (op, i, j, k) in enumerate(program["nodes"]):
        if offset + n == node:
            nodes.append(["add", replacement, replacement, None])  # unused once rewired
            continue
        nodes.append([op, replacement if i == node else i,
                      (replacement if j == node else j) if j is not None else None, k])
    return prune({"leaves": list(program["leaves"]), "nodes": nodes})


def candidates(program: Program) -> list[Program]:
    """Smaller programs to try: the output moved to an inner node, or a node bypassed (its users
    take one of its operands instead); only programs whose ops stay in their domains."""
    offset = len(program["leaves"])
    found: list[Program] = []
    for n in range(len(program["nodes"]) - 1):
        found.append(prune({"leaves": list(program["leaves"]), "nodes": program["nodes"][:n + 1]}))
    for n, node in enumerate(program_nodes(program)[:-1]):
        for operand in dict.fromkeys(x for x in (node.first, node.second) if x is not None):
            found.append(_without_node(program, offset + n, operand))
    unique = {repr(p): p for p in found if p["nodes"] and size(p) < size(program)}
    return [p for p in unique.values() if forward_values(p) is not None]


def _simpler_leaves(program: Program) -> Program | None:
    """The program with leaves rounded to one decimal (kept away from 0 and 1), if that changes
    them and the ops stay in their domains."""
    leaves = []
    for v in program["leaves"]:
        rounded = round(v, 1)
        leaves.append(v if abs(abs(rounded) - 1) < 0.05 or rounded == 0 else rounded)
    if leaves == program["leaves"]:
        return None
    simpler = {"leaves": leaves, "nodes": program["nodes"]}
    return simpler if forward_values(simpler) is not None else None


def shrink(program: Program, still_fails: Callable[[list[Program]], list[bool]]) -> Program:
    """The smallest failing program found by greedy rounds of candidates, within the budget."""
    deadline = time.monotonic() + SHRINK_SECONDS
    current = program
    for _ in range(SHRINK_ROUNDS):
        if time.monotonic() > deadline:
            break
        options = candidates(current)
        simpler = _simpler_leaves(current)
        if simpler is not None:
            options.append(simpler)
        if not options:
            break
        verdicts = still_fails(options)
        failing = [p for p, failed in zip(options, verdicts, strict=True) if failed]
        if not failing:
            break
        current = min(failing, key=lambda p: (size(p), p is not simpler))
    return current
