"""The labelled corpus: independently written engines as the class, and disguised copies of them.

Independent students, one engine per distinct base: the correct engines of
`tests/independent/<lab>/c*` and `tests/blind/<lab>/c_*`, two corpora written by two authors
who did not read each other, in distinct styles (their READMEs), less the engines that share a
base with one kept before them. Two engines share a base when they hold the same function
(the same AST, docstrings left out, of at least SAME_BASE_STATEMENTS statements) that no code of
the course holds: an author who reuses a `backward` or a `numerical_grad` of their own across
engines wrote one engine, not two. That rule reads the code with `ast`, not with the similarity
tool it tests. Left out too, because they are not independent of those bases: the buggy engines
of both corpora (each is one edit of one of the correct engines) and the fixtures of
`tests/fixtures/<lab>/` (most correct ones are the independent engines again, byte for byte or
nearly: `correct-bound-methods` is `c11_bound_methods`; the buggy ones are one edit of a few
bases).

A copy is made of every independent engine with at least MIN_OWN fingerprints of its own once
the course's code is excluded: an engine that is micrograd's, the lecture's or the reference
solution with a few lines changed has nothing of its own to copy, and its copy is
indistinguishable, by design, from a second student handing in the same public code.
"""

from __future__ import annotations

import ast
import functools
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from disguises import NOTEBOOK_DISGUISE, SOURCE_DISGUISES, as_notebook

from grader.common.labs import LABS
from grader.intake.collect import Submission
from grader.similarity.boilerplate import boilerplate_hashes, course_code
from grader.similarity.fingerprints import Fingerprinted, fingerprint
from grader.similarity.sources import HandedIn, read_one

ROOT = Path(__file__).resolve().parents[2]
MIN_OWN = 10
SAME_BASE_STATEMENTS = 6
COPY_PREFIX = "copy-of:"


@dataclass(frozen=True)
class Engine:
    """One independent student: where the engine comes from and its main file's text."""

    id: str
    path: Path
    source: str


@functools.cache
def _functions(source: str) -> frozenset[str]:
    """Each function of the source with at least SAME_BASE_STATEMENTS statements, as the dump
    of its body's AST without its docstring."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = [s for s in node.body
                    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            statements = sum(1 for s in body for n in ast.walk(s) if isinstance(n, ast.stmt))
            if statements >= SAME_BASE_STATEMENTS:
                found.add(ast.dump(ast.Module(body=body, type_ignores=[])))
    return frozenset(found)


@functools.cache
def _given_functions() -> frozenset[str]:
    return frozenset(f for text in course_code().values() for f in _functions(text))


def written_engines(lab_name: str) -> list[Engine]:
    """Every correct engine of the two corpora, in name order."""
    main = LABS[lab_name].main_file
    found = []
    for corpus, prefix in (("independent", "c"), ("blind", "c_")):
        for folder in sorted((ROOT / "tests" / corpus / lab_name).iterdir()):
            if folder.is_dir() and folder.name.startswith(prefix) and (folder / main).is_file():
                found.append(Engine(f"{corpus}/{folder.name}", folder,
                                    (folder / main).read_text(encoding="utf-8")))
    return found


def same_base(first: Engine, second: Engine) -> bool:
    """Tell whether the two engines hold one function of their own, the same."""
    return bool((_functions(first.source) & _functions(second.source)) - _given_functions())


@functools.cache
def independent_engines(lab_name: str) -> tuple[Engine, ...]:
    """The lab's independent students: each engine unless it shares a base with one kept."""
    kept: list[Engine] = []
    for engine in written_engines(lab_name):
        if not any(same_base(engine, other) for other in kept):
            kept.append(engine)
    return tuple(kept)


def copy_id(engine_id: str) -> str:
    """The id of the disguised copy of an engine."""
    return COPY_PREFIX + engine_id


def disguised_copy(engine: Engine, disguise: str, lab_name: str, scratch: Path) -> HandedIn:
    """The engine disguised, read back as grading reads a submission (the notebook one from a
    notebook file)."""
    lab = LABS[lab_name]
    if disguise == NOTEBOOK_DISGUISE:
        notebook = Path(tempfile.mkdtemp(dir=scratch)) / f"{lab_name}.ipynb"
        notebook.write_text(as_notebook(engine.source, lab_name), encoding="utf-8")
        read = read_one(Submission(copy_id(engine.id), notebook), lab)
        assert isinstance(read, HandedIn), f"the notebook of {engine.id} was not read: {read}"
        return read
    text = SOURCE_DISGUISES[disguise](engine.source)
    compile(text, f"{disguise} of {engine.id}", "exec")
    return HandedIn(copy_id(engine.id), "", {lab.main_file: text})


@dataclass(frozen=True)
class LabelledClass:
    """A class of independent students and disguised copies, and which pairs are copies."""

    lab: str
    disguise: str
    students: list[Fingerprinted]
    copies: set[tuple[str, str]]  # (first, second) in id order

    def is_copy(self, first: str, second: str) -> bool:
        """Tell whether the pair is an engine and its disguised copy."""
        return tuple(sorted((first, second))) in self.copies


def base_hashes() -> frozenset[int]:
    """The course's boilerplate, as the command computes it."""
    return boilerplate_hashes(course_code())


def labelled_classes(scratch: Path, base: frozenset[int]) -> Iterator[LabelledClass]:
    """One class per lab and disguise: the independent students and a copy of each source."""
    for lab_name in LABS:
        main = LABS[lab_name].main_file
        engines = independent_engines(lab_name)
        students = [fingerprint(e.id, {main: e.source}, base) for e in engines]
        sources = [e for e, s in zip(engines, students, strict=True)
                   if len(s.fingerprints) >= MIN_OWN]
        for disguise in (*SOURCE_DISGUISES, NOTEBOOK_DISGUISE):
            copies = [disguised_copy(e, disguise, lab_name, scratch) for e in sources]
            printed = [fingerprint(c.id, c.files, base) for c in copies]
            labels = {tuple(sorted((e.id, copy_id(e.id)))) for e in sources}
            yield LabelledClass(lab_name, disguise, students + printed, labels)  # type: ignore[arg-type]
