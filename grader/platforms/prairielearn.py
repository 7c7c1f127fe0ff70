"""PrairieLearn: an externally graded question per lab, and the results.json its grader returns.

Trusted side. Written from PrairieLearn's docs/externalGrading.md and its question schema
(apps/prairielearn/src/schemas/schemas/infoQuestion.json): `info.json` sets `gradingMethod`
"External" and `externalGradingOptions` (`image`, `entrypoint`, `timeout` up to 600 s,
`enableNetworking` off); the grading container gets the question's `tests/` at /grade/tests, the
student's files at /grade/student and the `data` object at /grade/data/data.json, and must write
/grade/results/results.json itself: `score` in [0, 1], `gradable: false` for a submission that
cannot be graded (no points given or taken, the attempt is not charged), `message`, `output`,
`tests[]` with `name`, `description`, `points`, `max_points`, `message`, `output`; at most 1 MB.

`python -m grader.platforms.prairielearn --root ROOT --config FILE` is what the entrypoint runs.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grader import __version__
from grader.i18n import LANGUAGES, Catalogue
from grader.labs import Lab, get_lab
from grader.messages import localise_document, pitfall_title
from grader.render import environment, render_feedback

MAX_RESULTS_BYTES = 1_000_000
ROOT_VARIABLE = "GRADE_ROOT"
DEFAULT_ROOT = Path("/grade")
DEFAULT_IMAGE = f"minigrad-labs-grader:{__version__}"
DEFAULT_TIMEOUT_S = 120
WIDGETS = ("upload", "editor")
UUID_NAMESPACE = uuid.UUID("6f1c1f0e-3a63-5a7e-9d43-6d696e696772")


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
        return config


# --- results.json ----------------------------------------------------------------------------


def _render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def _test(check: Mapping[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    known = catalogue.has(f"pitfalls.{check['pitfall']}.title")
    message = _render("platforms/check.txt.j2", check=check, t=catalogue.text, lang=catalogue.lang,
                      grader_error_notice=catalogue.text("ui.grader_error_notice")).strip()
    return {
        "name": check["title"],
        "description": pitfall_title(check["pitfall"], catalogue) if known else check["pitfall"],
        "points": check["score"],
        "max_points": check["max_score"],
        "message": message,
        "output": check["output"] or "",
    }


def results(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The PrairieLearn results.json of a score document, under 1 MB."""
    catalogue = Catalogue.load(doc["lang"])
    localised = localise_document(doc, catalogue)
    status = localised["status"]
    if status != "graded":
        reason = localised["reason"]["text"]
        key = "ungradable" if status == "ungradable" else "grader_error"
        message = catalogue.text(f"platforms.prairielearn.{key}", reason=reason) \
            if key == "ungradable" else catalogue.text(f"platforms.prairielearn.{key}")
        return {"gradable": False, "format_errors": [reason], "message": message,
                "output": render_feedback(localised, "terminal")}
    maximum = localised["max_score"]
    found = {
        "gradable": True,
        "score": localised["score"] / maximum if maximum else 0.0,
        "message": catalogue.text("platforms.prairielearn.graded",
                                  score=catalogue.number(localised["score"]),
                                  max_score=catalogue.number(maximum)),
        "output": render_feedback(localised, "terminal"),
        "tests": [_test(check, catalogue) for check in localised["checks"]],
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


def export_question(lab: Lab, out: Path, config: Config, image: str = DEFAULT_IMAGE,
                    widget: str = "upload", timeout_s: int = DEFAULT_TIMEOUT_S) -> Path:
    """Write a PrairieLearn question folder for `lab` at `out` (info.json, question.html, tests/)."""
    if widget not in WIDGETS:
        raise ValueError(f"unknown widget {widget!r}; choose one of: {', '.join(WIDGETS)}")
    if out.exists():
        shutil.rmtree(out)
    tests = out / "tests"
    tests.mkdir(parents=True)
    catalogue = Catalogue.load(config.lang)
    files = list(lab.files)
    info = {
        "uuid": str(uuid.uuid5(UUID_NAMESPACE, lab.name)).upper(),
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
        _render("platforms/prairielearn/question.html.j2", intro=intro, files=files,
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
    _executable(tests / "run.sh", _render("platforms/prairielearn/run.sh.j2", lab=lab.name,
                                          grader_version=__version__))
    return out


# --- inside the container --------------------------------------------------------------------


def _submitted_files(root: Path, folder: Path) -> Path:
    """The student's files: /grade/student, or data.json's `_files` when that is empty."""
    student = root / "student"
    if student.is_dir() and any(student.iterdir()):
        return student
    folder.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads((root / "data" / "data.json").read_text(encoding="utf-8"))
        for item in data.get("submitted_answers", {}).get("_files", []):
            name = Path(str(item["name"])).name
            if name:
                (folder / name).write_bytes(base64.b64decode(item["contents"], validate=True))
    except (OSError, ValueError, KeyError, TypeError, binascii.Error):
        pass  # nothing readable: graded as an empty submission, which says what is missing
    return folder


def grade_job(root: Path, config: Config) -> dict[str, Any]:
    """Grade the job under `root`; write results.json (and scores.json beside it)."""
    from grader.platforms.single import grade_one

    with tempfile.TemporaryDirectory(prefix="minigrad-pl-") as scratch:
        source = _submitted_files(root, Path(scratch) / "student")
        doc = grade_one(get_lab(config.lab), source, "prairielearn", config.lang, config.seed,
                        meta={"lms": "prairielearn"})
    found = results(doc)
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scores.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
    temporary = folder / "results.json.tmp"
    temporary.write_text(json.dumps(found, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, folder / "results.json")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """The entry point tests/run.sh calls."""
    parser = argparse.ArgumentParser(prog="python -m grader.platforms.prairielearn")
    parser.add_argument("--root", default=os.environ.get(ROOT_VARIABLE, str(DEFAULT_ROOT)))
    parser.add_argument("--config", required=True)
    args = parser.parse_args(argv)
    found = grade_job(Path(args.root), Config.load(Path(args.config)))
    print(f"gradable {found['gradable']}, score {found.get('score')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
