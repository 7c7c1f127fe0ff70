"""grader.similarity.wrong_outputs: the same rare wrong value on the same input, from score
documents (tests/data/score_mixed.json's failed checks)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from grader.similarity.wrong_outputs import rare_limit, shared_wrong_values, wrong_values

DATA = Path(__file__).resolve().parents[1] / "data"


def doc(student: str, actual: float | None = None) -> dict[str, Any]:
    """score_mixed.json under another id; `actual`: the value its diamond check returned."""
    mixed = json.loads((DATA / "score_mixed.json").read_text(encoding="utf-8"))
    made = copy.deepcopy(mixed)
    made["submission"]["id"] = student
    for check in made["checks"]:
        if check["id"] == "diamond-accumulates" and actual is not None:
            check["detail"]["params"]["actual"] = actual
    return made


def passed(student: str) -> dict[str, Any]:
    made = json.loads((DATA / "score_all_passed.json").read_text(encoding="utf-8"))
    made["submission"]["id"] = student
    return made


def test_a_document_gives_each_failed_checks_value_on_its_input() -> None:
    values = list(wrong_values(doc("ana")).values())
    assert {v["check"] for v in values} == {"diamond-accumulates", "self-add-accumulates",
                                            "equal-data-leaves-stay-distinct"}
    diamond = next(v for v in values if v["check"] == "diamond-accumulates")
    assert (diamond["inputs"], diamond["actual"]) == ({"a": 2.0, "b": -3.0}, -3.0)


def test_two_students_with_the_same_rare_wrong_value_are_paired() -> None:
    class_docs = [doc("ana", -7.25), doc("bea", -7.25), doc("eva", 0.5), *(passed(f"p{i}") for i in range(40))]
    shared = shared_wrong_values(class_docs)
    assert [v.check for v in shared["ana", "bea"]] == ["diamond-accumulates"]
    assert shared["ana", "bea"][0].holders == 2
    # The other values of score_mixed.json are given by ana, bea and eva alike: three
    # students of 43, within the rare limit of 43 graded (2), so not rare.
    assert rare_limit(43) == 2
    assert ("ana", "eva") not in shared and ("bea", "eva") not in shared


def test_a_common_wrong_value_pairs_no_one() -> None:
    class_docs = [doc(f"s{i}", -3.0) for i in range(10)]
    assert shared_wrong_values(class_docs) == {}


def test_documents_that_were_not_graded_count_for_nothing() -> None:
    ungradable = doc("zoe", -7.25)
    ungradable["status"] = "ungradable"
    assert shared_wrong_values([doc("ana", -7.25), ungradable, *(passed(f"p{i}") for i in range(5))]) == {}
