"""What a student reads of a submission whose code could not be loaded, read the way each platform
shows it: Gradescope through its visibility rules (gradescope_oracle.student_view: specs.md
"Controlling Test Case Visibility"), before the due date, after it and after publication;
PrairieLearn through its grader host and server (prairielearn_oracle.grade: every string of
results.json is the student's, `gradable: false` for code that does not compile).

The load errors are made here from each lab's reference solution: a syntax error at the end of the
lab's file, an import of a module that does not exist on its first line, an empty file. What must
be read is taken from the file written (the error's name, the line it is on), not from the
grader's document.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from typing import Any

import gradescope_oracle
import prairielearn_oracle
import pytest

from grader.common.labs import LABS, Lab
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan, suites_for
from grader.platforms import gradescope, prairielearn
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import localise_document

MISSING_MODULE = "minigrad_no_such_module"
# kind -> (the lab file's new text from its reference text, the error a student must read)
BREAKS: dict[str, tuple[Callable[[str], str], str]] = {
    "syntax": (lambda text: text.rstrip("\n") + "\n\ndef broken(:\n    pass\n", "SyntaxError"),
    "import": (lambda text: f"import {MISSING_MODULE}\n" + text, "ModuleNotFoundError"),
    "empty": (lambda text: "", "AttributeError"),
}
MOMENTS = {"before the due date": (False, False), "after the due date": (True, False),
           "after publication": (True, True)}
# What a Markdown reader shows of a backslash escape: the character alone.
MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")


def as_read(markdown: str) -> str:
    """Markdown source as its reader shows the words (escapes and entities undone)."""
    return MD_ESCAPE.sub(r"\1", markdown).replace("&amp;", "&")


def in_language(doc: dict[str, Any], lang: str) -> dict[str, Any]:
    """The document as the grader writes it for a student of `lang` (every text said again)."""
    return localise_document(doc, Catalogue.load(lang))


def error_line(text: str, kind: str) -> int | None:
    """The line of the broken file the error is on, counted in the file written."""
    if kind == "syntax":
        return next(n for n, line in enumerate(text.splitlines(), 1) if "def broken(" in line)
    return 1 if kind == "import" else None


def loads_a_class(lab: Lab) -> bool:
    """Whether the checks take one class from the lab's module (then an empty file cannot be
    loaded: the class is missing; otherwise each check reports what it misses)."""
    return lab.class_name is not None


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    """(lab, kind) -> (the document, the broken file's text), every lab's three graded as a class."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for lab in LABS.values():
        paths = []
        for kind, (rewrite, _) in BREAKS.items():
            folder = tmp_path_factory.mktemp(lab.name) / kind
            shutil.copytree(lab.solution_dir, folder)
            main = folder / lab.files[0]
            main.write_text(rewrite(main.read_text(encoding="utf-8")), encoding="utf-8")
            paths.append(folder)
        plan = GradingPlan(lab, suites_for(lab, hidden=True), "student-view", "en")
        docs = grade_class(plan, paths, BatchOptions(out_dir=None, workers=1), lambda *_: None)
        for kind, folder, doc in zip(BREAKS, paths, docs, strict=True):
            found[lab.name, kind] = {"doc": doc,
                                     "text": (folder / lab.files[0]).read_text(encoding="utf-8")}
    return found


CASES = [(lab, kind) for lab in LABS for kind in BREAKS
         if kind != "empty" or loads_a_class(LABS[lab])]


def expected_words(case: dict[str, Any], lab: Lab, kind: str) -> list[str]:
    """What the student must read: the file, the error's name, and its line when it has one."""
    words = [lab.files[0], BREAKS[kind][1]]
    line = error_line(case["text"], kind)
    if kind == "import":
        words.append(MISSING_MODULE)
    if kind == "empty":
        words.append(str(lab.class_name))
    return words + ([f" {line}"] if line else [])


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("hidden_visibility", ["after_published", "after_due_date"])
@pytest.mark.parametrize(("lab", "kind"), CASES)
def test_a_gradescope_student_reads_why_the_code_did_not_load(
        broken: dict[tuple[str, str], dict[str, Any]], lab: str, kind: str, lang: str,
        hidden_visibility: str) -> None:
    """At every moment (before the due date, after it, after publication), with the hidden
    checks shown after publication (the default) or after the due date, the text Gradescope
    shows the student names the file, the error and its line, under the problem's heading, in
    the student's language."""
    case = broken[lab, kind]
    doc = in_language(case["doc"], lang)
    assert doc["problem"], f"{lab} {kind}: the grader saw no load problem"
    found = json.loads(json.dumps(gradescope.results(doc, hidden_visibility)))
    heading = {"en": "could not be loaded", "es": "no se pudo cargar"}[lang]
    said = {"en": "could not be imported", "es": "No se pudo importar"}[lang]
    for moment, (after_due_date, published) in MOMENTS.items():
        seen = as_read(gradescope_oracle.student_view(found, after_due_date=after_due_date,
                                                      published=published))
        for word in [heading, said, *expected_words(case, LABS[lab], kind)]:
            assert word in seen, f"{lab} {kind} {lang} {moment}: {word!r} not shown:\n{seen}"
        line = error_line(case["text"], kind)
        if line:  # the line, as the student's language writes it
            where = {"en": f"line {line}", "es": f"línea {line}"}[lang]
            assert where in seen, f"{lab} {kind} {lang} {moment}: {where!r} not shown"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("lab", "kind"), CASES)
def test_a_prairielearn_student_reads_why_the_code_did_not_load(
        broken: dict[tuple[str, str], dict[str, Any]], lab: str, kind: str, lang: str) -> None:
    """PrairieLearn's message (the line above the results) names the file, the error and its
    line; code that does not compile is not gradable (the attempt is not charged), code that
    compiles and fails on import is graded 0."""
    case = broken[lab, kind]
    found = prairielearn.results(in_language(case["doc"], lang))
    grading = prairielearn_oracle.grade(json.dumps(found).encode("utf-8"))
    assert grading.gradable is (kind != "syntax")
    if grading.gradable:
        assert grading.score == 0
    message = found["message"]
    said = {"en": "could not be imported", "es": "No se pudo importar"}[lang]
    for word in [said, *expected_words(case, LABS[lab], kind)]:
        assert word in message, f"{lab} {kind} {lang}: {word!r} not in the message {message!r}"
    assert message in prairielearn_oracle.student_strings(found)


@pytest.mark.parametrize("lab", [lab for lab in LABS if not loads_a_class(LABS[lab])])
def test_an_empty_file_of_a_lab_without_one_class_fails_every_visible_check_with_its_reason(
        broken: dict[tuple[str, str], dict[str, Any]], lab: str) -> None:
    """Where the checks take the whole module, an empty file loads: every visible test is failed
    and says why (no silent 0)."""
    found = gradescope.results(broken[lab, "empty"]["doc"])
    visible = [t for t in found["tests"] if t["visibility"] == "visible"]
    assert visible and all(t["status"] == "failed" and t["output"].strip() for t in visible)
