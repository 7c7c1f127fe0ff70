"""Gradescope: the autograder bundle it builds an image from, and the results.json it reads.

Trusted side. Written from Gradescope's "Autograder Specifications" (gradescope/autograder_samples,
docs/specs.md; gradescope-autograders.readthedocs.io/en/latest/specs/): the uploaded zip has
`setup.sh` and `run_autograder` at its root; it is unpacked into /autograder/source, `setup.sh`
runs once as root at image build, and for every submission `run_autograder` runs from /autograder
with the student's files in /autograder/submission and must write
/autograder/results/results.json (`score`, `execution_time`, `output` and `output_format`,
`tests[]` with `name`, `score`, `max_score`, `status` passed/failed, `output`, `visibility`,
`stdout_visibility`, `extra_data`). /autograder/submission_metadata.json names the submission and
its users (docs/submission_metadata.md): the report names them. Why a submission's code could not
be loaded (the document's problem: the error, its file and line, what to do) is in the top-level
output, which a student sees at once, before and after grades are published. Tests that are not visible keep
the total score from students until grades are published, so the top-level output never describes
them. With `points`, every check is scaled (grader.platforms.scaling) so that the tests' maxima add up
to the assignment's points, as Gradescope adds them; the top-level `score`, which Gradescope
records ("overrides total of tests"), is the total rounded once, as the gradebooks round it
(`rounded_total`), not the sum of the checks' rounded scores (98/119 out of 10 is 8.24
everywhere, where the rounded checks add up to 8.26).

`python -m grader.platforms.gradescope --root ROOT --config FILE` is what `run_autograder` runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import shutil
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from grader import __version__
from grader.common.labs import Lab, get_lab
from grader.common.shutdown import finish
from grader.platforms.platform import ExportUsage, Platform, Said
from grader.platforms.scaling import scaled_maxima, scaled_score, valid_total
from grader.results.check_view import check_view
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.messages import attempt_notes, localise, problem_notice, problem_where
from grader.results.render import json_text, pitfall_notes, render_template, report_texts
from grader.results.rounding import rounded_total
from grader.results.score_document import Check, as_document, to_json, to_json_or_none

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
DEFAULT_HIDDEN_VISIBILITY = "after_published"
ROOT_VARIABLE = "AUTOGRADER_ROOT"
DEFAULT_ROOT = Path("/autograder")
EXECUTABLE = 0o755


@dataclass(frozen=True)
class Config:
    """What the bundle grades and how; written into the bundle as minigrad.json."""

    lab: str
    lang: str
    seed: str
    hidden_visibility: str = DEFAULT_HIDDEN_VISIBILITY
    points: float | None = None  # the assignment's points; None: the lab's own
    grader_version: str = __version__

    @classmethod
    def load(cls, path: Path) -> Config:
        """Read and check a minigrad.json."""
        raw = json.loads(path.read_text(encoding="utf-8"))
        config = cls(**{key: raw[key] for key in ("lab", "lang", "seed", "hidden_visibility")},
                     points=raw.get("points"))
        get_lab(config.lab)
        if config.lang not in LANGUAGES or config.hidden_visibility not in VISIBILITIES:
            raise ValueError(f"{path}: bad lang or hidden_visibility")
        config.check()
        return config

    def check(self) -> None:
        """Refuse an empty course seed and points that cannot be split in hundredths."""
        if not self.seed:
            raise ValueError("a Gradescope bundle needs a course seed")
        if self.points is not None and not valid_total(self.points):
            raise ValueError(f"points must be a positive number of hundredths: {self.points}")


# --- results.json ----------------------------------------------------------------------------


def _test(check: Check, hidden_visibility: str, catalogue: Catalogue,
          scaled: tuple[Decimal, Decimal] | None = None) -> dict[str, Any]:
    """One check as a Gradescope test case, its (score, maximum) scaled when given."""
    view = check_view(check, catalogue, drawn=False)
    output = render_template("platforms/check.md.j2", check=view, t=catalogue.text,
                             lang=catalogue.lang).strip()
    score, max_score = check.score, check.max_score
    if scaled is not None:
        score, max_score = float(scaled[0]), float(scaled[1])
    return {
        "name": view.title,
        "name_format": "text",
        "score": score,
        "max_score": max_score,
        # Gradescope knows passed and failed only; not-run and error keep their own status in
        # extra_data and in the output text.
        "status": "passed" if check.status == "passed" else "failed",
        "output": output,
        "output_format": "md",
        "tags": [check.pitfall],
        "visibility": "visible" if check.visibility == "public" else hidden_visibility,
        "extra_data": {"check": check.id, "pitfall": check.pitfall, "status": check.status},
    }


def attempts_line(doc: Mapping[str, Any], catalogue: Catalogue) -> str:
    """The sentences saying the attempt was late and which of its files share a name, or ''."""
    return " ".join(attempt_notes(doc, catalogue))


def results(doc: Mapping[str, Any], hidden_visibility: str = DEFAULT_HIDDEN_VISIBILITY,
            execution_time: float | None = None, points: float | None = None) -> dict[str, Any]:
    """The Gradescope results.json of a score document, out of `points` when given."""
    catalogue = Catalogue.load(as_document(doc).lang)
    document = localise(as_document(doc), catalogue)
    localised = to_json(document)  # for the templates
    checks = document.checks
    graded = document.status == "graded"
    scaled: list[tuple[Decimal, Decimal] | None] = [None] * len(checks)
    if points is not None:  # the total rounded once, as the gradebooks round it
        maxima = scaled_maxima([c.max_score for c in document.checks], points)
        total = rounded_total(document.score, document.max_score, points)
        scaled = [(scaled_score(c.score, c.max_score, maximum), maximum)
                  for c, maximum in zip(document.checks, maxima, strict=True)]
    tests = [_test(check, hidden_visibility, catalogue, pair)
             for check, pair in zip(checks, scaled, strict=True)]
    score = float(sum(Decimal(str(t["score"])) for t in tests)) if graded else 0.0
    if graded and points is not None:
        score = float(total)
    max_score = float(sum(Decimal(str(t["max_score"])) for t in tests)) if graded else 0.0
    shown = [c for c in document.checks
             if c.visibility == "public" or hidden_visibility == "visible"]
    # Only pitfalls a visible check failed on: a hidden failure must not show through.
    shown_pitfalls = list(dict.fromkeys(
        c.pitfall for c in shown
        if c.status == "failed" and c.pitfall in document.pitfalls))
    problem = to_json_or_none(document.problem)
    output = render_template(
        "platforms/gradescope_output.md.j2", doc=localised, t=catalogue.text, lang=catalogue.lang,
        grader_error_notice=catalogue.text("ui.grader_error_notice"),
        score=score, max_score=max_score,
        withheld=len(checks) - len(shown), attempts=attempts_line(localised, catalogue),
        pitfall_notes=pitfall_notes(shown_pitfalls, catalogue), problem=problem,
        problem_where=problem_where(problem, catalogue) if problem else "",
        problem_notice=problem_notice(localised, catalogue) if problem else "")
    return {
        "score": score,
        "execution_time": round(execution_time if execution_time is not None
                                else document.duration_s, 3),
        "output": output,
        "output_format": "md",
        "test_output_format": "md",
        "test_name_format": "text",
        "stdout_visibility": "hidden",
        "extra_data": {
            "status": document.status, "lab": document.lab,
            "grader_version": document.grader_version, "pitfalls": list(document.pitfalls),
            "flags": [flag.id for flag in document.flags],
            "reason": document.reason.kind if document.reason else None,
            "digest": document.submission.digest,
            "points": points,
        },
        "tests": tests,
    }


def fallback_results(lang: str) -> dict[str, Any]:
    """The results.json `run_autograder` writes when the grader could not write its own."""
    catalogue = Catalogue.load(lang)
    return {"score": 0.0, "output": catalogue.text("platforms.gradescope.grader_failed"),
            "output_format": "md", "stdout_visibility": "hidden",
            "extra_data": {"status": "grader-error"}, "tests": []}


# --- the bundle ------------------------------------------------------------------------------


def _add(bundle: zipfile.ZipFile, name: str, text: str | bytes, mode: int = 0o644) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    bundle.writestr(info, text)


def export_bundle(lab: Lab, out: Path, config: Config) -> Path:
    """Write the autograder zip for `lab` at `out`: setup.sh and run_autograder at its root."""
    # here: the container that grades a submission never builds a bundle (the requirement
    # pins read every installed distribution's metadata, a tenth of a cold submission's start)
    from grader.platforms.bundle import copy_grader_tree, pinned_requirements

    config.check()
    staging = out.with_name(out.name + ".staging")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        copy_grader_tree(lab, staging / "minigrad")
        catalogue = Catalogue.load(config.lang)
        context = {"lab": lab.name, "grader_version": __version__,
                   # shell words, quoted here: setup.sh prints them when it cannot go on
                   "no_package_manager": shlex.quote(
                       catalogue.text("platforms.gradescope.setup_no_manager")),
                   "no_python": shlex.quote(catalogue.text("platforms.gradescope.setup_no_python"))}
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w") as bundle:
            _add(bundle, "setup.sh", render_template("platforms/gradescope/setup.sh.j2", **context),
                 EXECUTABLE)
            _add(bundle, "run_autograder",
                 render_template("platforms/gradescope/run_autograder.j2", **context), EXECUTABLE)
            _add(bundle, "minigrad.json", json.dumps(asdict(config), indent=2) + "\n", 0o600)
            _add(bundle, "requirements.txt", pinned_requirements())
            _add(bundle, "fallback_results.json",
                 json.dumps(fallback_results(config.lang), ensure_ascii=False, indent=2))
            for path in sorted(staging.rglob("*")):
                if path.is_file():
                    name = path.relative_to(staging).as_posix()
                    _add(bundle, name, path.read_bytes())
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


# --- inside the container --------------------------------------------------------------------


def _metadata(root: Path) -> dict[str, Any]:
    """Submission id, its users' names and ids (all of a group's, joined) and its time (UTC)
    from submission_metadata.json (docs/submission_metadata.md), if any."""
    try:
        meta = json.loads((root / "submission_metadata.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(meta, dict):
        return {}
    users = [user for user in meta.get("users") or [] if isinstance(user, dict)]

    def joined(key: str) -> str:
        return ", ".join(str(user[key]) for user in users if user.get(key) not in (None, ""))

    found = {"id": str(meta.get("id") or ""), "student_id": joined("id"), "name": joined("name"),
             "submitted_at": _utc(meta.get("created_at"))}
    return {key: value for key, value in found.items() if value}


def _utc(created_at: Any) -> str:
    """Gradescope's `created_at` ("2018-07-01T14:22:32.365935-07:00") in UTC to the second, as
    the semester's ledger reads times; '' when it is absent or not such a time (never guessed)."""
    try:
        moment = datetime.datetime.fromisoformat(str(created_at))
    except ValueError:
        return ""
    if moment.tzinfo is None:
        return ""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def grade_submission(root: Path, config: Config) -> dict[str, Any]:
    """Grade ROOT/submission; write scores.json, feedback files and, last, results.json."""
    from grader.platforms.single import grade_one, write_results

    started = time.monotonic()
    meta = _metadata(root)
    submission_id = meta.pop("id", "submission")
    doc = grade_one(get_lab(config.lab), root / "submission", submission_id, config.lang,
                    config.seed, meta={**meta, "lms": "gradescope"})
    out = results(doc, config.hidden_visibility, time.monotonic() - started, config.points)
    write_results(root / "results", {**report_texts(doc), "results.json": json_text(out)})
    return out


