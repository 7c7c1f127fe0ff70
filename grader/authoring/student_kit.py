"""Building the student kit: labs, the grader without hidden suites, templates; no solutions.

The kit is what students download: `make check` works in it exactly as in this repository,
through the same sandbox, but it holds neither the reference solutions nor the hidden checks
nor the fixtures. `build_kit` refuses to produce a kit that contains any of them.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from grader.labs import COURSE_ROOT

INCLUDED = ("labs", "grader", "templates", "pyproject.toml", "Makefile")
EXCLUDED_DIRS = {"suites", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
FORBIDDEN_IN_KIT = ("solutions", "grader/suites", "tests", "demo")

KIT_README = """# minigrad labs — student kit / kit del estudiante

English: each folder under `labs/` is one lab. Read its README.md, fill in the TODOs, and
check your work with `make check LAB=<lab>` (for example `make check LAB=lab01_graph`;
`make check GRADER_LANG=es` gives feedback in Spanish). You need Python 3.11 or newer;
the first `make check` creates a virtual environment in `.venv`.

Español: cada carpeta de `labs/` es un laboratorio. Lee su README.es.md, completa los TODO
y comprueba tu trabajo con `make check LAB=<lab>` (por ejemplo `make check LAB=lab01_graph`;
`make check GRADER_LANG=es` da los resultados en español). Necesitas Python 3.11 o posterior;
el primer `make check` crea un entorno virtual en `.venv`.
"""


class KitError(RuntimeError):
    """The kit would contain something students must not get."""


def _ignore(directory: str, names: list[str]) -> set[str]:
    return {name for name in names if name in EXCLUDED_DIRS or name.endswith(".pyc")}


def build_kit(out_dir: Path, root: Path = COURSE_ROOT) -> Path:
    """Write the kit folder and `<out_dir>.zip`; returns the zip's path."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    for name in INCLUDED:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, out_dir / name, ignore=_ignore)
        else:
            shutil.copy2(source, out_dir / name)
    (out_dir / "README.md").write_text(KIT_README, encoding="utf-8")
    leaked = [name for name in FORBIDDEN_IN_KIT if (out_dir / name).exists()]
    if leaked:
        raise KitError(f"the kit would contain {', '.join(leaked)}")
    archive = out_dir.with_suffix(".zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for path in sorted(out_dir.rglob("*")):
            if path.is_file():
                bundle.write(path, Path(out_dir.name) / path.relative_to(out_dir))
    return archive
