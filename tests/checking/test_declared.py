"""declared_checks reads a lab's markers with the plugin's own validation (spec_from_marker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.common.labs import LABS
from grader.grading.checking import declared
from grader.grading.checking.marker import CheckDefinitionError


class _FolderLab:
    """A lab whose public suite is a folder of the test's own (no hidden suite)."""

    def __init__(self, folder: Path) -> None:
        self.public_tests = folder
        self.hidden_tests = folder / "absent"


def _suite(tmp_path: Path, marker: str) -> _FolderLab:
    (tmp_path / "test_x.py").write_text(
        f"import pytest\n\n@pytest.mark.check({marker})\ndef test_it():\n    pass\n",
        encoding="utf-8")
    return _FolderLab(tmp_path)


def test_a_well_formed_marker_is_read_as_its_spec(tmp_path: Path) -> None:
    lab = _suite(tmp_path, 'id="a-check", pitfall="grad-overwrite", weight=2, todo=3')
    [spec] = declared.declared_checks(lab)  # type: ignore[arg-type]
    assert (spec.id, spec.pitfall, spec.weight, spec.visibility, spec.todos) == (
        "a-check", "grad-overwrite", 2.0, "public", (3,)), spec


@pytest.mark.parametrize("marker", [
    'id="a-check", pitfall="grad-overwrite"',  # no weight
    'id="a-check", pitfall="grad-overwrite", weight=-1',
    'id="Not Kebab", pitfall="grad-overwrite", weight=1',
    'id="a-check", pitfall="grad-overwrite", weight=1, points=3',  # an unknown key
])
def test_a_malformed_marker_is_refused_with_the_tests_name(tmp_path: Path, marker: str) -> None:
    lab = _suite(tmp_path, marker)
    with pytest.raises(CheckDefinitionError, match=r"test_x\.py::test_it"):
        declared.declared_checks(lab)  # type: ignore[arg-type]


def test_every_lab_declares_checks_that_pass_validation() -> None:
    for lab in LABS.values():
        assert declared.declared_checks(lab), f"{lab.name} declares no checks"
