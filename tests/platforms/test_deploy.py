"""deploy/: what can be tested without building an image (no registry here): the Dockerfile's
sources and paths, the Kubernetes Indexed Job's commands run locally as its pods would run
them, and the GitHub Actions matrix."""

from __future__ import annotations

import copy
import csv
import importlib.util
import io
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import dockerfile_stages
import pod_security
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DEMO = ROOT / "demo" / "class" / "lab01_graph"
IMAGE_PYTHON = "/opt/minigrad/venv/bin/python"


def env_of(container: dict[str, Any]) -> dict[str, str]:
    """A container's plain environment variables."""
    return {item["name"]: item["value"] for item in container.get("env", []) if "value" in item}


HIDDEN_PREFIXES = ("grader/grading/suites/", "solutions/")
# The Dockerfile this project had before issue 20: the public image removed the hidden suites
# with `RUN rm` after `COPY grader` had put them in a layer. The stage reading must catch it.
LEAKING_DOCKERFILE = """\
FROM python:3.11-slim-bookworm
ARG HIDDEN=1
WORKDIR /opt/minigrad
COPY grader ./grader
COPY solutions ./solutions
RUN if [ "$HIDDEN" = "0" ]; then rm -rf grader/grading/suites/* solutions; fi
"""


def dockerfile() -> str:
    """deploy/Dockerfile."""
    return (DEPLOY / "Dockerfile").read_text(encoding="utf-8")


