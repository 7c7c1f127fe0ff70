"""PrairieLearn's reading of what our question writes, transcribed from its code (a test helper,
not a test module). Each function names the file and function of PrairieLearn/PrairieLearn it
follows; the tests take these as their oracle, not our own reading of the docs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

# apps/prairielearn/src/lib/string-util.ts `UUID_REGEXP`, what zod's guid() also accepts.
UUID_REGEXP = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
# apps/grader-host/src/index.ts `runJob`: "Cap output at 1MB".
RESULTS_LIMIT = 1024 * 1024
# apps/prairielearn/src/lib/config.ts `externalGradingMaximumTimeout` (default 60 * 10).
MAXIMUM_TIMEOUT = 600
# The parts of apps/prairielearn/src/schemas/schemas/infoQuestion.json a question of ours can
# touch: its required keys, the closed set of keys (additionalProperties false), the types and
# enums of the keys we write, and externalGradingOptions (closed, `image` required).
INFO_QUESTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["uuid", "type", "title", "topic"],
    "additionalProperties": False,
    "properties": {
        "uuid": {"type": "string", "pattern": UUID_REGEXP.pattern},
        "title": {"type": "string"},
        "topic": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "type": {"enum": ["Calculation", "MultipleChoice", "Checkbox", "File",
                          "MultipleTrueFalse", "v3"]},
        "singleVariant": {"type": "boolean"},
        "gradingMethod": {"enum": ["Internal", "External", "Manual"]},
        "externalGradingOptions": {
            "type": "object", "required": ["image"], "additionalProperties": False,
            "properties": {
                "comment": {}, "enabled": {"type": "boolean"}, "image": {"type": "string"},
                "entrypoint": {"anyOf": [{"type": "string"},
                                         {"type": "array", "items": {"type": "string"}}]},
                "serverFilesCourse": {"type": "array", "items": {"type": "string"}},
                "timeout": {"type": "integer"}, "enableNetworking": {"type": "boolean"},
                "environment": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
        **{key: {} for key in ("authors", "clientFiles", "clientTemplates", "comment",
                               "dependencies", "options", "partialCredit", "preferences",
                               "sharePublicly", "shareSourcePublicly", "sharingSets",
                               "showCorrectAnswer", "template", "workspaceOptions")},
    },
}


@dataclass(frozen=True)
class Grading:
    """What PrairieLearn records of a grading job."""

    gradable: bool
    score: float
    message: str  # the failure message PrairieLearn substitutes, or ''
    feedback: Mapping[str, Any]  # what the results element renders from


def grader_host_read(raw: bytes) -> dict[str, Any]:
    """apps/grader-host/src/index.ts `runJob`: the job's result from results.json's bytes, the
    container having exited 0: over 1 MiB fails the job, unparsable JSON fails it, else
    `results` is the parsed object (sanitizeObject only rewrites NUL characters)."""
    if len(raw) > RESULTS_LIMIT:
        return {"succeeded": False, "message": "The grading results were larger than 1MB."}
    try:
        parsed = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {"succeeded": False, "message": "Could not parse the grading results."}
    return {"succeeded": True, "results": parsed}


def make_grading_result(data: Mapping[str, Any]) -> dict[str, Any]:
    """apps/prairielearn/src/lib/externalGraderCommon.ts `makeGradingResult`: `succeeded` must be
    a boolean; a failed job scores 0; `results` must exist; a null score is 0, another score
    must be a number (not NaN); `format_errors` a string or a list of them."""
    if not isinstance(data.get("succeeded"), bool):
        return {"score": 0, "feedback": {"succeeded": False, "message": "no 'succeeded'"}}
    if not data["succeeded"]:
        return {"score": 0, "feedback": data, "format_errors": []}
    results = data.get("results")
    if not results:
        return {"score": 0, "feedback": {"succeeded": False, "message": "no 'results'"}}
    score = results.get("score")
    if score is None:
        score = 0
    elif not isinstance(score, (int, float)) or isinstance(score, bool) or math.isnan(score):
        return {"score": 0, "feedback": {"succeeded": False, "message": "score not a number"}}
    errors = results.get("format_errors")
    format_errors = [errors] if isinstance(errors, str) else errors if isinstance(errors, list) \
        else []
    return {"score": score, "feedback": data, "format_errors": format_errors}


def process_grading_result(grading: Mapping[str, Any]) -> Grading:
    """apps/prairielearn/src/lib/externalGrader.ts `processGradingResult`: gradable only if the
    job succeeded and `results.gradable` is not false (default true); a gradable score must be
    given, finite and in [0, 1], else the submission is marked not gradable with a message."""
    feedback = grading.get("feedback") or {}
    results = feedback.get("results") or {}
    score = grading.get("score")
    if not (results.get("succeeded", True)):
        score = 0
    gradable = bool(feedback.get("succeeded")) and bool(results.get("gradable", True))
    message = ""
    if gradable:
        if score is None or not isinstance(score, (int, float)) or not math.isfinite(score):
            gradable, score, message = False, 0, "score is not a number"
        elif score < 0 or score > 1:
            gradable, score, message = False, 0, "score is out of range"
    return Grading(gradable, float(score or 0), message, feedback)


def grade(raw: bytes) -> Grading:
    """The whole path a results.json takes: grader host, then the server."""
    return process_grading_result(make_grading_result(grader_host_read(raw)))


def results_element(feedback: Mapping[str, Any]) -> dict[str, Any]:
    """apps/prairielearn/elements/pl-external-grader-results/pl-external-grader-results.py
    `render`: what the submission panel shows: gradable (default true), the score as a
    percentage, the message and output, and the tests with their points unless any test lacks
    `points` or `max_points` (then no test shows points)."""
    results = feedback.get("results") or {}
    shown: dict[str, Any] = {"gradable": results.get("gradable", True)}
    if feedback.get("succeeded") and results:
        shown["score_percent"] = results.get("score", 0) * 100
        tests = results.get("tests") or []
        shown["tests_missing_points"] = any(
            t.get("points") is None or t.get("max_points") is None for t in tests)
        if tests and not shown["tests_missing_points"]:
            shown["points"] = sum(t["points"] for t in tests)
            shown["max_points"] = sum(t["max_points"] for t in tests)
    return shown


def student_strings(value: Any) -> Iterator[str]:
    """Every string of results.json: PrairieLearn has no per-test visibility (issue #12113),
    so the student can see all of it (the element renders it; the raw feedback is theirs)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from student_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from student_strings(item)


def question_uuid(info_text: str) -> str | None:
    """apps/prairielearn/src/sync/course-db.ts `loadInfoFile`: the uuid of an info.json, None
    when missing or not a valid UUID (an error on that question)."""
    found = json.loads(info_text).get("uuid")
    return found if isinstance(found, str) and UUID_REGEXP.match(found) else None


def check_duplicate_uuids(infos: Mapping[str, str | None]) -> dict[str, str | None]:
    """apps/prairielearn/src/sync/course-db.ts `checkDuplicateUUIDs`: every question whose uuid
    another question also has gets a warning and no uuid (it is not synced)."""
    owners: dict[str, list[str]] = {}
    for question, found in infos.items():
        if found:
            owners.setdefault(found, []).append(question)
    return {question: None if found and len(owners[found]) > 1 else found
            for question, found in infos.items()}
