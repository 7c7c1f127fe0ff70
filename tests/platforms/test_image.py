"""The grading image's build step (grader/platforms/image.py): what it writes once is what every
fresh container reads, in a copy of the image's files as PrairieLearn's run.sh makes one, with
no bytecode written (deploy/Dockerfile sets PYTHONDONTWRITEBYTECODE)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGE_FOLDERS = ("grader", "templates", "labs", "solutions")
# In a container made from the image: every catalogue and template read from what the build
# step kept (no TOML parsed, no template compiled), and a feedback page rendered from them.
PROBE = """
import json, sys
import jinja2
def compiled(*args, **kwargs):
    raise AssertionError("a template was compiled in the container")
jinja2.Environment.compile = compiled
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.render import environment, render_feedback
for lang in LANGUAGES:
    Catalogue.load(lang)
for name in environment().list_templates(extensions=["j2"]):
    environment().get_template(name)
doc = json.load(open(sys.argv[1], encoding="utf-8"))
page = render_feedback(doc, "terminal")
print(json.dumps({"tomllib": "tomllib" in sys.modules, "page": page}))
"""


def _copy_image(target: Path) -> None:
    """The image's files, times kept (`cp -Rp`, as run.sh copies them), caches left out."""
    for name in IMAGE_FOLDERS:
        shutil.copytree(ROOT / name, target / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def test_a_container_reads_the_catalogues_and_templates_the_image_build_kept(
        tmp_path: Path) -> None:
    image = tmp_path / "image"
    _copy_image(image)
    environ = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # the image's build step writes anyway
    built = subprocess.run([sys.executable, "-m", "grader.platforms.image"], cwd=image,
                           env=environ, capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stderr[-2000:]
    kept = {path.name for path in image.rglob("__pycache__/*")}
    catalogues = sorted((image / "grader" / "results" / "catalogue").rglob("*.toml"))
    assert catalogues and all(f"{path.name}.marshal" in kept for path in catalogues), kept
    assert any(name.endswith(".jinja2") for name in kept)
    assert f"render.{sys.implementation.cache_tag}.pyc" in kept
    container = tmp_path / "work"
    shutil.copytree(image, container)  # copy2: the sources' times travel, as with cp -Rp
    doc = ROOT / "tests" / "data" / "score_all_passed.json"
    ran = subprocess.run([sys.executable, "-c", PROBE, str(doc)], cwd=container, env=environ,
                         capture_output=True, text=True, timeout=120, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    found = json.loads(ran.stdout.strip().splitlines()[-1])
    assert found["tomllib"] is False, "the container parsed a catalogue the image had kept"
    assert "23 / 23" in found["page"]
    assert not list(container.rglob("*.tmp")), "a cache write was left half done"


def test_the_image_build_step_is_what_setup_sh_and_the_dockerfile_run() -> None:
    setup = (ROOT / "templates" / "platforms" / "gradescope" / "setup.sh.j2").read_text("utf-8")
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text("utf-8")
    assert '"$VENV/bin/python" -m grader.platforms.image' in setup
    assert dockerfile.count("/opt/minigrad/venv/bin/python -m grader.platforms.image") == 2
    assert "compileall" not in setup + dockerfile  # one build step, not two
