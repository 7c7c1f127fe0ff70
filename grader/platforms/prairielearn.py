"""PrairieLearn: an externally graded question per lab, and the results.json its grader returns.

Trusted side. Written from PrairieLearn's docs/externalGrading.md and its question schema
(apps/prairielearn/src/schemas/schemas/infoQuestion.json): `info.json` sets `gradingMethod`
"External" and `externalGradingOptions` (`image`, `entrypoint`, `timeout` up to 600 s,
`enableNetworking` off); the grading container gets the question's `tests/` at /grade/tests, the
student's files at /grade/student and the `data` object at /grade/data/data.json, and must write
/grade/results/results.json itself: `score` in [0, 1], `gradable: false` for a submission that
cannot be graded (no points given or taken, the attempt is not charged), `message`, `output`,
`tests[]` with `name`, `description`, `points`, `max_points`, `message`, `output`; at most 1 MB.

PrairieLearn has no per-test visibility: the student sees all of results.json. Hidden checks are
therefore written as their title, points, status and pitfall only (`withhold_hidden`): never
their inputs, the values seen or expected, a counterexample or the reference's value. The hidden
inputs are seeded by the course seed and the job's identity (`job_identity`: data.json's
`variant_seed` and, where the course gives it, `options.user`), so two students never share them.
A submission that does not compile is `gradable: false` with the compiler's message (PrairieLearn's
external grading docs: nothing was graded and the attempt is not charged).

`python -m grader.platforms.prairielearn --root ROOT --config FILE` is what the entrypoint runs.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import re
import secrets
import shutil
import tempfile
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from grader import __version__
from grader.common.labs import Lab, get_lab
from grader.common.shutdown import finish
from grader.platforms.platform import ExportUsage, Platform, Said
from grader.results.check_view import check_view
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import localise, pitfall_title, problem_hint
from grader.results.render import json_text, render_feedback, render_template
from grader.results.score_document import (
    Check,
    Document,
    Problem,
    ScoreDocument,
    as_document,
    as_record,
    to_json,
)

MAX_RESULTS_BYTES = 1_000_000
ROOT_VARIABLE = "GRADE_ROOT"
DEFAULT_ROOT = Path("/grade")
DEFAULT_IMAGE = f"minigrad-labs-grader:{__version__}"
DEFAULT_TIMEOUT_S = 120
WIDGETS = ("upload", "editor")
# PrairieLearn's own test of a question's uuid (apps/prairielearn/src/lib/string-util.ts).
UUID_PATTERN = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
# What a hidden check shows of itself; everything else it carries is withheld.
# What a hidden check is written without (its id, title, pitfall, status, points and visibility
# are kept).
WITHHELD: dict[str, Any] = {"message": "", "hint": "", "section": "", "detail": None, "output": None}
# What Python raises on code that does not compile (the child's bootstrap reports its type).
COMPILE_ERRORS = frozenset({"SyntaxError", "IndentationError", "TabError"})


@dataclass(frozen=True)
class Config:
    """What the question grades and how; written as tests/minigrad.json."""

    lab: str
    lang: str
    seed: str
    grader_version: str = __version__

    @classmethod
    def load(cls, path: Path) -> Config:
        """Read and check a minigrad.json."""
        raw = json.loads(path.read_text(encoding="utf-8"))
        config = cls(raw["lab"], raw["lang"], raw["seed"])
        get_lab(config.lab)
        if config.lang not in LANGUAGES:
            raise ValueError(f"{path}: unknown language {config.lang!r}")
        if not config.seed:
            raise ValueError(f"{path}: no course seed")
        return config


# --- results.json ----------------------------------------------------------------------------


def does_not_compile(problem: Problem | Mapping[str, Any] | None) -> bool:
    """Whether a document's submission-level problem is code that does not compile (code that
    compiles and fails on import ran, and is graded 0 like any failing code)."""
    if not problem:
        return False
    problem = as_record(Problem, problem)
    return problem.kind == "import-error" and problem.params.get("type") in COMPILE_ERRORS


def withhold_hidden(doc: Document) -> ScoreDocument:
    """The score document whose hidden checks keep only their title, points, status and
    pitfall: no message, hint, section, detail (inputs, values, counterexample) or output."""
    document = as_document(doc)
    return replace(document, checks=tuple(
        check if check.visibility == "public" else replace(check, **WITHHELD)
        for check in document.checks))


def _test(check: Check, catalogue: Catalogue) -> dict[str, Any]:
    known = catalogue.has(f"pitfalls.{check.pitfall}.title")
    view = check_view(check, catalogue, drawn=False)
    message = render_template("platforms/check.txt.j2", check=view, t=catalogue.text,
                              lang=catalogue.lang,
                              withheld_notice=catalogue.text("platforms.prairielearn.hidden_check")
                              ).strip()
    return {
        "name": view.title,
        "description": pitfall_title(check.pitfall, catalogue) if known else check.pitfall,
        "points": check.score,
        "max_points": check.max_score,
        "message": message,
        "output": view.output,
    }


def results(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The PrairieLearn results.json of a score document, under 1 MB, hidden checks withheld."""
    catalogue = Catalogue.load(as_document(doc).lang)
    document = withhold_hidden(localise(as_document(doc), catalogue))
    localised = to_json(document)
    status = document.status
    if status != "graded":
        reason = document.reason.text if document.reason else ""
        key = "ungradable" if status == "ungradable" else "grader_error"
        message = catalogue.text(f"platforms.prairielearn.{key}", reason=reason) \
            if key == "ungradable" else catalogue.text(f"platforms.prairielearn.{key}")
        return {"gradable": False, "format_errors": [reason], "message": message,
                "output": render_feedback(localised, "terminal")}
    problem = document.problem
    # the problem's text names the error, its file and line; the hint what an empty file lacks
    told = " ".join(filter(None, (problem.text, problem_hint(problem, catalogue)))) \
        if problem else ""
    if problem and does_not_compile(problem):  # nothing was graded
        found = {"gradable": False, "format_errors": [problem.text],
                 "message": catalogue.text("platforms.prairielearn.not_compiled", reason=told),
                 "output": render_feedback(localised, "terminal")}
        return fit(found, catalogue.text("platforms.prairielearn.truncated"))
    maximum = document.max_score
    points = {"score": catalogue.number(document.score), "max_score": catalogue.number(maximum)}
    found = {
        "gradable": True,
        "score": document.score / maximum if maximum else 0.0,
        "message": catalogue.text("platforms.prairielearn.not_loaded", reason=told, **points)
        if problem else catalogue.text("platforms.prairielearn.graded", **points),
        "output": render_feedback(localised, "terminal"),
        "tests": [_test(check, catalogue) for check in document.checks],
    }
    return fit(found, catalogue.text("platforms.prairielearn.truncated"))


