"""`make bench`: every row of docs/performance.md's table, measured side by side in one run.

    python bench/performance.py                  # print the table
    python bench/performance.py --write-docs     # also put it in docs/performance.md (between markers)
    python bench/performance.py --quick          # fewer runs (a smoke run; figures are rough)

Rows: a student's `make check` of a finished lab01 (and `--debug`) against starting Python and
importing pytest; one submission cold, as Gradescope's `run_autograder` and PrairieLearn's
`tests/run.sh` run it, against starting Python; a class of lab01 submissions graded by the
grader against `pytest --json-report` once per submission (bench/grade_class.py); lab03 per
submission; then the class figures of bench/hardening_overhead.py and bench/grade_scale.py, as
they print them. Each pair of commands runs in turn (A B A B ...), and a ratio is the median of
the pairs' ratios, so a machine whose speed drifts during the run moves both sides. CPU figures
(user + system of the command and every process it waited for) move less with other people's
load than wall figures; the load average before and after is written beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_block import replace_block  # noqa: E402
from grade_class import make_class, python_env, time_baseline, time_grader  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "performance.md"  # the page that shows the table
BEGIN, END = "<!-- performance -->", "<!-- /performance -->"
PYTHON = sys.executable
FINISHED_LAB01 = ROOT / "solutions" / "lab01_graph"
CLASS_SCRIPTS = (("bench/hardening_overhead.py", ("--runs", "100", "--starts", "5")),
                 ("bench/grade_scale.py", ("--students", "1000")))


@dataclass(frozen=True)
class Run:
    """One run of a command: wall and CPU seconds."""

    wall_s: float
    cpu_s: float


@dataclass(frozen=True)
class Pair:
    """A command (A) against its yardstick (B), run in turn; medians and pairwise ratios."""

    a: list[Run]
    b: list[Run]

    def median(self, side: str, what: str) -> float:
        """The median of one side's wall_s or cpu_s."""
        return statistics.median(getattr(run, what) for run in getattr(self, side))

    def ratio(self, what: str) -> float:
        """The median of A/B over the pairs."""
        return statistics.median(getattr(a, what) / getattr(b, what)
                                 for a, b in zip(self.a, self.b, strict=True))

    def excess(self, what: str) -> float:
        """The median of A - B over the pairs (what A costs past its yardstick)."""
        return statistics.median(getattr(a, what) - getattr(b, what)
                                 for a, b in zip(self.a, self.b, strict=True))


