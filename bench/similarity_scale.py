"""Benchmark: `python -m grader similarity` over a class of 1,000 lab01 submissions on 2 cores.

The class is generated from every lab01 engine the project holds (the independent and blind
corpora, correct and buggy, and the fixtures) with the disguises of the corpus test
(tests/similarity/disguises.py) and random variation: each student is one of those engines with
one to three disguises drawn at random (renaming with its own seed, reordering, comments, `+=`
spelled out, a helper extracted or inlined, lambdas as defs) and a few statements of their own,
handed in as a folder, a zip or a notebook in turn. It prints the time of the command as an
instructor runs it (wall clock, `--workers 2` by default), and the time of each phase.

Usage: python bench/similarity_scale.py [--students 1000] [--workers 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "similarity"))
from disguises import SOURCE_DISGUISES, as_notebook  # noqa: E402 - the corpus test's disguises

from grader.common.labs import LABS  # noqa: E402
from grader.intake.collect import collect  # noqa: E402
from grader.similarity.boilerplate import boilerplate_hashes, course_code  # noqa: E402
from grader.similarity.command import fingerprint_class  # noqa: E402
from grader.similarity.ranking import rank_class  # noqa: E402

LAB = "lab01_graph"
CORPORA = ("tests/independent", "tests/blind", "tests/fixtures")
SINGLE = [name for name in SOURCE_DISGUISES if name != "all-at-once"]


def engines() -> list[str]:
    """Every lab01 engine of the project's corpora that parses."""
    found = []
    for corpus in CORPORA:
        for path in sorted((ROOT / corpus / LAB).glob("*/value.py")):
            source = path.read_text(encoding="utf-8")
            try:
                compile(source, str(path), "exec")
            except SyntaxError:
                continue
            found.append(source)
    return found


def student(rng: random.Random, pool: list[str], index: int) -> str:
    """One engine of the pool, disguised at random, with statements of the student's own."""
    source = rng.choice(pool)
    for name in rng.sample(SINGLE, rng.randint(1, 3)):
        disguise = SOURCE_DISGUISES[name]
        try:
            source = disguise(source, index) if name in ("renamed", "recommented") else disguise(source)  # type: ignore[call-arg]
        except (SyntaxError, ValueError):
            continue
    own = [f"_NOTE_{index}_{k} = {rng.randint(0, 10**6)} * {rng.random():.4f}" for k in range(rng.randint(0, 3))]
    return source + "\n" + "\n".join(own) + "\n"


def make_class(folder: Path, students: int, seed: int) -> list[Path]:
    """The submissions on disk: a folder, a zip or a notebook in turn."""
    rng = random.Random(seed)
    pool = engines()
    paths = []
    for index in range(students):
        source = student(rng, pool, index)
        name = f"student-{index:04d}"
        if index % 10 == 8:
            path = folder / f"{name}.zip"
            with zipfile.ZipFile(path, "w") as archive:
                archive.writestr(f"{name}/value.py", source)
        elif index % 10 == 9:
            path = folder / f"{name}.ipynb"
            path.write_text(as_notebook(source, LAB), encoding="utf-8")
        else:
            path = folder / name
            path.mkdir()
            (path / "value.py").write_text(source, encoding="utf-8")
        paths.append(path)
    return paths


def phases(paths: list[Path], workers: int) -> dict[str, float]:
    """Seconds of each phase, run in this process."""
    lab = LABS[LAB]
    times = {}
    started = time.perf_counter()
    base = boilerplate_hashes(course_code())
    times["boilerplate"] = time.perf_counter() - started
    started = time.perf_counter()
    done = fingerprint_class(collect(paths, lab), lab, base, workers)
    printed = [one for _read, one in done if one is not None]
    times["read+print"] = time.perf_counter() - started
    started = time.perf_counter()
    ranking = rank_class(printed)
    times["rank"] = time.perf_counter() - started
    print(f"  {len(ranking.pairs)} of {ranking.pair_count} pairs share a fingerprint; "
          f"median {ranking.median}, MAD {ranking.mad}")
    return times


def main() -> None:
    """Generate the class, run the command, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="similarity-scale-") as scratch:
        folder = Path(scratch) / "class"
        folder.mkdir()
        started = time.perf_counter()
        paths = make_class(folder, args.students, args.seed)
        print(f"class of {len(paths)} lab01 submissions generated in "
              f"{time.perf_counter() - started:.1f} s")
        command = [sys.executable, "-m", "grader", "similarity", LAB, *map(str, paths),
                   "--out", str(Path(scratch) / "out"), "--workers", str(args.workers)]
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        print(f"python -m grader similarity {LAB} <{len(paths)} submissions> --workers "
              f"{args.workers}: {wall:.1f} s wall clock")
        for name, seconds in phases(paths, args.workers).items():
            print(f"  {name:12s} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
