"""Mutation score of each hidden suite: mutants of the reference solutions, graded as a class.

Usage: python bench/mutation.py [--lab LAB ...] [--workers N] [--seed SEED] [--list-survivors]
(`make mutation`; not part of `make test`: it grades a few hundred submissions.)

Mutants come from two sources:
- mutmut's operators (`mutmut.mutation.file_mutation.create_mutations`), applied one at a
  time to the lab's reference solution (the files students hand in);
- domain mutations mutmut does not make: `+=` to `=`, reversed to forward order, a dropped
  visited set, no seed, zero_grad skipping nodes, parameters copied, ... (DOMAIN below).

Each mutant is graded with the lab's public and hidden suites, exactly as a student's
submission; it is killed when it does not get full marks. A survivor is either killed by a
check or listed in bench/equivalent_mutants.md (its key, then the reason it is equivalent);
the score printed per lab is killed / (mutants - listed equivalents).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.common.labs import LABS, Lab  # noqa: E402
from grader.grading.batch import BatchOptions, grade_class  # noqa: E402
from grader.grading.shard import GradingPlan, suites_for  # noqa: E402

EQUIVALENT = ROOT / "bench" / "equivalent_mutants.md"

# (lab, name, old text, new text): one bug of the course's pitfalls each, by text replacement
# in the reference solution (old must occur in it).
DOMAIN: list[tuple[str, str, str, str]] = [
    ("lab01_graph", "add overwrites", "self.grad += out.grad  # d(out)/d(self) = 1",
     "self.grad = out.grad"),
    ("lab01_graph", "mul overwrites", "self.grad += other.data * out.grad",
     "self.grad = other.data * out.grad"),
    ("lab01_graph", "forward order", "for v in reversed(topo):", "for v in topo:"),
    ("lab01_graph", "no visited set", "elif v not in visited:", "else:"),
    ("lab01_graph", "no seed", "self.grad = 1.0  # d(self)/d(self) = 1", "pass"),
    ("lab01_graph", "seed after the walk", "self.grad = 1.0  # d(self)/d(self) = 1\n        for v in reversed(topo):\n            v._backward()",
     "for v in reversed(topo):\n            v._backward()\n        self.grad = 1.0"),
    ("lab01_graph", "no number wrapping", "other = other if isinstance(other, Value) else Value(other)\n        out = Value(self.data * other.data",
     "out = Value(self.data * other.data"),
    ("lab02_ops", "exp overwrites", "self.grad += out.data * out.grad", "self.grad = out.data * out.grad"),
    ("lab02_ops", "tanh overwrites", "self.grad += (1 - out.data ** 2) * out.grad",
     "self.grad = (1 - out.data ** 2) * out.grad"),
    ("lab02_ops", "log overwrites", "self.grad += (1 / self.data) * out.grad",
     "self.grad = (1 / self.data) * out.grad"),
    ("lab02_ops", "tanh reads its input", "self.grad += (1 - out.data ** 2) * out.grad",
     "self.grad += (1 - self.data ** 2) * out.grad"),
    ("lab02_ops", "pow off by one", "other * self.data ** (other - 1)", "other * self.data ** other"),
    ("lab03_backprop", "forward order", "for v in reversed(topo):", "for v in topo:"),
    ("lab03_backprop", "no seed", "self.grad = 1.0  # d(self)/d(self) = 1", "pass"),
    ("lab03_backprop", "seed added", "self.grad = 1.0  # d(self)/d(self) = 1", "self.grad += 1.0"),
    ("lab03_backprop", "no cycle check", 'raise ValueError(f"backward(): the graph has a cycle through {v!r}")',
     "pass"),
    ("lab03_backprop", "zero_grad skips leaves", "            v.grad = 0.0\n            stack.extend(v._prev)",
     "            if v._prev:\n                v.grad = 0.0\n            stack.extend(v._prev)"),
    ("lab03_backprop", "zero_grad without a visited set", "        if v not in visited:\n            visited.add(v)\n            v.grad = 0.0",
     "        if True:\n            v.grad = 0.0"),
    ("lab03_backprop", "restore by arithmetic", "x.data = original  # exactly the number it held, even if f raised",
     "x.data = x.data + h"),
    ("lab03_backprop", "one-sided difference", "grads.append((f_plus - f_minus) / (2 * h))",
     "grads.append((f_plus - f(*xs).data) / h)"),
    ("lab03_backprop", "check_grad any", "return all(abs(a - n)", "return any(abs(a - n)"),
    ("lab03_backprop", "check_grad no zero", "zero_grad(out)  # its nodes may still hold",
     "pass  # its nodes may still hold"),
    ("lab03_backprop", "check_grad absolute tolerance", "tol * max(1.0, abs(n))", "tol"),
    ("lab04_xor", "parameters copied", "return self.w + [self.b]",
     "return [Value(p.data) for p in self.w + [self.b]]"),
    ("lab04_xor", "zero_grad skips biases", "for p in self.parameters():\n            p.grad = 0.0",
     "for p in self.parameters()[:-1]:\n            p.grad = 0.0"),
    ("lab04_xor", "last layer tanh", "nonlin=i != len(nouts) - 1", "nonlin=True"),
]


@dataclass(frozen=True)
class Mutant:
    """One mutated solution: a stable key, and the source of each file students hand in."""

    lab: str
    key: str
    files: dict[str, str]


def _key(lab: str, original: str, mutated: str, origin: str) -> str:
    """`lab L<line>: <old line> -> <new line>` for the first line that differs."""
    old, new = original.splitlines(), mutated.splitlines()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            before = " / ".join(line.strip() for line in old[i1:i2]) or "(nothing)"
            after = " / ".join(line.strip() for line in new[j1:j2]) or "(nothing)"
            return f"{lab} L{i1 + 1} [{origin}]: {before} -> {after}"
    return f"{lab} [{origin}]: (no change)"


def mutmut_mutants(lab: Lab) -> list[Mutant]:
    """One mutant per mutmut mutation of each of the lab's files."""
    from mutmut.mutation.file_mutation import create_mutations, deep_replace

    mutants = []
    for name in lab.files:
        code = (lab.solution_dir / name).read_text(encoding="utf-8")
        module, mutations, _classes, _functions = create_mutations(name, code)
        for mutation in mutations:
            mutated = deep_replace(module, mutation.original_node, mutation.mutated_node)
            source = mutated.code  # type: ignore[union-attr]
            if source != code:
                files = {n: (lab.solution_dir / n).read_text(encoding="utf-8") for n in lab.files}
                files[name] = source
                mutants.append(Mutant(lab.name, _key(lab.name, code, source, "mutmut"), files))
    return mutants


