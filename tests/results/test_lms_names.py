"""The score document's `submission.lms` takes its names from the registries, not a list of its
own: every LMS target's name, `folders` and every grading platform's name is a valid document,
and a name no registry could give (upper case, a space, a path) is not. So adding a target or a
platform changes no schema (docs/outputs.md, "Adding an output target")."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from grader.platforms.registry import PLATFORMS
from grader.results.lms.registry import KINDS
from grader.results.score_document import parse
from grader.results.score_schema import score_schema

DATA = Path(__file__).resolve().parents[1] / "data"
NAMES = (*KINDS, *(platform.name for platform in PLATFORMS))


def with_lms(name: str) -> dict[str, object]:
    doc = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    doc["submission"]["lms"] = name
    return doc  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_name_is_a_valid_lms(name: str) -> None:
    jsonschema.validate(with_lms(name), score_schema())
    assert parse(with_lms(name)).submission.lms == name


@pytest.mark.parametrize("name", ["Canvas", "canvas lms", "../x", "", "1moodle"])
def test_a_name_no_registry_gives_is_refused(name: str) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(with_lms(name), score_schema())