def _size(found: Mapping[str, Any]) -> int:
    return len(json.dumps(found, ensure_ascii=False).encode("utf-8"))


def fit(found: dict[str, Any], note: str, limit: int = MAX_RESULTS_BYTES) -> dict[str, Any]:
    """Shorten outputs (tests' first, then the overall one) until the JSON is under `limit`."""
    cap = 16_384
    while _size(found) >= limit and cap >= 64:
        for test in found.get("tests", []):
            for key in ("output", "message"):
                if len(test[key]) > cap:
                    test[key] = test[key][:cap] + "\n" + note
        if len(found.get("output", "")) > 4 * cap:
            found["output"] = found["output"][:4 * cap] + "\n" + note
        cap //= 2
    if _size(found) >= limit:  # a pathological number of tests: keep the score and the message
        found["tests"] = [{key: t[key] for key in ("name", "points", "max_points")}
                          for t in found.get("tests", [])]
        found["output"] = note
    return found


def fallback_results(lang: str) -> dict[str, Any]:
    """What the entrypoint writes when the grader could not write its own results."""
    catalogue = Catalogue.load(lang)
    return {"gradable": False, "message": catalogue.text("platforms.prairielearn.grader_error"),
            "format_errors": [catalogue.text("platforms.gradescope.grader_failed")]}


# --- the question ----------------------------------------------------------------------------


def _executable(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def _uuid_of(info: Path) -> str | None:
    """The uuid an info.json holds, if it is one PrairieLearn accepts."""
    try:
        found = json.loads(info.read_text(encoding="utf-8")).get("uuid")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, str) and UUID_PATTERN.match(found) else None


