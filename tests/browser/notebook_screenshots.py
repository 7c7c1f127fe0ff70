"""Write docs/students.md's pictures of the notebook's check cell: lab01's notebook with a bug, from a
built kit, executed (English, then Spanish) and shown in JupyterLab in headless Chromium.

    python tests/browser/notebook_screenshots.py JUPYTERLAB_VENV DOCS_DIR

JUPYTERLAB_VENV is a virtual environment outside the repository that holds JupyterLab
(`python3 -m venv /tmp/jlab && /tmp/jlab/bin/pip install jupyterlab`): the project does not
depend on JupyterLab. The notebook is executed by nbclient with this project's Python and the
kit's grader (the kit's folder first on the path, as its `make venv` arranges), trusted with
that JupyterLab's `jupyter trust` (so JupyterLab shows its HTML output as the kernel wrote
it), and opened through a JupyterLab server on a free local port.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import headless
import nbformat

ROOT = Path(__file__).resolve().parents[2]
LAB = "lab01_graph"
BUG = ROOT / "tests" / "fixtures" / LAB / "grad-overwrite-in-mul" / "value.py"
SHOTS = (("en", "notebook-check.en.png"), ("es", "notebook-check.es.png"))
WIDTH, HEIGHT = 1100, 1500
# JupyterLab settings for a still picture: every cell rendered (no windowing), no news popup.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}


def _kit(base: Path) -> Path:
    """The kit of the last release, built and unpacked under base; lab01's notebook holds BUG."""
    sys.path.insert(0, str(ROOT))
    from grader.authoring.notebooks import lab_notebook, notebook_text
    from grader.authoring.student_kit import build_kit
    from grader.common.labs import LABS

    release = list(LABS)[-1]
    archive = build_kit(base / "built" / f"minigrad-labs-kit-{release}", release)
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(base / "unpacked")
    kit = base / "unpacked" / archive.stem
    folder = kit / "labs" / LAB
    notebook = lab_notebook(LAB, BUG.read_text(encoding="utf-8"),
                            (folder / "README.md").read_text(encoding="utf-8"),
                            (folder / "README.es.md").read_text(encoding="utf-8"))
    (folder / f"{LAB}.ipynb").write_text(notebook_text(notebook), encoding="utf-8")
    return kit


def _execute(kit: Path, lang: str) -> Path:
    """Run lab01's notebook in the kit with GRADER_LANG=lang and save it with its outputs."""
    from nbclient import NotebookClient

    path = kit / "labs" / LAB / f"{LAB}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    saved = dict(os.environ)
    os.environ.update({"PYTHONPATH": str(kit), "GRADER_LANG": lang})
    os.environ.pop("JPY_SESSION_NAME", None)
    try:
        NotebookClient(notebook, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    nbformat.write(notebook, path)
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _jupyterlab(venv: Path, root: Path, env: dict[str, str], log: Any) -> Iterator[str]:
    """A JupyterLab server on a free local port serving root; yields its URL with the token."""
    port, token = _free_port(), secrets.token_hex(16)
    server = subprocess.Popen(
        [str(venv / "bin" / "jupyter"), "lab", "--no-browser", f"--port={port}",
         "--ip=127.0.0.1", f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}",
         f"--LabApp.user_settings_dir={env['JUPYTERLAB_SETTINGS_DIR']}",
         *(["--allow-root"] if os.geteuid() == 0 else [])],  # a container's root, as here
        env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}"
        for _attempt in range(240):
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError(f"JupyterLab did not start in 120 s (its log: {log.name})")
        yield f"{url}/lab/tree/labs/{LAB}/{LAB}.ipynb?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()  # a busy machine: never leave the server behind
            server.wait()


def _shoot(browser: object, url: str, out: Path) -> None:
    """Open the notebook in JupyterLab and picture its last cell, the check cell, and its output."""
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})  # type: ignore[attr-defined]
    page.goto(url, timeout=300_000)  # JupyterLab loads slowly on a busy machine
    cell = page.locator(".jp-Notebook .jp-CodeCell").last
    cell.locator(".jp-OutputArea-output").first.wait_for(timeout=300_000)
    page.wait_for_timeout(2000)  # the output's drawn graphs settle
    # The notebook scrolls inside its own panel: put the check cell at the top of the window.
    cell.evaluate("element => element.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    page.screenshot(path=str(out))
    page.close()


def main(argv: list[str]) -> int:
    """Take both shots; exit 2 (usage) when JupyterLab or the browser is missing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jupyterlab_venv", type=Path, help="a venv holding jupyterlab")
    parser.add_argument("docs_dir", type=Path, help="where the PNG files go")
    args = parser.parse_args(argv)
    reason = headless.unavailable_reason()
    if not (args.jupyterlab_venv / "bin" / "jupyter-lab").is_file():
        reason = f"no jupyter-lab in {args.jupyterlab_venv}/bin (pip install jupyterlab there)"
    if reason is not None:
        print(f"notebook screenshots: {reason}", file=sys.stderr)
        return 2
    args.docs_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="minigrad-notebook-shots-") as scratch:
        base = Path(scratch)
        kit = _kit(base)
        settings = base / "settings"
        for name, values in SETTINGS.items():
            (settings / name).parent.mkdir(parents=True, exist_ok=True)
            (settings / name).write_text(json.dumps(values), encoding="utf-8")
        env = {"PATH": os.environ["PATH"], "HOME": str(base), "LANG": "C.UTF-8",
               "JUPYTER_DATA_DIR": str(base / "data"), "JUPYTER_CONFIG_DIR": str(base / "config"),
               "JUPYTERLAB_SETTINGS_DIR": str(settings)}
        log = (base / "jupyterlab.log").open("w")
        with headless.launched() as browser, _jupyterlab(args.jupyterlab_venv, kit, env,
                                                         log) as url:
            for lang, name in SHOTS:
                path = _execute(kit, lang)
                subprocess.run([str(args.jupyterlab_venv / "bin" / "jupyter"), "trust", str(path)],
                               env=env, check=True, capture_output=True)
                _shoot(browser, url, args.docs_dir / name)
                print(args.docs_dir / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