def _grade_and_say(root: Path, config: Path) -> str:
    out = grade_submission(root, Config.load(config))
    return f"score {out['score']} ({out['extra_data']['status']}) in {out['execution_time']} s"


def main(argv: Sequence[str] | None = None) -> int:
    """The entry point `run_autograder` calls."""
    from grader.platforms.single import run_in_container

    return run_in_container(argv, "python -m grader.platforms.gradescope", ROOT_VARIABLE,
                            DEFAULT_ROOT, _grade_and_say)


if __name__ == "__main__":
    finish(main())


# --- the platform, as `export gradescope` runs it ----------------------------------------------


class Gradescope(Platform):
    """Gradescope's autograder zip: `export gradescope LAB --out ZIP`."""

    name = "gradescope"

    def add_arguments(self, parser: argparse.ArgumentParser, text: Callable[[str], str]) -> None:
        """--hidden-visibility and --points."""
        parser.add_argument(
            "--hidden-visibility", default=DEFAULT_HIDDEN_VISIBILITY, choices=VISIBILITIES,
            help=text("gradescope_hidden_visibility"))
        parser.add_argument("--points", type=float, metavar="N", help=text("gradescope_points"))

    def refuse(self, out: Path, args: argparse.Namespace) -> None:
        """The zip's path must not be a folder; the points must split in hundredths."""
        if out.is_dir():
            raise ExportUsage("export_out_is_folder", path=str(out))
        if args.points is not None and not valid_total(args.points):
            raise ExportUsage("points_range", text=str(args.points))

    def export(self, lab: Lab, out: Path, args: argparse.Namespace, seed: str) -> list[Said]:
        """Write the autograder zip."""
        config = Config(lab.name, args.lang, seed, args.hidden_visibility, points=args.points)
        export_bundle(lab, out, config)
        return [("cli.gradescope_built", {"lab": lab.name, "out": str(out)})]


PLATFORM = Gradescope()

