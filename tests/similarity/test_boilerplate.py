"""grader.similarity.boilerplate: what every student was given has no fingerprint of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.common.labs import LABS
from grader.similarity.boilerplate import boilerplate_hashes, course_code, extra_code, readme_code
from grader.similarity.fingerprints import fingerprint
from grader.similarity.public_engines import PUBLIC_ENGINES


@pytest.fixture(scope="module")
def base() -> frozenset[int]:
    return boilerplate_hashes(course_code())


@pytest.mark.parametrize("lab_name", list(LABS))
def test_the_stub_and_the_solution_have_no_fingerprint_of_their_own(lab_name: str,
                                                                   base: frozenset[int]) -> None:
    lab = LABS[lab_name]
    for folder in (lab.student_dir, lab.solution_dir):
        files = {name: (folder / name).read_text(encoding="utf-8") for name in lab.files}
        printed = fingerprint(folder.name, files, base)
        assert printed.fingerprints == (), f"{folder}: {printed.fingerprints[:3]}"
        given = printed.boilerplate_lines[lab.main_file]
        assert len(given) > 10, "the given lines are marked for greying"


@pytest.mark.parametrize("name", list(PUBLIC_ENGINES))
def test_a_public_engine_handed_in_has_no_fingerprint_of_its_own(name: str,
                                                                base: frozenset[int]) -> None:
    assert fingerprint(name, {"value.py": PUBLIC_ENGINES[name]}, base).fingerprints == ()


def test_the_readmes_python_blocks_are_boilerplate_and_other_blocks_are_not() -> None:
    text = "Intro\n\n```python\nx = 1\n```\n\n```sh\nmake check\n```\n\n```py\ny = 2\n```\n"
    assert readme_code(text) == ["x = 1\n", "y = 2\n"]
    assert any("README" in name for name in course_code()), "the labs' README blocks are read"


def test_an_instructors_base_file_makes_its_code_boilerplate(tmp_path: Path) -> None:
    chapter = tmp_path / "chapter.md"
    chapter.write_text("# Chapter\n\n```python\ndef topo(v, seen, order):\n    if v not in seen:\n"
                       "        seen.add(v)\n        for p in v._prev:\n            topo(p, seen, order)\n"
                       "        order.append(v)\n```\n", encoding="utf-8")
    student = ("def walk(node, visited, out):\n    if node not in visited:\n        visited.add(node)\n"
               "        for parent in node._prev:\n            walk(parent, visited, out)\n"
               "        out.append(node)\n")
    without = fingerprint("s", {"value.py": student}, boilerplate_hashes({}))
    with_chapter = fingerprint("s", {"value.py": student}, boilerplate_hashes(extra_code([chapter])))
    assert without.fingerprints and with_chapter.fingerprints == ()