def timed(command: Sequence[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> Run:
    """Run the command once, its output thrown away; its wall and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   timeout=600)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu)


def alternate(a: Callable[[], Run], b: Callable[[], Run], runs: int) -> Pair:
    """A and B in turn, `runs` times each, after one uncounted warm-up of each."""
    a(), b()
    pair = Pair([], [])
    for _ in range(runs):
        pair.a.append(a())
        pair.b.append(b())
    return pair


def check_rows(runs: int) -> list[str]:
    """`make check` of a finished lab01, in one process and with --debug, against Python + pytest."""
    env = python_env()
    yardstick = [PYTHON, "-c", "import pytest"]
    rows = []
    for label, extra in (("`make check` of a finished lab01", ()),
                         ("`make check` with `--debug` (student code in-process)", ("--debug",))):
        command = [PYTHON, "-m", "grader", "check", "lab01_graph", "--path", str(FINISHED_LAB01),
                   *extra]
        pair = alternate(lambda c=command: timed(c, env=env), lambda: timed(yardstick, env=env),
                         runs)
        rows.append(f"| {label} | {pair.median('a', 'wall_s'):.3f} s wall, "
                    f"{pair.median('a', 'cpu_s'):.3f} s CPU | Python + `import pytest`: "
                    f"{pair.median('b', 'wall_s'):.3f} s wall, {pair.median('b', 'cpu_s'):.3f} s CPU"
                    f" | {pair.ratio('wall_s'):.2f}x wall, {pair.ratio('cpu_s'):.2f}x CPU "
                    f"(target: at most 2.5x) |")
    return rows


def gradescope_root(scratch: Path) -> Path:
    """An autograder root as Gradescope lays it out, the bundle's venv this one's Python."""
    from grader.common.labs import get_lab
    from grader.platforms import gradescope

    bundle = gradescope.export_bundle(get_lab("lab01_graph"), scratch / "autograder.zip",
                                      gradescope.Config("lab01_graph", "en", "bench-seed"))
    root = scratch / "gradescope"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():  # extractall drops the modes the zip records
            (root / "source" / info.filename).chmod(info.external_attr >> 16 & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    # what setup.sh does once when Gradescope builds the image (its venv is this one)
    subprocess.run([PYTHON, "-m", "grader.platforms.image"], cwd=root / "source" / "minigrad",
                   check=True, stdout=subprocess.DEVNULL)
    (root / "minigrad-venv").symlink_to(Path(PYTHON).parent.parent)
    shutil.copytree(FINISHED_LAB01, root / "submission")
    (root / "results").mkdir()
    (root / "submission_metadata.json").write_text(json.dumps(
        {"id": 1, "users": [{"email": "bench@example.edu", "id": 1, "name": "Bench"}]}))
    return root


def prairielearn_root(scratch: Path) -> Path:
    """A /grade folder as PrairieLearn mounts it, holding an exported question's tests/."""
    from grader.common.labs import get_lab
    from grader.platforms import prairielearn

    question = prairielearn.export_question(get_lab("lab01_graph"), scratch / "question",
                                            prairielearn.Config("lab01_graph", "en", "bench-seed"))
    root = scratch / "prairielearn"
    shutil.copytree(question / "tests", root / "tests")
    shutil.copytree(FINISHED_LAB01, root / "student")
    (root / "data").mkdir()
    (root / "data" / "data.json").write_text(json.dumps(
        {"params": {}, "submitted_answers": {}, "variant_seed": 1, "gradable": True,
         "options": {"user": None, "group": None}}))
    return root


def platform_rows(runs: int, scratch: Path) -> list[str]:
    """One lab01 submission cold through each platform's entry point, against starting Python.

    Each run sees what the image holds and nothing a run before it wrote: the image's build
    step has run (setup.sh's, the Dockerfile's), and the runs write no bytecode, as a fresh
    container from the image would not keep any (deploy/Dockerfile sets the same variable)."""
    env = {**python_env(), "PYTHONDONTWRITEBYTECODE": "1"}
    yardstick = [PYTHON, "-c", "pass"]
    gradescope = gradescope_root(scratch)
    prairielearn = prairielearn_root(scratch)
    entries = (
        ("Gradescope `run_autograder`, one lab01 submission", [str(gradescope / "run_autograder")],
         {**env, "AUTOGRADER_ROOT": str(gradescope)}),
        ("PrairieLearn `tests/run.sh`, one lab01 submission", [str(prairielearn / "tests" / "run.sh")],
         {**env, "GRADE_ROOT": str(prairielearn), "MINIGRAD_HOME": str(ROOT),
          "MINIGRAD_PYTHON": PYTHON}),
    )
    rows = []
    for label, command, entry_env in entries:
        pair = alternate(lambda c=command, e=entry_env: timed(c, env=e),
                         lambda: timed(yardstick, env=env), runs)
        rows.append(f"| {label} | {pair.median('a', 'wall_s'):.3f} s wall, "
                    f"{pair.median('a', 'cpu_s'):.3f} s CPU | Python start: "
                    f"{pair.median('b', 'wall_s'):.3f} s wall, {pair.median('b', 'cpu_s'):.3f} s "
                    f"CPU | {pair.excess('wall_s'):.3f} s wall, {pair.excess('cpu_s'):.3f} s CPU "
                    f"of grading after Python starts (target: at most 0.5 s) |")
    return rows


def class_rows(students: int, lab03_students: int, scratch: Path) -> list[str]:
    """A lab01 class, the grader against pytest --json-report per submission; lab03 per submission."""
    paths = make_class(scratch / "class", students, "lab01_graph")
    grader_wall, _ = time_grader(paths, scratch / "grader", "lab01_graph")
    baseline_wall, _ = time_baseline(paths, scratch / "baseline")
    lab03 = make_class(scratch / "lab03", lab03_students, "lab03_backprop")
    lab03_wall, _ = time_grader(lab03, scratch / "grader-lab03", "lab03_backprop")
    return [
        f"| a class of {students} lab01 submissions (`grade`, hidden + public, "
        f"{os.cpu_count()} workers) | {grader_wall:.2f} s, {grader_wall / students:.3f} s "
        f"amortized per submission | `pytest --json-report` per submission: {baseline_wall:.2f} s, "
        f"{baseline_wall / students:.3f} s each | {baseline_wall / grader_wall:.1f}x faster "
        f"(target: at least 12x) |",
        f"| lab03, a class of {lab03_students} | {lab03_wall:.2f} s, "
        f"{lab03_wall / lab03_students:.3f} s amortized per submission | | "
        f"(target: at most 0.4 s) |",
    ]


def class_scripts(quick: bool) -> list[str]:
    """What the class benchmarks print, each under the command that printed it."""
    lines = []
    for script, args in CLASS_SCRIPTS:
        if not (ROOT / script).is_file() or (quick and script.endswith("grade_scale.py")):
            continue
        command = [PYTHON, script, *args]
        done = subprocess.run(command, cwd=ROOT, env=python_env(), capture_output=True,
                              text=True, check=False, timeout=1200)
        lines += ["", f"`{' '.join(['python', script, *args])}` (exit {done.returncode}):", "",
                  "```", *done.stdout.strip().splitlines()[-12:], "```"]
    return lines


def table(rows: list[str], extra: list[str], load: tuple[float, float], command: str) -> str:
    """The README block: the rows, the date, the machine and its load."""
    return "\n".join([
        BEGIN,
        f"Measured with `{command}` on {platform.machine()}, {os.cpu_count()} cores, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
        f"{load[0]:.1f} before, {load[1]:.1f} after (a loaded machine inflates every figure; "
        "the ratios, taken side by side, move less):",
        "",
        "| what | ours | yardstick | ratio |",
        "|---|---|---|---|",
        *rows,
        *extra,
        END,
    ])


def main() -> int:
    """Measure every row and print the table (and write it into docs/performance.md when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-docs", action="store_true",
                        help="write the table into docs/performance.md")
    parser.add_argument("--quick", action="store_true", help="3 runs per pair, small classes")
    parser.add_argument("--runs", type=int, default=9, help="runs per side of each pair")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="minigrad-bench-") as name:
        scratch = Path(name)
        os.chmod(scratch, 0o755)  # a jail's uid reads the submissions under it
        # the grading image's build step, here for PrairieLearn's (its MINIGRAD_HOME is ROOT)
        subprocess.run([PYTHON, "-m", "grader.platforms.image"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        rows = check_rows(runs)
        print(*rows, sep="\n", flush=True)
        rows += platform_rows(runs, scratch)
        print(*rows[-2:], sep="\n", flush=True)
        rows += class_rows(12 if args.quick else 40, 4 if args.quick else 12, scratch)
        print(*rows[-2:], sep="\n", flush=True)
    extra = class_scripts(args.quick)
    command = " ".join(["python bench/performance.py", *sys.argv[1:]]).replace(
        " --write-docs", "")
    block = table(rows, extra, (load_before, os.getloadavg()[0]), command)
    print(block)
    if args.write_docs:
        replace_block(PAGE, BEGIN, END, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
