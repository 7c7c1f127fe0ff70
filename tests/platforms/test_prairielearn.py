"""PrairieLearn: what the question writes, read the way PrairieLearn's own code reads it
(prairielearn_oracle: the grader host's size limit and parsing, the server's gradable and
score rules, the results element, the infoQuestion schema and the sync's uuid rules), and the
question's entrypoint run on submissions in a /grade laid out as PrairieLearn mounts it."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import prairielearn_oracle as oracle
import pytest

from grader.common.labs import get_lab
from grader.platforms import prairielearn
from grader.results.i18n import Catalogue

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "tests" / "data").glob("score_*.json"))
LAB = get_lab("lab01_graph")
SUBMISSIONS = {
    "correct": ROOT / "solutions" / "lab01_graph",
    "buggy": ROOT / "tests" / "fixtures" / "lab01_graph" / "grad-overwrite-in-add",
    "ungradable": None,
    "hostile": ROOT / "tests" / "fixtures" / "redteam" / "gradescope-results-json",
}


def as_read(found: dict[str, Any]) -> oracle.Grading:
    """PrairieLearn's grading of a results.json as our grader writes it to disk."""
    return oracle.grade((json.dumps(found, ensure_ascii=False) + "\n").encode("utf-8"))


def load(name: str) -> dict[str, Any]:
    """A stored score document."""
    return json.loads((ROOT / "tests" / "data" / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", DOCS, ids=[p.stem for p in DOCS])
def test_every_stored_document_is_graded_as_it_should_be(path: Path) -> None:
    """externalGrader.ts `processGradingResult` (gradable default true, score finite in
    [0, 1]) after externalGraderCommon.ts `makeGradingResult`: a graded document is gradable
    with its share of the points; an ungradable one, or a grader error, is not gradable."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    grading = as_read(prairielearn.results(doc))
    graded = doc["status"] == "graded" and not prairielearn.does_not_compile(doc.get("problem"))
    assert grading.gradable is graded and grading.message == ""
    if graded:
        assert grading.score == pytest.approx(doc["score"] / doc["max_score"])
        shown = oracle.results_element(grading.feedback)
        assert shown["tests_missing_points"] is False
        assert shown["points"] == pytest.approx(doc["score"])
        assert shown["max_points"] == pytest.approx(doc["max_score"])


def test_the_oracle_refuses_what_prairielearn_refuses() -> None:
    """The rules can fail: a score of 1.5 (`processGradingResult`: out of range) and results
    over 1 MiB (grader-host `runJob`) are not gradable."""
    assert as_read({"gradable": True, "score": 1.5}).gradable is False
    assert as_read({"score": 0.5, "output": "x" * oracle.RESULTS_LIMIT}).gradable is False
    assert as_read({"score": 0.5}).gradable is True


def test_hidden_checks_show_title_points_and_pitfall_only() -> None:
    """PrairieLearn shows every string of results.json: a hidden check's message (its inputs,
    the value seen, the reference's value), hint, section and output appear nowhere; its test
    is its title, its pitfall, its points and a notice; public checks keep their message."""
    doc = load("score_mixed.json")
    found = prairielearn.results(doc)
    text = "\n".join(oracle.student_strings(found))
    hidden = [c for c in doc["checks"] if c["visibility"] == "hidden"]
    assert any(c["message"] for c in hidden), "the stored document needs failed hidden checks"
    for check in hidden:
        for key in ("message", "hint", "output"):
            if check.get(key):
                assert check[key] not in text, (check["id"], key)
    notice = Catalogue.load("en").text("platforms.prairielearn.hidden_check")
    for check, test in zip(doc["checks"], found["tests"], strict=True):
        assert (test["points"], test["max_points"]) == (check["score"], check["max_score"])
        if check["visibility"] == "hidden":
            assert test["name"] == check["title"] and test["output"] == ""
            lines = test["message"].splitlines() if check["status"] != "passed" else []
            assert not lines or lines[-1] == notice
        elif check["message"] and check["status"] == "failed":
            assert check["message"] in test["message"]


def test_huge_outputs_are_cut_under_the_hosts_limit() -> None:
    """grader-host `runJob` fails a job whose results.json is over 1 MiB: ours stays under it."""
    doc = load("score_mixed.json")
    for check in doc["checks"]:
        check["output"] = "x" * 400_000
    found = prairielearn.results(doc)
    assert len(json.dumps(found, ensure_ascii=False).encode("utf-8")) < oracle.RESULTS_LIMIT
    assert as_read(found).gradable is True
    assert any("size limit" in t["output"] for t in found["tests"])


def test_exported_question_meets_the_infoquestion_schema(tmp_path: Path) -> None:
    """infoQuestion.json (required keys, closed key set, externalGradingOptions), the sync's
    uuid test (course-db.ts `loadInfoFile`) and the timeout cap (config.ts)."""
    config = prairielearn.Config("lab01_graph", "es", "course-secret")
    out = prairielearn.export_question(LAB, tmp_path / "q", config, widget="editor")
    info_text = (out / "info.json").read_text(encoding="utf-8")
    info = json.loads(info_text)
    jsonschema.Draft202012Validator(oracle.INFO_QUESTION_SCHEMA).validate(info)
    assert oracle.question_uuid(info_text) == info["uuid"]
    assert info["gradingMethod"] == "External"
    assert info["externalGradingOptions"]["timeout"] <= oracle.MAXIMUM_TIMEOUT
    assert info["externalGradingOptions"]["enableNetworking"] is False
    html = (out / "question.html").read_text(encoding="utf-8")
    assert '<pl-file-editor file-name="value.py"' in html and "pl-external-grader-results" in html
    assert (out / "stub" / "value.py").read_bytes() == (LAB.student_dir / "value.py").read_bytes()
    assert os.access(out / "tests" / "run.sh", os.X_OK)
    assert (out / "tests" / "suite").is_dir() and (out / "tests" / "solution").is_dir()
    upload = prairielearn.export_question(LAB, tmp_path / "u", config)
    assert '<pl-file-upload file-names="value.py">' in (upload / "question.html").read_text()
    with pytest.raises(ValueError):
        prairielearn.export_question(LAB, tmp_path / "s", prairielearn.Config("lab01_graph",
                                                                              "en", ""))


def course_uuids(course: Path) -> dict[str, str | None]:
    """Each question of the course and its uuid, after the sync's duplicate rule."""
    infos = {info.parent.name: oracle.question_uuid(info.read_text(encoding="utf-8"))
             for info in sorted((course / "questions").rglob("info.json"))}
    return oracle.check_duplicate_uuids(infos)


def test_two_exports_in_one_course_never_share_a_uuid(tmp_path: Path) -> None:
    """course-db.ts `checkDuplicateUUIDs` drops every question whose uuid another has: an
    English and a Spanish export of one lab, a re-export and a copied folder all keep one."""
    course = tmp_path / "course"
    (course / "questions").mkdir(parents=True)
    (course / "infoCourse.json").write_text("{}")
    english, spanish = course / "questions" / "lab01_en", course / "questions" / "lab01_es"
    prairielearn.export_question(LAB, english, prairielearn.Config("lab01_graph", "en", "k"))
    prairielearn.export_question(LAB, spanish, prairielearn.Config("lab01_graph", "es", "k"))
    first = json.loads((english / "info.json").read_text())["uuid"]
    prairielearn.export_question(LAB, english, prairielearn.Config("lab01_graph", "en", "k2"))
    assert json.loads((english / "info.json").read_text())["uuid"] == first, "re-export keeps it"
    copied = course / "questions" / "lab01_copy"
    shutil.copytree(english, copied)
    assert None in course_uuids(course).values(), "a copied folder shares its uuid until..."
    prairielearn.export_question(LAB, copied, prairielearn.Config("lab01_graph", "en", "k"))
    synced = course_uuids(course)
    assert len(synced) == 3 and None not in synced.values(), synced
    assert synced["lab01_en"] == first


# --- the entrypoint, run as PrairieLearn runs it ---------------------------------------------


@pytest.fixture(scope="module")
def question(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The exported question folder."""
    config = prairielearn.Config("lab01_graph", "en", "course-secret")
    return prairielearn.export_question(LAB, tmp_path_factory.mktemp("pl") / "q", config)


def job_data(files: list[Path], as_data: bool, variant_seed: int,
             user: dict[str, Any] | None) -> dict[str, Any]:
    """data.json as externalGraderCommon.ts `buildDirectory` writes it (the variant's seed as
    a number, `options` the variant's, with `user` where the course gives questions the user)."""
    data: dict[str, Any] = {
        "params": {}, "correct_answers": {}, "submitted_answers": {}, "format_errors": {},
        "partial_scores": {}, "score": 0, "feedback": {}, "variant_seed": variant_seed,
        "options": {"user": user, "group": None}, "raw_submitted_answers": {}, "gradable": True}
    if as_data:
        data["submitted_answers"]["_files"] = [
            {"name": p.name, "contents": base64.b64encode(p.read_bytes()).decode()} for p in files]
    return data


def grade(question: Path, tmp_path: Path, submission: Path | None, as_data: bool = False,
          variant_seed: int = 1234567, user: dict[str, Any] | None = None,
          ) -> tuple[oracle.Grading, dict[str, Any], float]:
    """Lay out /grade as PrairieLearn mounts it, run the entrypoint, and read results.json as
    PrairieLearn does; also the full score document the grader kept beside it, and the time."""
    root = tmp_path / f"grade-{variant_seed}-{(user or {}).get('uid', '')}"
    shutil.copytree(question / "tests", root / "tests")
    (root / "student").mkdir(parents=True)
    (root / "data").mkdir()
    files = sorted(submission.glob("*.py")) if submission else []
    if not as_data:
        for path in files:
            shutil.copyfile(path, root / "student" / path.name)
    (root / "data" / "data.json").write_text(
        json.dumps(job_data(files, as_data, variant_seed, user)))
    env = {**os.environ, "GRADE_ROOT": str(root), "MINIGRAD_HOME": str(ROOT),
           "MINIGRAD_PYTHON": sys.executable}
    started = time.monotonic()
    completed = subprocess.run([str(root / "tests" / "run.sh")], env=env, capture_output=True,
                               text=True, timeout=300, check=False)
    elapsed = time.monotonic() - started
    assert completed.returncode == 0, completed.stderr[-2000:]  # grader-host: exit 0 or failed
    path = root / "results" / "results.json"
    assert path.is_file(), completed.stdout[-2000:] + completed.stderr[-2000:]
    doc = json.loads((root / "results" / "scores.json").read_text(encoding="utf-8"))
    return oracle.grade(path.read_bytes()), doc, elapsed


def hidden_messages(doc: dict[str, Any]) -> list[str]:
    """The messages of the hidden checks a document failed: their inputs and expected values."""
    return [c["message"] for c in doc["checks"] if c["visibility"] == "hidden" and c["message"]]


def test_correct_submission_scores_one(question: Path, tmp_path: Path) -> None:
    grading, _, elapsed = grade(question, tmp_path, SUBMISSIONS["correct"])
    print(f"PrairieLearn entrypoint, correct submission: {elapsed:.2f} s")
    assert grading.gradable is True and grading.score == 1.0


def test_files_given_only_in_data_json_are_graded(question: Path, tmp_path: Path) -> None:
    grading, _, _ = grade(question, tmp_path, SUBMISSIONS["correct"], as_data=True)
    assert grading.score == 1.0


def test_two_variants_get_different_hidden_inputs_and_none_is_shown(question: Path,
                                                                     tmp_path: Path) -> None:
    """Two variants (data.json `variant_seed`), and two users of one seed (`options.user`), get
    different hidden inputs; one variant graded again gets the same; and no hidden check's
    message (inputs, values seen and expected) is in what PrairieLearn shows the student."""
    first, doc_a, _ = grade(question, tmp_path, SUBMISSIONS["buggy"], variant_seed=11)
    _, doc_b, _ = grade(question, tmp_path, SUBMISSIONS["buggy"], variant_seed=22)
    _, doc_again, _ = grade(question, tmp_path / "again", SUBMISSIONS["buggy"], variant_seed=11)
    _, doc_u, _ = grade(question, tmp_path, SUBMISSIONS["buggy"], variant_seed=11,
                        user={"uid": "ana@example.edu", "uin": "7", "name": "Ana"})
    hidden = hidden_messages(doc_a)
    assert hidden, "the buggy fixture must fail a hidden check with inputs"
    assert hidden != hidden_messages(doc_b) and hidden != hidden_messages(doc_u)
    assert hidden == hidden_messages(doc_again)
    assert doc_u["submission"]["student_id"] == "ana@example.edu"
    assert first.gradable is True and 0 < first.score < 1
    shown = "\n".join(oracle.student_strings(first.feedback["results"]))
    for message in hidden:
        assert message not in shown
    for check in doc_a["checks"]:
        if check["visibility"] == "hidden" and check.get("detail"):
            for value in (check["detail"].get("params") or {}).values():
                if isinstance(value, float) and len(repr(value)) > 4:
                    assert repr(value) not in shown and f"{value:.3f}" not in shown, check["id"]


def test_code_that_does_not_compile_is_not_gradable(question: Path, tmp_path: Path) -> None:
    """PrairieLearn's external grading docs: a syntax error is `gradable: false` (the attempt is
    not charged); `processGradingResult` keeps it so and the element shows it not gradable."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "value.py").write_text(
        (SUBMISSIONS["correct"] / "value.py").read_text() + "\ndef broken(:\n")
    grading, _, _ = grade(question, tmp_path, broken)
    assert grading.gradable is False
    assert oracle.results_element(grading.feedback)["gradable"] is False
    errors = grading.feedback["results"]["format_errors"]
    assert any("SyntaxError" in error for error in errors)


def test_ungradable_submission_is_not_gradable_and_costs_no_attempt(question: Path,
                                                                     tmp_path: Path) -> None:
    grading, _, _ = grade(question, tmp_path, SUBMISSIONS["ungradable"])
    assert grading.gradable is False and "value.py" in grading.feedback["results"]["message"]


def test_hostile_submission_is_graded_and_cannot_forge(question: Path, tmp_path: Path) -> None:
    grading, _, _ = grade(question, tmp_path, SUBMISSIONS["hostile"])
    assert grading.gradable is True and grading.score == 0


def test_the_image_needs_no_hidden_suite_of_its_own(question: Path, tmp_path: Path) -> None:
    public = tmp_path / "image"
    for name in ("grader", "templates", "labs"):
        shutil.copytree(ROOT / name, public / name,
                        ignore=shutil.ignore_patterns("suites", "__pycache__"))
    root = tmp_path / "grade"
    shutil.copytree(question / "tests", root / "tests")
    (root / "student").mkdir(parents=True)
    shutil.copyfile(SUBMISSIONS["correct"] / "value.py", root / "student" / "value.py")
    env = {**os.environ, "GRADE_ROOT": str(root), "MINIGRAD_HOME": str(public),
           "MINIGRAD_PYTHON": sys.executable}
    subprocess.run([str(root / "tests" / "run.sh")], env=env, capture_output=True, timeout=300,
                   check=True)
    grading = oracle.grade((root / "results" / "results.json").read_bytes())
    assert grading.score == 1.0


def test_the_entrypoint_never_writes_into_the_image_it_copies(question: Path,
                                                             tmp_path: Path) -> None:
    # run.sh copies the image's grader by hard links where it can: a question whose suite file
    # has the image's name must land in a folder of its own, never in the image's file.
    suite = ROOT / "grader" / "grading" / "suites" / "lab01_graph"
    before = {path.name: path.read_bytes() for path in suite.glob("*.py")}
    edited = tmp_path / "question"
    shutil.copytree(question, edited)
    for path in (edited / "tests" / "suite").glob("*.py"):
        path.write_text(path.read_text(encoding="utf-8") + "\n# the question's own copy\n",
                        encoding="utf-8")
    grading, _, _ = grade(edited, tmp_path, SUBMISSIONS["correct"])
    assert grading.score == 1.0
    assert {path.name: path.read_bytes() for path in suite.glob("*.py")} == before
