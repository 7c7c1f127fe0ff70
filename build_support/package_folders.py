"""Make the empty folders of the packages a build leaves out, so that `pip install .` builds.

Side: trusted (packaging; not part of the grader package). pyproject.toml's `[tool.setuptools]
packages` lists the hidden suites (`grader.grading.suites.<lab>`) and the reference solutions
(`grader.course.solutions.<lab>`, from solutions/); setuptools stops with "package directory
... does not exist" when one is missing. The public image (deploy/Dockerfile, `public-build`)
must not hold them in any layer, so its build context leaves them out and this script makes
their folders, empty, under the folders it is given; a missing package anywhere else is an
error (the public stage forgot to copy it), never papered over.

    python build_support/package_folders.py grader/grading/suites solutions
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path


def package_folder(package: str, package_dir: dict[str, str]) -> Path:
    """Where setuptools looks for `package`: the longest `package-dir` prefix, else its dots."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in package_dir:
            return Path(package_dir[prefix], *parts[cut:])
    return Path(*parts)


def missing_folders(root: Path) -> list[Path]:
    """The folders of pyproject's packages that do not exist under `root`."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    package_dir = setuptools.get("package-dir", {})
    folders = [package_folder(name, package_dir) for name in setuptools["packages"]]
    return [folder for folder in folders if not (root / folder).is_dir()]


def make_placeholders(root: Path, allowed: list[str]) -> list[Path]:
    """Make every missing package folder under one of `allowed`; raise on any other."""
    missing = missing_folders(root)
    stray = [f for f in missing if not any(f.is_relative_to(a) for a in allowed)]
    if stray:
        raise SystemExit(f"package folders missing from the build: {', '.join(map(str, stray))}")
    for folder in missing:
        (root / folder).mkdir(parents=True)
    return missing


if __name__ == "__main__":
    made = make_placeholders(Path.cwd(), sys.argv[1:])
    print("empty package folders:", " ".join(map(str, made)) or "none")
