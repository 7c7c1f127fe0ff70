"""Another lab's file handed in: named from what the file holds (grader/intake/other_lab.py),
said in the feedback in both languages, counted as no pitfall, kept out of "what to reteach".

The files handed in are real: each lab's stub as given, its notebook, and the stub with every
TODO written from the lab's solution (what a student who finished the lab holds), each handed
in for the next lab and graded with that lab's hidden suite.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from grader.authoring.stubgen import generate_stub
from grader.common import todo_format as marks
from grader.common.labs import LABS, Lab
from grader.common.todo_format import UNTOUCHED_TODO
from grader.grading.batch import BatchOptions, grade_class
from grader.grading.shard import GradingPlan
from grader.intake.collect import notebook_bytes
from grader.intake.other_lab import other_lab
from grader.results.dashboard import class_view
from grader.results.i18n import Catalogue
from grader.results.messages import names_a_pitfall
from grader.results.render import render_feedback

NAMES = list(LABS)
# (a lab, the lab after it): every lab's files handed in for the next one.
NEXT = list(zip(NAMES, NAMES[1:], strict=False))


def finished(lab: Lab) -> str:
    """The lab's stub with every TODO written from its solution: a student's finished file."""
    source = (lab.solution_dir / lab.main_file).read_text(encoding="utf-8")
    count = len(UNTOUCHED_TODO.findall(generate_stub(source, lab.name, lab.main_file)))
    return generate_stub(source, lab.name, lab.main_file, written=count)


def handed_in(lab: Lab) -> dict[str, bytes]:
    """The files of `lab` a student could hand in by mistake: the stub as given, its notebook's
    code, the finished stub."""
    return {"stub": (lab.student_dir / lab.main_file).read_bytes(),
            "notebook": notebook_bytes((lab.student_dir / f"{lab.name}.ipynb").read_bytes()),
            "finished": finished(lab).encode("utf-8")}


@pytest.mark.parametrize(("given", "graded"), NEXT + [(b, a) for a, b in NEXT])
def test_another_labs_file_is_named_with_its_evidence(given: str, graded: str) -> None:
    files = handed_in(LABS[given])
    same_file = LABS[given].main_file == LABS[graded].main_file
    for form, code in files.items():
        found = other_lab(LABS[graded], code, notebook_bytes)
        assert found is not None and found["lab"] == given, (form, found)
        assert "header" in found["evidence"], (form, found)
        assert ("given" in found["evidence"]) == (form != "finished" and same_file), (form, found)
        assert ("todo" in found["evidence"]) == (form != "finished"), (form, found)


@pytest.mark.parametrize("name", NAMES)
def test_a_labs_own_files_and_an_unmarked_engine_are_not_another_labs(name: str) -> None:
    lab = LABS[name]
    for form, code in handed_in(lab).items():
        assert other_lab(lab, code, notebook_bytes) is None, form
    # the solution as written, without the stub's marks: nothing says whose it is
    solution = (lab.solution_dir / lab.main_file).read_bytes()
    for other in NAMES:
        assert other_lab(LABS[other], solution, notebook_bytes) is None, other


def test_marks_of_two_other_labs_or_of_this_lab_decide_nothing() -> None:
    lab01, lab02, lab03 = (LABS[name] for name in NAMES[:3])
    two = handed_in(lab01)["finished"] + b"\n" + handed_in(lab02)["stub"]
    assert other_lab(lab03, two, notebook_bytes) is None
    mine = handed_in(lab01)["finished"] + b"\n# TODO(lab02_ops): a line of lab02's stub kept\n"
    assert other_lab(lab02, mine, notebook_bytes) is None


@pytest.mark.parametrize(("given", "graded"), NEXT)
def test_a_file_carried_forward_with_the_next_labs_work_in_it_is_that_labs(
        given: str, graded: str) -> None:
    """A student who began the next lab from their own file (its header kept) and wrote the
    next lab's work into it: the next lab's finished file under the earlier lab's header."""
    carried = finished(LABS[graded])
    for form in (marks.HEADER_EN, marks.HEADER_ES):
        carried = carried.replace(form.format(lab=graded), form.format(lab=given))
    assert marks.HEADER_EN.format(lab=given) in carried and graded not in carried.split("\n")[0]
    assert other_lab(LABS[graded], carried.encode("utf-8"), notebook_bytes) is None
    # the same header over the earlier lab's finished file alone is the earlier lab's file
    assert other_lab(LABS[graded], handed_in(LABS[given])["finished"],
                     notebook_bytes) is not None


@pytest.mark.parametrize(("given", "graded"), NEXT)
def test_graded_for_the_next_lab_it_is_said_and_no_pitfall_is_counted(
        given: str, graded: str, tmp_path: Path) -> None:
    lab, target = LABS[given], LABS[graded]
    paths = []
    for form, code in handed_in(lab).items():
        if form == "notebook":
            path = tmp_path / form / f"{given}.ipynb"
            path.parent.mkdir()
            path.write_bytes((lab.student_dir / f"{given}.ipynb").read_bytes())
        else:
            path = tmp_path / form / target.main_file
            path.parent.mkdir()
            path.write_bytes(code)
        paths.append(path)
    plan = GradingPlan(target, (target.hidden_tests,), "other-lab-test", "en")
    docs = grade_class(plan, paths, BatchOptions(out_dir=None, workers=1),
                       progress=lambda *_: None)
    failing_pitfalls = set()
    for path, doc in zip(paths, docs, strict=True):
        assert doc["status"] == "graded", (path, doc.get("reason"))
        assert doc["submission"]["other_lab"]["lab"] == given, (path, doc["submission"])
        assert doc["pitfalls"] == [], (path, doc["pitfalls"])
        failing_pitfalls |= {check["pitfall"] for check in doc["checks"]
                             if check["status"] == "failed" and names_a_pitfall(check["detail"])}
        for lang in ("en", "es"):
            said = Catalogue.load(lang).text("ui.other_lab.note", lab=given, expected=graded,
                                             file=target.main_file, evidence="@").split("@")[0]
            for fmt in ("terminal", "markdown", "html"):
                shown = html.unescape(render_feedback(doc, fmt, lang=lang)).replace("\\_", "_")
                text = " ".join(shown.split())
                assert " ".join(said.split()) in text, (path, lang, fmt, text[:1500])
                for pitfall in failing_pitfalls:  # no pitfall is named in the feedback
                    title = Catalogue.load(lang).text(f"pitfalls.{pitfall}.title")
                    assert title not in shown, (path, lang, fmt, pitfall)
    # without the evidence the same failures would be pitfalls: the finished file's at least
    assert failing_pitfalls, f"{given}'s files fail no pitfall check of {graded}"
    view = class_view(docs, Catalogue.load("en"))
    assert view["pitfalls"] == [], "another lab's files reach the dashboard's what to reteach"
    json.dumps(docs)  # plain data, as written to scores.json