def domain_mutants(lab: Lab) -> list[Mutant]:
    """The DOMAIN mutations of this lab."""
    mutants = []
    code = (lab.solution_dir / lab.main_file).read_text(encoding="utf-8")
    for name, old, new in ((n, o, w) for lab_name, n, o, w in DOMAIN if lab_name == lab.name):
        if old not in code:
            raise SystemExit(f"{lab.name}: domain mutation {name!r} no longer applies")
        source = code.replace(old, new, 1)
        mutants.append(Mutant(lab.name, _key(lab.name, code, source, f"domain: {name}"),
                              {lab.main_file: source}))
    return mutants


def equivalents() -> set[str]:
    """Keys listed in bench/equivalent_mutants.md (each list item starts with its key in `...`)."""
    if not EQUIVALENT.is_file():
        return set()
    return set(re.findall(r"^- `(.+?)`", EQUIVALENT.read_text(encoding="utf-8"), re.M))


def grade(lab: Lab, mutants: list[Mutant], workers: int, folder: Path, seed: str) -> list[bool]:
    """Whether each mutant was killed (did not get full marks)."""
    paths = []
    for index, mutant in enumerate(mutants):
        path = folder / lab.name / f"m{index:04d}"
        path.mkdir(parents=True)
        for name, source in mutant.files.items():
            (path / name).write_text(source, encoding="utf-8")
        paths.append(path)
    plan = GradingPlan(lab, suites_for(lab, hidden=True), seed, "en")
    docs = grade_class(plan, paths, BatchOptions(out_dir=None, workers=workers,
                                                 shard_timeout_s=3600), lambda *args: None)
    return [doc["status"] != "graded" or doc["score"] < doc["max_score"] for doc in docs]


def main() -> None:
    """Grade every mutant of each lab and print killed / total."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lab", action="append", choices=sorted(LABS))
    parser.add_argument("--workers", type=int, default=max(1, os.cpu_count() or 1))
    parser.add_argument("--seed", default="mutation",
                        help="course seed the mutants are graded under (a kill must not depend on it)")
    parser.add_argument("--list-survivors", action="store_true")
    args = parser.parse_args()
    listed = equivalents()
    failed = False
    with tempfile.TemporaryDirectory(prefix="minigrad-mutants-") as tmp:
        for name in args.lab or sorted(LABS):
            lab = LABS[name]
            mutants = mutmut_mutants(lab) + domain_mutants(lab)
            killed = grade(lab, mutants, args.workers, Path(tmp), args.seed)
            survivors = [m.key for m, k in zip(mutants, killed, strict=True) if not k]
            equivalent = [key for key in survivors if key in listed]
            unexplained = [key for key in survivors if key not in listed]
            judged = len(mutants) - len(equivalent)
            score = 100 * sum(killed) / judged if judged else 100.0
            print(f"{name}: {sum(killed)}/{judged} non-equivalent mutants killed ({score:.1f}%); "
                  f"{len(mutants)} mutants, {len(equivalent)} listed as equivalent, "
                  f"{len(unexplained)} unexplained survivors")
            if args.list_survivors or unexplained:
                for key in unexplained:
                    print(f"  - `{key}`")
            failed = failed or score < 95
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
