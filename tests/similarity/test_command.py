"""`python -m grader similarity` and `grade --similarity`, run as an instructor runs them: a class
in every form grading reads (folders, a zip, a bare file, notebooks), the report on disk."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from corpus import independent_engines
from disguises import all_at_once, as_notebook

ROOT = Path(__file__).resolve().parents[2]
LAB = "lab01_graph"
COPIED = "independent/c08_kahn"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GRADER_LANG", "LANG", "LC_ALL")}
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=ROOT,
                          env={**env, "GRADER_LANG": "en", "NO_COLOR": "1"},
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def a_class(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The lab01 independent engines in every form, and a disguised copy of one as a notebook."""
    folder = tmp_path_factory.mktemp("class")
    paths = []
    for index, engine in enumerate(independent_engines(LAB)):
        name = engine.id.replace("/", "-")
        if index % 4 == 1:  # a zip of the folder
            target = folder / f"{name}.zip"
            with zipfile.ZipFile(target, "w") as archive:
                archive.writestr(f"{name}/value.py", engine.source)
        elif index % 4 == 2:  # a bare file named after the student
            target = folder / f"{name}.py"
            target.write_text(engine.source, encoding="utf-8")
        elif index % 4 == 3:  # the lab's notebook
            target = folder / f"{name}.ipynb"
            target.write_text(as_notebook(engine.source, LAB), encoding="utf-8")
        else:
            target = folder / name
            shutil.copytree(engine.path, target)
        paths.append(target)
    source = next(e for e in independent_engines(LAB) if e.id == COPIED).source
    copy = folder / "zz-copier.ipynb"
    copy.write_text(as_notebook(all_at_once(source), LAB), encoding="utf-8")
    return [*paths, copy]


def report(out: Path) -> dict[str, Any]:
    return json.loads((out / "similarity.json").read_text(encoding="utf-8"))


def test_the_disguised_copy_is_the_first_pair_and_shown_side_by_side(a_class: list[Path],
                                                                     tmp_path: Path) -> None:
    done = run("similarity", LAB, *a_class, "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    found = report(tmp_path)
    assert found["students"] == len(a_class) and found["unreadable"] == []
    first = found["pairs"][0]
    assert {first["first"], first["second"]} == {"independent-c08_kahn", "zz-copier"}
    assert first["above_cut"] and first["regions"], first
    kinds = {line["kind"] for region in first["regions"] for side in ("first", "second")
             for line in region[side]["lines"]}
    assert {"shared", "given"} <= kinds
    assert found["wrong_values"]["read"] is False
    html = (tmp_path / "similarity.html").read_text(encoding="utf-8")
    assert "Evidence to look at, not a verdict." in html and 'class="line shared"' in html
    assert str(tmp_path / "similarity.html") in done.stdout


def test_pseudonyms_replace_every_student_id_and_a_private_file_maps_them(
        a_class: list[Path], tmp_path: Path) -> None:
    done = run("similarity", LAB, *a_class, "--out", tmp_path, "--hash-ids", "--lang", "es")
    assert done.returncode == 0, done.stderr
    ids = json.loads((tmp_path / "similarity-ids.json").read_text(encoding="utf-8"))
    assert len(ids) == len(a_class) and "zz-copier" in ids.values()
    assert oct((tmp_path / "similarity-ids.json").stat().st_mode & 0o777) == "0o600"
    for name in ("similarity.json", "similarity.html"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        leaked = [student for student in ids.values() if student in text]
        assert leaked == [], f"{name} names {leaked}"
    assert report(tmp_path)["pairs"][0]["first"] in ids
    html = (tmp_path / "similarity.html").read_text(encoding="utf-8")
    assert '<html lang="es">' in html and "Indicios que revisar, no un veredicto." in html


@pytest.mark.parametrize(("args", "message"), [
    (("similarity", "lab99_none", "x", "--out", "{out}"), "lab99_none"),
    (("similarity", LAB, "no/such/folder", "--out", "{out}"), "no/such/folder"),
    (("similarity", LAB, "demo", "--out", "{out}", "--scores", "no/such/scores"), "no/such/scores"),
    (("similarity", LAB, "demo", "--out", "{out}", "--base", "no/such/base.py"), "no/such/base.py"),
    (("similarity", LAB, "demo", "--out", "{out}", "--cut", "-1"), "--cut"),
])
def test_a_bad_command_line_is_a_usage_error_of_one_line(args: tuple[str, ...], message: str,
                                                        tmp_path: Path) -> None:
    done = run(*(arg.format(out=tmp_path / "out") for arg in args))
    assert done.returncode == 2, done
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "out").exists()


def test_grade_with_similarity_pairs_two_students_with_the_same_rare_wrong_values(
        tmp_path: Path) -> None:
    fixtures = ROOT / "tests" / "fixtures" / LAB
    folder = tmp_path / "class"
    for name in ("correct-micrograd", "missing-seed", "no-visited-set", "grad-overwrite-in-add",
                 "hash-by-data"):
        shutil.copytree(fixtures / name, folder / name)
    shutil.copytree(fixtures / "grad-overwrite-in-mul", folder / "ana")
    shutil.copytree(fixtures / "grad-overwrite-in-mul", folder / "bea")
    out = tmp_path / "out"
    done = run("grade", LAB, *sorted(folder.iterdir()), "--out", out, "--similarity",
               "--workers", "1")
    assert done.returncode == 0, done.stderr
    found = report(out)
    assert found["wrong_values"] == {"read": True, "graded": 7, "rare_limit": 2, "pairs": 1}
    pair = next(p for p in found["pairs"] if {p["first"], p["second"]} == {"ana", "bea"})
    assert pair["wrong_values"] and all(v["holders"] == 2 for v in pair["wrong_values"])
    assert pair["score"] == 1.0 and pair["above_cut"]
