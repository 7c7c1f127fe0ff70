"""deploy/: what can be tested without building an image: the Dockerfile's sources and paths,
its public stage's wheel, the Kubernetes Indexed Job's commands run locally as its pods would
run them, the GitHub Actions matrix, and that all of them use the image `make image` builds.
test_image_build.py builds the images for real."""

from __future__ import annotations

import copy
import csv
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import dockerfile_stages
import pod_security
import pytest
import recipe
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DEMO = ROOT / "demo" / "class" / "lab01_graph"
IMAGE_PYTHON = "/opt/minigrad/venv/bin/python"


BUILD_IMAGE = recipe.build_image


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
    assert any("merge out/shard-*" in step.get("run", "") for step in merge["steps"])


def test_the_jobs_and_the_workflow_grade_in_the_image_make_image_builds(
        jobs: list[dict[str, Any]]) -> None:
    """One recipe: the Kubernetes pods run the image `make image HIDDEN=1` names (pushed to a
    registry), the Actions jobs build it with `make image HIDDEN=1` and run their commands in
    it; the PrairieLearn export names the public one `make image` builds by default."""
    from grader.platforms import prairielearn

    private, public = BUILD_IMAGE.IMAGE_NAMES[1], BUILD_IMAGE.IMAGE_NAMES[0]
    for job in jobs:
        for container in job["spec"]["template"]["spec"]["containers"]:
            assert container["image"].endswith(f"/{private}"), container["image"]
    workflow = yaml.safe_load((DEPLOY / "github-actions" / "grade-class.yml").read_text())
    assert workflow["env"]["IMAGE"] == private
    for name, job in workflow["jobs"].items():
        runs = [step.get("run", "") for step in job["steps"]]
        assert 'make image HIDDEN=1 BUILDER=docker IMAGE="$IMAGE"' in runs, name
        graders = [run for run in runs if run.startswith("$DOCKER_RUN")]
        assert graders and all('"$IMAGE" ' in run for run in graders), name
    assert prairielearn.DEFAULT_IMAGE == public
    from grader.cli import build_parser
    parsed = build_parser().parse_args(["export", "prairielearn", "lab01_graph", "--out", "q"])
    assert parsed.image == public


def _public_context(target: Path) -> None:
    """The files the public stage copies, laid out as its COPY instructions lay them out."""
    public = dockerfile_stages.stages(dockerfile(), {"HIDDEN": "0"})
    for name in dockerfile_stages.reachable(public, ROOT, ignore_patterns()):
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)


def test_the_public_stage_builds_a_wheel_without_the_hidden_suites(tmp_path: Path) -> None:
    """What the public stage's `pip install .` does, on its files: without the hidden
    packages' folders setuptools stops ("package directory ... does not exist", the bug of
    issue 33); with build_support/package_folders.py it builds, and no hidden file is in it."""
    context = tmp_path / "context"
    _public_context(context)
    wheel = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
             str(tmp_path / "wheels"), "."]
    failed = subprocess.run(wheel, cwd=context, capture_output=True, text=True, timeout=300,
                            check=False)
    assert failed.returncode != 0 and "does not exist" in failed.stdout + failed.stderr
    subprocess.run([sys.executable, "build_support/package_folders.py",
                    "grader/grading/suites", "solutions"], cwd=context, check=True,
                   capture_output=True, timeout=60)
    built = subprocess.run(wheel, cwd=context, capture_output=True, text=True, timeout=300,
                           check=False)
    assert built.returncode == 0, built.stderr[-2000:]
    (found,) = (tmp_path / "wheels").glob("*.whl")
    with zipfile.ZipFile(found) as archive:
        names = archive.namelist()
    assert "grader/platforms/image.py" in names
    assert not [n for n in names if "/suites/lab" in n or "/course/solutions/lab" in n], names


def test_package_folders_makes_only_the_folders_it_is_given(tmp_path: Path) -> None:
    """A package the public stage forgot to copy is an error, never an empty folder."""
    context = tmp_path / "context"
    _public_context(context)
    shutil.rmtree(context / "grader" / "platforms")
    made = subprocess.run([sys.executable, "build_support/package_folders.py",
                           "grader/grading/suites", "solutions"], cwd=context,
                          capture_output=True, text=True, timeout=60, check=False)
    assert made.returncode != 0 and "grader/platforms" in made.stderr
    assert not (context / "grader" / "grading" / "suites").exists()


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
        # a folder of this run's TMPDIR (which uid 65534 can traverse), not a machine-wide one
        folder = Path(tempfile.mkdtemp(prefix="minigrad-k8s-unprivileged-"))
        os.chmod(folder, 0o755)
        try:
            python = MODES.python_for(mode, folder)
            probe = subprocess.run(
                [*MODES.prefix(mode), python, "-c",
                 "from grader.grading.sandbox.jail import available_isolation as a; i = a(); "
                 "print(i.level, i.how)"],
                env=MODES.environment(mode), capture_output=True, text=True, timeout=120,
                check=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
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


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_export_says_how_to_build_and_push_its_image(tmp_path: Path, lang: str) -> None:
    """`export prairielearn` names the image in info.json and says, in the instructor's
    language, how to build it (`make image`, whose dry run builds that name) and push it: to a
    registry when the name has none, else to the one it names."""
    from grader.results.i18n import Catalogue

    catalogue = Catalogue.load(lang)
    pushed = "ghcr.io/course/minigrad-labs-grader:0.1.0"
    for image, key in ((None, "deploy.image_local"), (pushed, "deploy.image_pushed")):
        out = tmp_path / f"q-{key}"
        completed = subprocess.run(
            [sys.executable, "-m", "grader", "export", "prairielearn", "lab01_graph", "--out",
             str(out), "--lang", lang, "--seed", "s", *(["--image", image] if image else [])],
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
        assert completed.returncode == 0, completed.stderr
        named = image or BUILD_IMAGE.IMAGE_NAMES[0]
        info = json.loads((out / "info.json").read_text(encoding="utf-8"))
        assert info["externalGradingOptions"]["image"] == named
        assert catalogue.text(key, image=named) in completed.stdout
    dry = subprocess.run(["make", "-n", "image", f"IMAGE={pushed}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    assert f"deploy/build_image.py --hidden 0 --base auto --tag {pushed}" in dry.stdout