def _course_uuids(out: Path) -> set[str]:
    """The uuids of the other questions of the course `out` is in (the nearest folder above
    it holding infoCourse.json), lower-cased; empty outside a course."""
    folder = out.resolve()
    course = next((p for p in folder.parents if (p / "infoCourse.json").is_file()), None)
    if course is None:
        return set()
    others = (_uuid_of(info) for info in (course / "questions").rglob("info.json")
              if info.parent.resolve() != folder)
    return {found.lower() for found in others if found}


def question_uuid(out: Path) -> str:
    """The question's uuid: the one already at `out` (a re-export keeps it) unless another
    question of the course uses it too, else a new random one no question of the course has."""
    taken = _course_uuids(out)
    kept = _uuid_of(out / "info.json")
    if kept and kept.lower() not in taken:
        return kept
    while True:
        fresh = str(uuid.uuid4())
        if fresh not in taken:
            return fresh


def names_a_registry(image: str) -> bool:
    """Whether PrairieLearn's grader host could pull `image` from a repository a course can
    push to: a name without `/` is one of Docker Hub's official images (docker.io/library/),
    as a freshly built `make image` is named; any other name is a registry's or a Docker Hub
    user's."""
    return "/" in image


def export_question(lab: Lab, out: Path, config: Config, image: str = DEFAULT_IMAGE,
                    widget: str = "upload", timeout_s: int = DEFAULT_TIMEOUT_S) -> Path:
    """Write a PrairieLearn question folder for `lab` at `out` (info.json, question.html, tests/)."""
    if widget not in WIDGETS:
        raise ValueError(f"unknown widget {widget!r}; choose one of: {', '.join(WIDGETS)}")
    if not config.seed:
        raise ValueError("a PrairieLearn question needs a course seed")
    question_id = question_uuid(out)
    if out.exists():
        shutil.rmtree(out)
    tests = out / "tests"
    tests.mkdir(parents=True)
    catalogue = Catalogue.load(config.lang)
    files = list(lab.files)
    info = {
        "uuid": question_id,
        "title": f"minigrad {lab.name}",
        "topic": "minigrad",
        "tags": ["minigrad", lab.name],
        "type": "v3",
        "singleVariant": True,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True, "image": image, "entrypoint": "/grade/tests/run.sh",
            "timeout": timeout_s, "enableNetworking": False,
        },
    }
    (out / "info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    intro = catalogue.text(f"platforms.prairielearn.question.{widget}",
                           files=", ".join(files), lab=lab.name)
    (out / "question.html").write_text(
        render_template("platforms/prairielearn/question.html.j2", intro=intro, files=files,
                widget=widget), encoding="utf-8")
    if widget == "editor":
        (out / "stub").mkdir()
        for name in files:
            shutil.copyfile(lab.student_dir / name, out / "stub" / name)
    shutil.copytree(lab.hidden_tests, tests / "suite",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(lab.solution_dir, tests / "solution",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (tests / "minigrad.json").write_text(json.dumps(asdict(config), indent=2) + "\n",
                                         encoding="utf-8")
    (tests / "fallback_results.json").write_text(
        json.dumps(fallback_results(config.lang), ensure_ascii=False, indent=2) + "\n",
        encoding="utf-8")
    _executable(tests / "run.sh", render_template("platforms/prairielearn/run.sh.j2", lab=lab.name,
                                          grader_version=__version__))
    return out


# --- inside the container --------------------------------------------------------------------


def _job_data(root: Path) -> dict[str, Any]:
    """data.json as PrairieLearn writes it (externalGraderCommon.ts `buildDirectory`), or {}."""
    try:
        data = json.loads((root / "data" / "data.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def job_identity(data: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """The submission id that seeds the hidden inputs, and what it says of the student.

    The id is the variant's seed (`variant_seed`: random per variant, and every student has their
    own variant) and, when the course lets questions see it, the variant owner's uid
    (`options.user`). Without a variant seed the id is random: inputs no one else shares."""
    seed = data.get("variant_seed")
    options = data.get("options")
    user = options.get("user") if isinstance(options, Mapping) else None
    user = user if isinstance(user, Mapping) else {}
    variant = f"variant-{seed}" if isinstance(seed, int) and not isinstance(seed, bool) \
        else f"unseeded-{secrets.token_hex(8)}"
    meta = {key: str(user[source]) for key, source in (("student_id", "uid"), ("name", "name"))
            if user.get(source)}
    uid = re.sub(r"[^\w.@+-]", "_", meta.get("student_id", ""))
    return (f"{uid}-{variant}" if uid else variant), meta


def _submitted_files(root: Path, data: Mapping[str, Any], folder: Path) -> Path:
    """The student's files: /grade/student, or data.json's `_files` when that is empty."""
    student = root / "student"
    if student.is_dir() and any(student.iterdir()):
        return student
    folder.mkdir(parents=True, exist_ok=True)
    try:
        for item in data.get("submitted_answers", {}).get("_files", []):
            name = Path(str(item["name"])).name
            if name:
                (folder / name).write_bytes(base64.b64decode(item["contents"], validate=True))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, binascii.Error):
        pass  # nothing readable: graded as an empty submission, which says what is missing
    return folder


def grade_job(root: Path, config: Config) -> dict[str, Any]:
    """Grade the job under `root`; write results.json (and scores.json beside it)."""
    from grader.platforms.single import grade_one, write_results

    data = _job_data(root)
    submission_id, meta = job_identity(data)
    with tempfile.TemporaryDirectory(prefix="minigrad-pl-") as scratch:
        source = _submitted_files(root, data, Path(scratch) / "student")
        doc = grade_one(get_lab(config.lab), source, submission_id, config.lang, config.seed,
                        meta={**meta, "lms": "prairielearn"})
    found = results(doc)
    # results.json unindented: PrairieLearn caps it at 1 MB (`fit` measures it so)
    write_results(root / "results", {"scores.json": json_text(doc),
                                     "results.json": json.dumps(found, ensure_ascii=False) + "\n"})
    return found


def _grade_and_say(root: Path, config: Path) -> str:
    found = grade_job(root, Config.load(config))
    return f"gradable {found['gradable']}, score {found.get('score')}"


def main(argv: Sequence[str] | None = None) -> int:
    """The entry point tests/run.sh calls."""
    from grader.platforms.single import run_in_container

    return run_in_container(argv, "python -m grader.platforms.prairielearn", ROOT_VARIABLE,
                            DEFAULT_ROOT, _grade_and_say)


if __name__ == "__main__":
    finish(main())


# --- the platform, as `export prairielearn` runs it --------------------------------------------


class PrairieLearn(Platform):
    """A PrairieLearn question folder: `export prairielearn LAB --out FOLDER`."""

    name = "prairielearn"

    def add_arguments(self, parser: argparse.ArgumentParser, text: Callable[[str], str]) -> None:
        """--image, --widget and --timeout."""
        parser.add_argument("--image", default=DEFAULT_IMAGE, help=text("prairielearn_image"))
        parser.add_argument("--widget", choices=WIDGETS, default=WIDGETS[0],
                            help=text("prairielearn_widget"))
        parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_S,
                            help=text("prairielearn_timeout"))

    def refuse(self, out: Path, args: argparse.Namespace) -> None:
        """The question's path must not be a file; the timeout is PrairieLearn's 1 to 600 s."""
        if out.exists() and not out.is_dir():
            raise ExportUsage("export_out_is_file", path=str(out))
        if not 1 <= args.timeout <= 600:
            raise ExportUsage("timeout_range")

    def export(self, lab: Lab, out: Path, args: argparse.Namespace, seed: str) -> list[Said]:
        """Write the question folder; say where its image is to come from."""
        config_pl = Config(lab.name, args.lang, seed)
        export_question(lab, out, config_pl, image=args.image, widget=args.widget,
                        timeout_s=args.timeout)
        return [("cli.prairielearn_built", {"lab": lab.name, "out": str(out), "image": args.image}),
                ("deploy.image_pushed" if names_a_registry(args.image) else "deploy.image_local",
                 {"image": args.image})]


PLATFORM = PrairieLearn()

