"""Gradescope's reading of results.json, from its specification and its own test runner
(a test helper, not a test module).

gradescope/autograder_samples `docs/specs.md` ("Output format", "Controlling Test Case
Visibility", "Test case status", "Output String Formatting") and gradescope/gradescope-utils
`gradescope_utils/autograder_utils/json_test_runner.py` (`JSONTestResult.buildResult`,
`JSONTestRunner.run`). Each function names the rule it follows.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

# specs.md "Output format": the top-level keys and each test's keys.
TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format",
            "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
            "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output",
             "output_format", "tags", "visibility", "extra_data"}
# specs.md "Output String Formatting", "Controlling Test Case Visibility", "Test case status".
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
STATUSES = {"passed", "failed"}


def problems(results: Mapping[str, Any]) -> list[str]:
    """What specs.md's "Output format" does not allow in `results` (empty: none)."""
    found = [f"unknown key {key}" for key in set(results) - TOP_KEYS]
    if "score" not in results and not all("score" in t for t in results.get("tests", [])):
        found.append("no top-level score and a test without one")  # "required if not on each"
    for key in ("output_format", "test_output_format", "test_name_format"):
        if key in results and results[key] not in FORMATS:
            found.append(f"{key} {results[key]!r}")
    for key in ("visibility", "stdout_visibility"):
        if key in results and results[key] not in VISIBILITIES:
            found.append(f"{key} {results[key]!r}")
    for index, test in enumerate(results.get("tests", [])):
        found += [f"test {index}: unknown key {key}" for key in set(test) - TEST_KEYS]
        for key in ("score", "max_score"):
            if key in test and not isinstance(test[key], (int, float, Decimal)):
                found.append(f"test {index}: {key} not a number")
        if test.get("status", "passed") not in STATUSES:
            found.append(f"test {index}: status {test['status']!r}")
        if test.get("visibility", "visible") not in VISIBILITIES:
            found.append(f"test {index}: visibility {test['visibility']!r}")
        for key in ("output_format", "name_format"):
            if key in test and test[key] not in FORMATS:
                found.append(f"test {index}: {key} {test[key]!r}")
    return found


def total_score(results: Mapping[str, Any]) -> Any:
    """specs.md: the top-level `score` "Overrides total of tests if specified"; else the sum
    of the tests' scores (json_test_runner.py `JSONTestRunner.run` adds them up)."""
    if "score" in results:
        return results["score"]
    return sum(test.get("score", 0) for test in results.get("tests", []))


def tests_total(results: Mapping[str, Any]) -> tuple[Any, Any]:
    """The tests' scores and maxima added up, as json_test_runner.py `JSONTestRunner.run` adds
    scores (with the numbers as given: Decimal when the JSON was read with parse_float=Decimal)."""
    tests = results.get("tests", [])
    return (sum((t.get("score", 0) for t in tests), Decimal(0)),
            sum((t.get("max_score", 0) for t in tests), Decimal(0)))


def status(test: Mapping[str, Any]) -> str:
    """specs.md "Test case status": `status` when given; by default passed when the test got
    its max_score (json_test_runner.py `buildResult`: failed once points are lost)."""
    if "status" in test:
        return str(test["status"])
    return "passed" if test.get("score", 0) >= test.get("max_score", 0) else "failed"


def total_shown_to_students(results: Mapping[str, Any]) -> bool:
    """specs.md: "If test cases are hidden, students will not be able to see their total
    score" (until the tests become visible)."""
    return all(t.get("visibility", results.get("visibility", "visible")) == "visible"
               for t in results.get("tests", []))


def shown_to_student(test: Mapping[str, Any], results: Mapping[str, Any], *,
                     after_due_date: bool, published: bool) -> bool:
    """specs.md "Controlling Test Case Visibility": a test takes its own `visibility`, else the
    top-level one, else `visible`; `hidden` "will never be shown to students", `after_due_date`
    once the due date has passed, `after_published` once grades are published, `visible`
    always (instructors see everything)."""
    visibility = test.get("visibility", results.get("visibility", "visible"))
    return {"visible": True, "after_due_date": after_due_date, "after_published": published,
            "hidden": False}[visibility]


def student_view(results: Mapping[str, Any], *, after_due_date: bool, published: bool) -> str:
    """The text a student reads on the submission's page at that moment: the top-level `output`
    (text relevant to the entire submission), then the name and output of each test shown."""
    parts = [str(results.get("output", ""))]
    for test in results.get("tests", []):
        if shown_to_student(test, results, after_due_date=after_due_date, published=published):
            parts += [str(test.get("name", "")), str(test.get("output", ""))]
    return "\n".join(parts)
