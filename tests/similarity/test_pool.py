"""grader.similarity.command.fingerprint_class: a pool of processes fingerprints a class exactly
as one process does (the hash is the same in every process, and the order is kept)."""

from __future__ import annotations

from pathlib import Path

from corpus import written_engines

from grader.common.labs import LABS
from grader.intake.collect import Submission
from grader.similarity.boilerplate import boilerplate_hashes, course_code
from grader.similarity.command import fingerprint_class

LAB = "lab02_ops"


def test_two_workers_give_what_one_gives(tmp_path: Path) -> None:
    engines = written_engines(LAB)
    submissions = []
    for index in range(60):  # the pool starts at 50 submissions
        engine = engines[index % len(engines)]
        folder = tmp_path / f"s{index:02d}"
        folder.mkdir()
        (folder / "value.py").write_text(engine.source, encoding="utf-8")
        submissions.append(Submission(folder.name, folder))
    (tmp_path / "broken.zip").write_bytes(b"not a zip")
    submissions.append(Submission("broken", tmp_path / "broken.zip"))
    base = boilerplate_hashes(course_code())
    alone = fingerprint_class(submissions, LABS[LAB], base, workers=1)
    pooled = fingerprint_class(submissions, LABS[LAB], base, workers=2)
    assert pooled == alone
    assert alone[-1][1] is None and alone[-1][0].id == "broken"
    assert sum(1 for _read, printed in alone if printed and printed.fingerprints) > 40
