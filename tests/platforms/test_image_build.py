"""deploy/Dockerfile built for real, with the recipe `make image` uses (deploy/build_image.py:
podman, a debootstrap Debian bookworm as the base, the machine's pip settings mounted), and a
PrairieLearn job run in the public image's file system the way PrairieLearn's grader host runs
it (grader_host: a podman container's mounted root entered with bubblewrap, the job folder at
/grade, the question's entrypoint; `podman run` cannot start containers on these machines).

Both stages are built; every layer of the saved public image is read and holds no hidden
suite's or solution's file or text, while the same scan finds each of them in the private
image's layers. Needs root, podman, debootstrap and bubblewrap (.ci/run installs them): without
them the tests skip with a message, and fail when CI is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dockerfile_stages
import grader_host
import image_layers
import jsonschema
import prairielearn_oracle as oracle
import pytest
from recipe import build_image

from grader.common.labs import get_lab
from grader.platforms import prairielearn

ROOT = Path(__file__).resolve().parents[2]
LAB = get_lab("lab01_graph")
HIDDEN_FOLDERS = ("grader/grading/suites", "solutions")
RESULTS_SCHEMA = ROOT / "grader" / "platforms" / "schemas" / "prairielearn-results.schema.json"
INSTALL_HINT = "apt-get install podman debootstrap bubblewrap, as root (.ci/run does)"


def unavailable_reason() -> str | None:
    """Why the images cannot be built and run here (None when they can)."""
    missing = [tool for tool in ("podman", "debootstrap") if shutil.which(tool) is None]
    if missing:
        return f"not installed: {', '.join(missing)}; {INSTALL_HINT}"
    reason = grader_host.unavailable_reason()
    return f"{reason}; {INSTALL_HINT}" if reason else None


@pytest.fixture(scope="module")
def images() -> Iterator[dict[int, str]]:
    """Both stages built (0: public, 1: with the hidden suites) under names of this run's own,
    removed afterwards (two runs on one machine never share a tag); the test skips (or, with
    CI set, fails) where they cannot be built."""
    reason = unavailable_reason()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"image tests cannot run in CI: {reason}", pytrace=False)
        pytest.skip(f"image tests skipped: {reason}")
    run_id = f"test-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    built = {hidden: f"{name}-{run_id}" for hidden, name in build_image.IMAGE_NAMES.items()}
    try:
        for hidden, name in built.items():  # the command docs/deploy.md gives, pinned
            started = time.monotonic()
            made = subprocess.run(["make", "-s", "image", f"HIDDEN={hidden}", f"IMAGE={name}",
                                   "BASE=debootstrap", "BUILDER=podman"], cwd=ROOT,
                                  capture_output=True, text=True, timeout=1800, check=False)
            assert made.returncode == 0, (made.stdout + made.stderr)[-4000:]
            assert f"built {name}" in made.stdout, made.stdout[-2000:]
            print(f"make image HIDDEN={hidden}: {time.monotonic() - started:.1f} s")
        yield built
    finally:
        subprocess.run(["podman", "rmi", *built.values()], capture_output=True, check=False)


def test_both_stages_build_and_carry_no_build_setting(images: dict[int, str]) -> None:
    """The images' configuration: the entrypoint PrairieLearn's run.sh and the Kubernetes pods
    rely on, and none of the machine's pip settings (they were mounted, never set with --env)."""
    machine = build_image.pip_settings()
    for name in images.values():
        config = grader_host.image_config(name)
        assert config["Entrypoint"] == ["/opt/minigrad/venv/bin/python", "-m", "grader"]
        env = dict(item.split("=", 1) for item in config["Env"])
        assert env["MINIGRAD_HOME"] == "/opt/minigrad"
        assert {k for k in env if k.startswith("PIP_")} == {"PIP_NO_CACHE_DIR",
                                                           "PIP_DISABLE_PIP_VERSION_CHECK"}
        for values in machine.sections.values():
            for value in values.values():
                if len(value) > 3:
                    assert value not in json.dumps(config), value


