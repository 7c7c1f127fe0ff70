"""deploy/: what can be tested without building an image (no registry here): the Dockerfile's
sources and paths, the Kubernetes Indexed Job's commands run locally as its pods would run
them, and the GitHub Actions matrix."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DEMO = ROOT / "demo" / "class" / "lab01_graph"
IMAGE_PYTHON = "/opt/minigrad/venv/bin/python"


def env_of(container: dict[str, Any]) -> dict[str, str]:
    """A container's plain environment variables."""
    return {item["name"]: item["value"] for item in container.get("env", []) if "value" in item}


def test_dockerfile_copies_what_exists_and_serves_the_prairielearn_entrypoint() -> None:
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    for source in re.findall(r"^COPY (.+?) \S+$", text, re.MULTILINE):
        for name in source.split():
            assert (ROOT / name).exists(), f"COPY {name}: no such file in the build context"
    run_sh = (ROOT / "templates" / "platforms" / "prairielearn" / "run.sh.j2").read_text()
    assert 'MINIGRAD_HOME:-/opt/minigrad' in run_sh and "$HOME_DIR/venv/bin/python" in run_sh
    assert "WORKDIR /opt/minigrad" in text and f'"{IMAGE_PYTHON}", "-m", "grader"' in text
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    for name in ("grader/", "templates/", "labs/", "solutions/"):
        assert f"!{name}" in ignored, name


@pytest.fixture(scope="module")
def jobs() -> list[dict[str, Any]]:
    """The Kubernetes manifests."""
    text = (DEPLOY / "kubernetes" / "grade-class.yaml").read_text(encoding="utf-8")
    return [doc for doc in yaml.safe_load_all(text) if doc]


def test_the_grading_job_is_indexed_with_one_pod_per_shard(jobs: list[dict[str, Any]]) -> None:
    grade, merge = jobs
    assert (grade["kind"], merge["kind"]) == ("Job", "Job")
    spec = grade["spec"]
    container = spec["template"]["spec"]["containers"][0]
    shards = int(env_of(container)["SHARDS"])
    assert spec["completionMode"] == "Indexed"
    assert spec["completions"] == spec["parallelism"] == shards
    assert "$((JOB_COMPLETION_INDEX + 1))/$SHARDS" in container["args"][0]
    assert "/results/shard-*" in merge["spec"]["template"]["spec"]["containers"][0]["args"][0]


def local(command: str, class_dir: Path, results: Path) -> str:
    """A pod's command with the image's paths replaced by this machine's."""
    return (command.replace(IMAGE_PYTHON, sys.executable)
            .replace("/class/", f"{class_dir}/").replace("/results/", f"{results}/"))


def test_the_jobs_commands_grade_every_student_once_and_merge(jobs: list[dict[str, Any]],
                                                              tmp_path: Path) -> None:
    grade, merge = jobs
    container = grade["spec"]["template"]["spec"]["containers"][0]
    variables = {**env_of(container), "LMS": "folders", "GRADER_SEED": "k8s-test",
                 "GRADEBOOK": "", "POINTS": "10"}
    for option in ("--gradebook", "--points", "--canvas-column"):
        assert option in container["args"][0], option
    class_dir, results = tmp_path / "class", tmp_path / "results"
    class_dir.mkdir()
    with zipfile.ZipFile(class_dir / "export.zip", "w") as bundle:
        for path in sorted(DEMO.rglob("*")):
            if path.is_file():
                bundle.write(path, path.relative_to(DEMO).as_posix())
    for index in range(grade["spec"]["completions"]):
        completed = subprocess.run(
            ["/bin/sh", "-c", local(container["args"][0], class_dir, results)], cwd=ROOT,
            env={**os.environ, **variables, "JOB_COMPLETION_INDEX": str(index)},
            capture_output=True, text=True, timeout=600, check=False)
        assert completed.returncode == 0, completed.stderr[-2000:]
    merger = merge["spec"]["template"]["spec"]["containers"][0]
    completed = subprocess.run(["/bin/sh", "-c", local(merger["args"][0], class_dir, results)],
                               cwd=ROOT, env={**os.environ, **env_of(merger)},
                               capture_output=True, text=True, timeout=600, check=False)
    assert completed.returncode == 0, completed.stderr[-2000:]
    students = sorted(p.name for p in DEMO.iterdir() if p.is_dir())
    rows = list(csv.DictReader(io.StringIO((results / "class" / "class.csv").read_text())))
    assert sorted(row["submission"] for row in rows) == students
    per_shard = [len(list((results / f"shard-{i}").glob("*/scores.json")))
                 for i in range(grade["spec"]["completions"])]
    assert sum(per_shard) == len(students), per_shard
    records = [(results / f"shard-{i}" / "shard.json").read_text() for i in range(len(per_shard))]
    assert all('"points": 10.0' in record for record in records), "POINTS reached every shard"


def test_the_actions_matrix_grades_every_shard_and_merges_their_artifacts() -> None:
    workflow = yaml.safe_load((DEPLOY / "github-actions" / "grade-class.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as true
    assert "workflow_dispatch" in triggers
    shards = int(workflow["env"]["SHARDS"])
    grade, merge = workflow["jobs"]["grade"], workflow["jobs"]["merge"]
    assert grade["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    commands = " ".join(step.get("run", "") for step in grade["steps"])
    assert '--shard "${{ matrix.shard }}/$SHARDS"' in commands
    for option in ("--gradebook", "--points", "--canvas-column"):
        assert option in commands, option
    uploads = [s for s in grade["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads[0]["with"]["name"] == "shard-${{ matrix.shard }}"
    assert merge["needs"] == "grade"
    download = next(s for s in merge["steps"] if "download-artifact" in s.get("uses", ""))
    assert download["with"]["pattern"] == "shard-*"
    assert any("grader merge out/shard-*" in step.get("run", "") for step in merge["steps"])
