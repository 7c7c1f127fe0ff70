"""What the grader gives a submission's sandbox (the lab's files and support files) is imported
wherever its temporary folder sits, and a grading that cannot read it is the grader's error
(issue 39: a correct lab04 class scored 0/50, "No module named 'value'", status "graded", in
the container mode under a 0700 folder).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.common.labs import COURSE_ROOT, get_lab
from grader.grading.sandbox import Limits, Sandbox
from grader.grading.sandbox.jail import default_jail
from grader.grading.sandbox.sandbox import GraderFault

sys.path.insert(0, str(Path(__file__).parent))
import modes  # noqa: E402 - a helper beside this file

GRADE_BATCH = Path(__file__).with_name("grade_batch.py")
LAB04 = get_lab("lab04_xor")


def test_a_given_file_the_sandbox_cannot_read_is_the_grader_s_fault(tmp_path: Path) -> None:
    jail = default_jail()
    if jail is None or not jail.own_uid or os.geteuid() != 0:
        pytest.skip("needs a jail of its own uid (a file root keeps to itself)")
    (tmp_path / "value.py").write_text("from helper import ONE\nclass Value:\n    pass\n")
    (tmp_path / "helper.py").write_text("ONE = 1\n")
    tmp_path.chmod(0o755)
    (tmp_path / "value.py").chmod(0o644)
    (tmp_path / "helper.py").chmod(0o600)  # root's: the jail's uid cannot read it
    with Sandbox(tmp_path, "value", "Value", ("value.py",), Limits(), jail=jail) as sandbox:
        with pytest.raises(GraderFault):
            sandbox.load_problem()


@pytest.mark.parametrize("mode", ["root", "container", "unprivileged"])
def test_lab04_class_scores_full_marks_with_its_scratch_under_a_closed_folder(mode: str) -> None:
    reason = modes.why_unavailable(mode)
    if reason:
        pytest.skip(f"{mode}: {reason}")
    base = Path(modes.grader_owned(Path(f"/var/tmp/minigrad-closed-{mode}-{os.getpid()}"), mode))
    try:
        os.chmod(base, 0o700)  # the grader's own, closed to every other uid
        scratch, out = (modes.grader_owned(base / name, mode) for name in ("tmp", "out"))
        os.chmod(scratch, 0o700)
        result = modes.grader_owned(base / "answer", mode) / "result.json"
        python = modes.python_for(mode, base / "python")
        completed = subprocess.run(
            [*modes.prefix(mode), python, str(GRADE_BATCH), str(result), str(out),
             LAB04.name, "closed", "1", str(LAB04.solution_dir)],
            env=modes.environment(mode, TMPDIR=str(scratch), PYTHONPATH=str(modes.SOURCE_ROOT)),
            cwd=COURSE_ROOT,
            capture_output=True, text=True, timeout=300, check=False)
        assert completed.returncode == 0, completed.stderr[-2000:]
        answer = json.loads(result.read_text(encoding="utf-8"))
        assert answer["error"] is None, answer["error"]
        doc = answer["docs"][0]
        assert doc["status"] == "graded" and doc["problem"] is None, doc.get("problem")
        assert doc["score"] == doc["max_score"] > 0, doc["score"]
    finally:
        shutil.rmtree(base, ignore_errors=True)