def hidden_files() -> dict[str, Path]:
    """Every hidden suite and solution file of the repository."""
    return {path.relative_to(ROOT).as_posix(): path
            for folder in HIDDEN_FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
            if "__pycache__" not in path.parts}


def public_texts() -> list[str]:
    """Every file the public stage's build context can bring (what a hidden string must not
    be part of to count as the hidden file's own)."""
    text = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    ignore = (ROOT / "deploy" / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    public = dockerfile_stages.stages(text, {"HIDDEN": "0"})
    return [(ROOT / name).read_text(encoding="utf-8", errors="replace")
            for name in sorted(dockerfile_stages.reachable(public, ROOT, ignore))]


def test_no_hidden_file_or_text_is_in_any_layer_of_the_public_image(
        images: dict[int, str], tmp_path: Path) -> None:
    """Every layer tarball of the saved public image, names and bytes, holds no hidden suite's
    or solution's file (source or bytecode) nor any of their distinctive strings; the same scan
    of the private image finds every probe (so it can fail)."""
    files = hidden_files()
    assert any(name.startswith("grader/grading/suites/") for name in files)
    probes = image_layers.hidden_probes(files, public_texts())
    for name, path in files.items():
        public_copy = ROOT / "labs" / Path(name).relative_to(Path(name).parts[0]).as_posix() \
            if name.startswith("solutions/") else None
        if public_copy and public_copy.is_file() and image_layers.source_lines(path) <= \
                image_layers.source_lines(public_copy):
            continue  # the lab hands this file out whole: only its path is hidden
        assert any(p.source == name for p in probes if p.kind == "text"), name
    started = time.monotonic()
    layers, found = image_layers.scan(image_layers.save(images[0], tmp_path / "public.tar"),
                                      probes)
    print(f"public image: {len(layers)} layers read, {len(probes)} probes, "
          f"{len(found)} found, {time.monotonic() - started:.1f} s")
    assert len(layers) == len(image_layers.layer_digests(images[0])) >= 2
    assert not found, [(f.member, f.probe.text[:60]) for f in found[:10]]
    _, in_private = image_layers.scan(image_layers.save(images[1], tmp_path / "private.tar"),
                                      probes)
    missed = {(p.source, p.text) for p in probes} - {(f.probe.source, f.probe.text)
                                                     for f in in_private}
    assert not missed, sorted(missed)[:5]


@pytest.fixture(scope="module")
def question(images: dict[int, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The exported question, naming the public image (`--image`; test_deploy.py checks that
    the default is the name `make image` gives it)."""
    config = prairielearn.Config(LAB.name, "en", "image-test-secret")
    return prairielearn.export_question(LAB, tmp_path_factory.mktemp("pl") / "q", config,
                                        image=images[0])


def pl_job(images: dict[int, str], question: Path, job: Path, value_py: bytes) -> Any:
    """One job as PrairieLearn's grader host runs it, in a fresh container of the image the
    question's info.json names; PrairieLearn's reading of its results.json."""
    options = json.loads((question / "info.json").read_text())["externalGradingOptions"]
    assert options["image"] == images[0]
    data = {"params": {}, "correct_answers": {}, "submitted_answers": {}, "format_errors": {},
            "partial_scores": {}, "score": 0, "feedback": {}, "variant_seed": 4242,
            "options": {}, "raw_submitted_answers": {}, "gradable": True}
    grader_host.lay_out_job(job, question, {"value.py": value_py}, data)
    started = time.monotonic()
    run = grader_host.run_job(options["image"], job, options["entrypoint"],
                              options.get("environment", {}), options["timeout"])
    print(f"PrairieLearn job in the image: {time.monotonic() - started:.1f} s")
    assert run.succeeded and run.results is not None, run.log[-3000:]
    found = json.loads(run.results)
    jsonschema.Draft202012Validator(json.loads(RESULTS_SCHEMA.read_text())).validate(found)
    return oracle.grade(run.results)


def test_a_correct_submission_scores_one_in_the_public_image(
        images: dict[int, str], question: Path, tmp_path: Path) -> None:
    value_py = (ROOT / "solutions" / LAB.name / "value.py").read_bytes()
    grading = pl_job(images, question, tmp_path / "job", value_py)
    assert grading.gradable is True and grading.score == 1.0 and grading.message == ""
    doc = json.loads((tmp_path / "job" / "results" / "scores.json").read_text())
    assert doc["isolation"]["level"] != "none", doc["isolation"]
    assert doc["submission"]["source"] == "/grade/student"


def test_a_syntax_error_is_not_gradable_with_its_message(
        images: dict[int, str], question: Path, tmp_path: Path) -> None:
    """PrairieLearn's rule (externalGrader.ts `processGradingResult`): `gradable: false` is
    kept, the attempt is not charged; the student reads the error and its line."""
    source = (ROOT / "solutions" / LAB.name / "value.py").read_text()
    broken = source + "\ndef broken(:\n"
    line = broken.count("\n")
    grading = pl_job(images, question, tmp_path / "job", broken.encode())
    assert grading.gradable is False
    assert oracle.results_element(grading.feedback)["gradable"] is False
    shown = "\n".join(oracle.student_strings(grading.feedback["results"]))
    assert "SyntaxError" in shown and f"line {line}" in shown, shown[:2000]


def test_the_recipe_merges_pip_settings_as_pip_does(tmp_path: Path) -> None:
    """`pip config list` in load order: a PIP_* variable (`:env:`) wins over every file and
    section; a certificate variable fills in `cert`; a local index mounts its whole folder."""
    (tmp_path / "index" / "simple").mkdir(parents=True)
    (tmp_path / "ca.pem").write_text("x")
    listed = (f"global.index-url='https://files.invalid/simple'\n"
              f"install.index-url='https://install.invalid/simple'\n"
              f"install.no-compile='true'\n"
              f"global.extra-index-url='file://{tmp_path}/index/simple'\n"
              f":env:.index-url='https://env.invalid/simple'\n")
    settings = build_image.parse_pip_config(listed, {"SSL_CERT_FILE": str(tmp_path / "ca.pem")})
    assert settings.sections == {
        "global": {"index-url": "https://env.invalid/simple",
                   "extra-index-url": f"file://{tmp_path}/index/simple",
                   "cert": str(tmp_path / "ca.pem")},
        "install": {"no-compile": "true"}}
    assert settings.paths == [tmp_path / "index", tmp_path / "ca.pem"]
    assert "[install]\nno-compile = true" in settings.config_text()


def machine_hosts() -> set[str]:
    """The hosts this machine's pip settings, proxies and Debian mirror name."""
    words = [word for values in build_image.pip_settings().sections.values()
             for value in values.values() for word in value.split()]
    words += [value for key, value in os.environ.items()
              if key.lower().endswith("_proxy") or key.startswith("PIP_")]
    words.append(build_image.apt_mirror(build_image.BASE.suite) or "")
    return {word.split("/")[2].rpartition("@")[2].split(":")[0] for word in words
            if "://" in word and not word.startswith("file://") and word.split("/")[2]}


def test_the_recipe_passes_the_machines_pip_settings_and_names_no_host() -> None:
    """The pip settings reach the build as one mounted pip.conf and the paths they name, never
    as --env; no committed file of the recipe names a host of this machine's settings."""
    settings = build_image.pip_settings()
    command = build_image.build_command("podman", 0, "t", None, False, Path("/x/pip.conf"),
                                        settings)
    assert "/x/pip.conf:/etc/pip.conf:ro" in command and "--isolation" in command
    assert "--env" not in command
    for path in settings.paths:
        assert f"{path}:{path}:ro" in command
    hosts = machine_hosts()
    if shutil.which("apt-get"):
        assert hosts, "a Debian machine has a mirror host to look for"
    for name in ("deploy/build_image.py", "deploy/Dockerfile", "deploy/Dockerfile.dockerignore",
                 "deploy/README.md", "docs/deploy.md", "Makefile", ".ci/run",
                 "tests/platforms/test_image_build.py", "tests/platforms/grader_host.py"):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert not [host for host in hosts if host in text], name