def ignore_patterns() -> list[str]:
    """deploy/Dockerfile.dockerignore, as BuildKit reads it beside the Dockerfile."""
    return (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()


def hidden(files: set[str]) -> list[str]:
    """The hidden suites' and the solutions' files among `files`."""
    return sorted(f for f in files if f.startswith(HIDDEN_PREFIXES) and "__pycache__" not in f)


def test_no_hidden_path_can_reach_the_public_images_layers() -> None:
    """The public image (HIDDEN=0) is the last stage; no stage it is built from copies, mounts
    or inherits a file of grader/grading/suites/ or solutions/ (dockerfile_stages follows BuildKit)."""
    public = dockerfile_stages.stages(dockerfile(), {"HIDDEN": "0"})
    assert public[-1].base == "image-0"
    leaked = hidden(dockerfile_stages.reachable(public, ROOT, ignore_patterns()))
    assert not leaked, f"the public image's layers can hold {leaked[:5]}"


def test_the_private_image_holds_the_hidden_suites_and_the_reading_catches_a_leak() -> None:
    """The same reading finds the hidden files where they are meant to be (HIDDEN=1), and in the
    Dockerfile that removed them with `RUN rm` (a whiteout: the layer below still holds them)."""
    private = dockerfile_stages.stages(dockerfile(), {"HIDDEN": "1"})
    held = hidden(dockerfile_stages.reachable(private, ROOT, ignore_patterns()))
    assert any(f.startswith("grader/grading/suites/lab01_graph/") for f in held)
    assert any(f.startswith("solutions/lab01_graph/") for f in held)
    old = dockerfile_stages.stages(LEAKING_DOCKERFILE, {"HIDDEN": "0"})
    assert hidden(dockerfile_stages.reachable(old, ROOT, ignore_patterns()))


def test_the_public_image_has_every_package_folder_but_the_suites() -> None:
    """The public stage copies the grader folder by folder: a new subpackage must be added
    there too, or the public image would lack it."""
    public = dockerfile_stages.stages(dockerfile(), {"HIDDEN": "0"})
    files = dockerfile_stages.reachable(public, ROOT, ignore_patterns())
    package = {p.relative_to(ROOT).as_posix()
               for folder in (ROOT / "grader", ROOT / "grader" / "grading")
               for p in folder.iterdir() if p.name not in ("suites", "__pycache__")}
    for name in package:
        assert any(f == name or f.startswith(name + "/") for f in files), name
    for name in ("templates/feedback.terminal.j2", "labs/lab01_graph/value.py", "pyproject.toml"):
        assert name in files, name


def test_dockerfile_copies_what_exists_and_serves_the_prairielearn_entrypoint() -> None:
    text = dockerfile()
    for stage in dockerfile_stages.stages(text):
        for source in stage.context_sources:
            assert dockerfile_stages.context_files(ROOT, source, ignore_patterns()), \
                f"COPY {source}: nothing in the build context"
    run_sh = (ROOT / "templates" / "platforms" / "prairielearn" / "run.sh.j2").read_text()
    assert 'MINIGRAD_HOME:-/opt/minigrad' in run_sh and "$HOME_DIR/venv/bin/python" in run_sh
    assert "WORKDIR /opt/minigrad" in text and f'"{IMAGE_PYTHON}", "-m", "grader"' in text
    ignored = ignore_patterns()
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


# --- the pods' security context, under each Pod Security Standards level ---------------------


def _modes() -> Any:
    """tests/sandbox/modes.py: the machines the grader meets, reproduced here."""
    spec = importlib.util.spec_from_file_location("modes", ROOT / "tests" / "sandbox" / "modes.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODES = _modes()


def stated_isolation(level: str) -> tuple[str, str]:
    """What the manifest's header says a namespace enforcing `level` leaves the grader."""
    header = (DEPLOY / "kubernetes" / "grade-class.yaml").read_text(encoding="utf-8")
    others = "|".join(lv for lv in pod_security.LEVELS if lv != level)
    found = re.search(rf"#\s+{level}:(.*?)(?=#\s+(?:{others}):|\n[^#])", header, re.S)
    assert found, f"the manifest does not say what {level} gives"
    claim = re.search(r"-> level (\w+) \(how (\w+)\)", found.group(1))
    assert claim, found.group(1)
    return claim.group(1), claim.group(2)


def least_pod_at(level: str, pod: dict[str, Any]) -> dict[str, Any]:
    """The grading pod as the manifest's header says to change it for a namespace at `level`."""
    changed = copy.deepcopy(pod)
    context = changed["containers"][0]["securityContext"]
    if level in ("baseline", "restricted"):
        context["seccompProfile"] = {"type": "RuntimeDefault"}
        context.pop("appArmorProfile")
    if level == "baseline":  # root with the default capabilities: a uid of its own per submission
        for key in ("runAsUser", "runAsGroup", "runAsNonRoot", "capabilities",
                    "allowPrivilegeEscalation"):
            context.pop(key)
        context["runAsUser"] = 0
    return changed


def test_the_grading_pod_is_not_privileged_and_reaches_the_jail(jobs: list[dict[str, Any]]) -> None:
    """No container asks for `privileged`, none adds a capability, none runs as root; the pod's
    grader meets the "unprivileged" machine of tests/sandbox/modes.py, the jail through user
    namespaces (checked on this machine when it can reproduce that mode)."""
    for job in jobs:
        for container in job["spec"]["template"]["spec"]["containers"]:
            context = container.get("securityContext") or {}
            assert not context.get("privileged"), container["name"]
            assert not (context.get("capabilities") or {}).get("add"), container["name"]
    pod = jobs[0]["spec"]["template"]["spec"]
    mode = pod_security.grader_mode(pod, pod["containers"][0])
    assert mode == "unprivileged"
    assert MODES.EXPECTED_ISOLATION[mode] == ("jail", "userns") == stated_isolation("privileged")
    assert pod_security.strictest_level(pod) == "privileged"
    assert pod_security.strictest_level(jobs[1]["spec"]["template"]["spec"]) == "restricted"
    if MODES.why_unavailable(mode) is None:
        python = MODES.python_for(mode, Path("/tmp/minigrad-k8s-unprivileged"))
        probe = subprocess.run(
            [*MODES.prefix(mode), python, "-c",
             "from grader.grading.sandbox.jail import available_isolation as a; i = a(); "
             "print(i.level, i.how)"],
            env=MODES.environment(mode), capture_output=True, text=True, timeout=120, check=True)
        assert probe.stdout.split() == ["jail", "userns"], probe.stderr[-1000:]


@pytest.mark.parametrize("level", ["baseline", "restricted"])
def test_the_manifest_states_what_each_pod_security_level_leaves(
        jobs: list[dict[str, Any]], level: str) -> None:
    """The pod changed as the header says for `level` is admitted by that level's rules
    (pod_security, from the Pod Security Standards), and the grader's isolation in it is
    what tests/sandbox/modes.py measures for that machine, as the header states."""
    pod = least_pod_at(level, jobs[0]["spec"]["template"]["spec"])
    assert pod_security.violations(pod, level) == []
    assert pod_security.violations(jobs[0]["spec"]["template"]["spec"], level), \
        "the manifest's own pod needs the privileged level"
    mode = pod_security.grader_mode(pod, pod["containers"][0])
    assert MODES.EXPECTED_ISOLATION[mode] == stated_isolation(level)


def test_the_pod_security_rules_refuse_what_they_must() -> None:
    """The old manifest's `privileged: true` is refused at baseline; root is refused at
    restricted: the level rules can fail."""
    pod = {"containers": [{"name": "grade", "securityContext": {"runAsUser": 0,
                                                                 "privileged": True}}]}
    assert "grade: privileged" in pod_security.violations(pod, "baseline")
    del pod["containers"][0]["securityContext"]["privileged"]
    assert pod_security.violations(pod, "baseline") == []
    assert "grade: runAsUser 0" in pod_security.violations(pod, "restricted")
