"""Golden outputs of the feedback: every score document rendered in every student-facing format,
written byte for byte to a folder, so a change to the templates or the views can be compared
with the outputs before it (a test helper and a command, not a test module).

    python tests/results/render_goldens.py grade DOCS        # grade every fixture class once
    python tests/results/render_goldens.py render DOCS OUT   # render DOCS/*.json into OUT/
    diff -r BEFORE AFTER

`grade` writes the score documents (each lab's fixture class graded with its hidden suite, as
tests/graded_classes.py grades it, the same submissions with the public suite only as `check`
grades them, and the samples of tests/data): the documents are graded once and kept, so that
the outputs rendered before and after a change come from the same bytes (a document's time and
duration differ at every grading). `render` writes, per document, each format below.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from grader.common.labs import LABS  # noqa: E402 - after the path the command needs
from grader.results.i18n import LANGUAGES  # noqa: E402
from grader.results.render import (  # noqa: E402
    json_text,
    render_feedback,
    render_notebook_feedback,
)

SAMPLES = ROOT / "tests" / "data"
NOTEBOOK_NOTICES = ("A notice above the feedback.",)


def _todos_of(lab: str) -> dict[str, tuple[int, ...]]:
    """The TODOs each public check of the lab judges, as `check` reads them (the first screen)."""
    from grader.cli import _todos_of_checks

    return _todos_of_checks(LABS[lab]) if lab in LABS else {}


def outputs(doc: Mapping[str, Any]) -> dict[str, str]:
    """Every rendering of one document, by file name."""
    from grader.platforms import gradescope, prairielearn

    found: dict[str, str] = {}
    for lang in LANGUAGES:
        for fmt, suffix in (("terminal", "txt"), ("markdown", "md"), ("html", "html")):
            found[f"feedback.{lang}.{suffix}"] = render_feedback(doc, fmt, lang)
        found[f"feedback.{lang}.color.txt"] = render_feedback(doc, "terminal", lang, color=True)
        found[f"first_screen.{lang}.txt"] = render_feedback(doc, "terminal", lang,
                                                            brief=_todos_of(str(doc["lab"])))
        found[f"notebook.{lang}.html"] = render_notebook_feedback(doc, NOTEBOOK_NOTICES, lang)
    for visibility in ("after_published", "visible"):
        found[f"gradescope.{visibility}.json"] = json_text(gradescope.results(doc, visibility))
    found["gradescope.points.json"] = json_text(gradescope.results(doc, points=10))
    found["prairielearn.json"] = json_text(prairielearn.results(doc))
    return found


def render(docs: Path, out: Path) -> int:
    """Write every rendering of every document in `docs` under out/<document>/; the count."""
    written = 0
    for path in sorted(docs.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        folder = out / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in outputs(doc).items():
            (folder / name).write_bytes(text.encode("utf-8"))
            written += 1
    return written


def _public_docs(lab: str, paths: list[Path], out_dir: Path) -> list[dict[str, Any]]:
    from grader.grading.batch import BatchOptions, grade_class
    from grader.grading.shard import GradingPlan, suites_for

    plan = GradingPlan(LABS[lab], suites_for(LABS[lab], hidden=False), "fixtures", "en")
    return grade_class(plan, paths, BatchOptions(out_dir=out_dir, workers=2), lambda *_: None)


def grade(docs: Path, labs: list[str]) -> int:
    """Grade every lab's fixture class (hidden and public-only) into docs/; the count."""
    import tempfile

    from graded_classes import ALL_FIXTURES, grade_lab

    docs.mkdir(parents=True, exist_ok=True)
    count = 0
    for sample in sorted(SAMPLES.glob("score_*.json")):
        (docs / f"sample-{sample.stem}.json").write_bytes(sample.read_bytes())
        count += 1
    for lab in labs or sorted({f.folder for f in ALL_FIXTURES if f.folder in LABS}):
        with tempfile.TemporaryDirectory() as scratch:
            run = grade_lab(lab, Path(scratch) / "hidden")
            named = {**run.fixtures, "solution": run.solution, "stub": run.stub}
            fixtures = [f.path for f in ALL_FIXTURES if f.folder == lab]
            public = _public_docs(lab, [*fixtures, LABS[lab].solution_dir, LABS[lab].student_dir],
                                  Path(scratch) / "public")
        names = [f.name for f in ALL_FIXTURES if f.folder == lab] + ["solution", "stub"]
        for name, doc in named.items():
            (docs / f"{lab}-{name}.json").write_text(json_text(doc), encoding="utf-8")
        for name, doc in zip(names, public, strict=True):
            (docs / f"{lab}-public-{name}.json").write_text(json_text(doc), encoding="utf-8")
        count += len(named) + len(public)
        print(f"{lab}: {len(named) + len(public)} documents", file=sys.stderr, flush=True)
    return count


COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "grade": lambda args: grade(Path(args[0]), args[1:]),
    "render": lambda args: render(Path(args[0]), Path(args[1])),
}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    print(COMMANDS[sys.argv[1]](sys.argv[2:]))
