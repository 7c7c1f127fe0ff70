"""What a platform bundle carries: the grader's tree for one lab and its pinned requirements.

Trusted side. A bundle (Gradescope's autograder zip, a PrairieLearn question, a grader image)
runs the grader from a copy of this tree: the package with only the exported lab's hidden suite,
the templates, the lab's student folder (public checks, given files) and its reference solution.
"""

from __future__ import annotations

import shutil
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from grader.common.labs import COURSE_ROOT, PACKAGE_DIR, Lab

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache")
DISTRIBUTION = "minigrad-labs"


def copy_grader_tree(lab: Lab, dest: Path, hidden: bool = True) -> Path:
    """Copy what grading `lab` needs into `dest`, laid out as a source checkout: the package
    (only this lab's hidden suite, if `hidden`), templates/, labs/<lab>/ and, if `hidden`,
    solutions/<lab>/."""
    suites = PACKAGE_DIR / "grading" / "suites"

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = set(IGNORED(directory, names))
        if Path(directory) == PACKAGE_DIR:
            skipped.add("course")  # an installed wheel's course: copied below, as a checkout
        if Path(directory) == suites:  # only this lab's hidden suite travels
            skipped |= {name for name in names if name != lab.name or not hidden}
        return skipped

    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PACKAGE_DIR, dest / "grader", ignore=ignore, dirs_exist_ok=True)
    shutil.copytree(COURSE_ROOT / "templates", dest / "templates", ignore=IGNORED,
                    dirs_exist_ok=True)
    shutil.copytree(lab.student_dir, dest / "labs" / lab.name, ignore=IGNORED, dirs_exist_ok=True)
    if hidden:
        shutil.copytree(lab.solution_dir, dest / "solutions" / lab.name, ignore=IGNORED,
                        dirs_exist_ok=True)
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


def pinned_requirements() -> str:
    """requirements.txt pinning the grader's runtime dependencies to the versions in use here."""
    names = [Requirement(line).name for line in metadata.requires(DISTRIBUTION) or []
             if Requirement(line).marker is None]
    pins = _closure(names)
    lines = [f"{name}=={version}" for name, version in sorted(pins.items())]
    return "# minigrad-labs runtime dependencies, pinned at export\n" + "\n".join(lines) + "\n"
