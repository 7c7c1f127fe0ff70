"""What a platform bundle carries: the grader's tree for one lab and its pinned requirements.

Trusted side. A bundle (Gradescope's autograder zip, a PrairieLearn question, a grader image)
runs the grader from a copy of this tree: the package with only the exported lab's hidden suite,
the templates, the lab's student folder (public checks, given files) and its reference solution.
"""

from __future__ import annotations

import shutil
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from grader.labs import REPO_ROOT, Lab

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache")


def copy_grader_tree(lab: Lab, root: Path = REPO_ROOT, dest: Path | None = None,
                     hidden: bool = True) -> Path:
    """Copy what grading `lab` needs from `root` into `dest`; hidden suite and solution if asked."""
    if dest is None:
        raise ValueError("dest is required")
    dest.mkdir(parents=True, exist_ok=True)
    suites = root / "grader" / "suites"

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = set(IGNORED(directory, names))
        if Path(directory) == suites:  # only this lab's hidden suite travels
            skipped |= {name for name in names if name != lab.name or not hidden}
        return skipped

    shutil.copytree(root / "grader", dest / "grader", ignore=ignore, dirs_exist_ok=True)
    shutil.copytree(root / "templates", dest / "templates", ignore=IGNORED, dirs_exist_ok=True)
    relative = lab.student_dir.relative_to(REPO_ROOT)
    shutil.copytree(root / relative, dest / relative, ignore=IGNORED, dirs_exist_ok=True)
    if hidden:
        solution = lab.solution_dir.relative_to(REPO_ROOT)
        shutil.copytree(root / solution, dest / solution, ignore=IGNORED, dirs_exist_ok=True)
    shutil.copy2(root / "pyproject.toml", dest / "pyproject.toml")
    return dest


def _closure(names: list[str]) -> dict[str, str]:
    """Installed versions of the named distributions and everything they require."""
    pinned: dict[str, str] = {}
    pending = list(names)
    while pending:
        name = pending.pop()
        key = name.lower().replace("_", "-")
        if key in pinned:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        pinned[key] = dist.version
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(requirement.name)
    return pinned


def pinned_requirements(root: Path = REPO_ROOT) -> str:
    """requirements.txt pinning the grader's runtime dependencies to the versions in use here."""
    with (root / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)["project"]
    names = [Requirement(line).name for line in project["dependencies"]]
    pins = _closure(names)
    lines = [f"{name}=={version}" for name, version in sorted(pins.items())]
    return "# minigrad-labs runtime dependencies, pinned at export\n" + "\n".join(lines) + "\n"
