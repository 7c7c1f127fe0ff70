"""Building the student kit of one release: the labs opened so far, the grader's public side.

Side: trusted (authoring). The kit is what students download when a lab opens: that lab and
the earlier ones (whose deadlines have passed), never a later lab. `make check` works in it
exactly as in this repository, through the same sandbox, but it holds neither the reference
solutions nor the hidden checks nor the fixtures, nor anything of a later lab (its folder,
its scenarios, verdicts and catalogue texts). `build_kit` refuses to produce a kit that
contains any of them.

The course calendar this assumes (README, "Releases"): the labs open one after the other in
the order of the registry, and a lab opens when the previous one closes, late days included.
So the kit of a release may hold complete engines of earlier labs (lab02's stub holds the
lab01 engine, lab04's given value.py the engine of labs 01-03): those labs are closed.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import tomllib
import zipfile
from collections.abc import Sequence
from pathlib import Path

import jinja2

from grader.labs import COURSE_ROOT, LABS, PACKAGE_DIR, Lab

KIT_TEMPLATES = Path(__file__).parent / "kit"
EXCLUDED_NAMES = {"suites", "authoring", "course", "__pycache__", ".pytest_cache", ".mypy_cache",
                  ".ruff_cache", ".ipynb_checkpoints"}
FORBIDDEN_IN_KIT = ("solutions", "grader/suites", "grader/authoring", "grader/course", "tests",
                    "demo", "pyproject.toml")
# Runtime dependencies the kit leaves out, and why: only the hidden suites use hypothesis,
# only `grade` prints rich progress bars and tables. `check` needs neither.
NOT_IN_KIT_DEPENDENCIES = {"hypothesis": "hidden suites only", "rich": "`grade` output only"}
# Measured on the course machine (2 cores, under load; README "Releases and the student kit"):
# a fresh `make check` in the kit, virtual environment included.
KIT_VENV_MB = 49
KIT_FIRST_CHECK_S = 60


class KitError(RuntimeError):
    """The kit would contain something students must not get, or the release is unknown."""


def release_labs(release: str) -> list[Lab]:
    """The labs of a release: the released lab and every lab before it in the registry."""
    names = list(LABS)
    if release not in LABS:
        raise KitError(f"unknown lab {release!r}; known labs: {', '.join(names)}")
    return [LABS[name] for name in names[: names.index(release) + 1]]


def later_labs(release: str) -> list[str]:
    """The labs that open after this release: nothing of them may be in its kit."""
    names = list(LABS)
    return names[names.index(release) + 1:]


def kit_requirements(root: Path = COURSE_ROOT) -> list[str]:
    """The kit's dependencies: the project's runtime dependencies less those `check` never uses."""
    if (root / "pyproject.toml").is_file():  # a source checkout
        with (root / "pyproject.toml").open("rb") as handle:
            dependencies = tomllib.load(handle)["project"]["dependencies"]
    else:  # an installed wheel: its metadata, without the extras
        dependencies = [spec for spec in importlib.metadata.requires("minigrad-labs") or []
                        if "extra ==" not in spec]
    return [spec for spec in dependencies
            if _distribution(spec) not in NOT_IN_KIT_DEPENDENCIES]


def _distribution(spec: str) -> str:
    name = spec
    for separator in "<>=!~[; ":
        name = name.split(separator, 1)[0]
    return name.strip().lower()


def _ignore_for(release: str):  # type: ignore[no-untyped-def]
    later = set(later_labs(release))

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {name for name in names
                if name in EXCLUDED_NAMES or name.endswith(".pyc")
                or name.split(".", 1)[0] in later}

    return ignore


def _render(name: str, **context: object) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(KIT_TEMPLATES),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return env.get_template(name).render(context)


def _leaks(out_dir: Path, release: str) -> list[str]:
    """What the kit holds that it must not: forbidden paths, and any file of a later lab."""
    leaked = [name for name in FORBIDDEN_IN_KIT if (out_dir / name).exists()]
    later = later_labs(release)
    for path in sorted(out_dir.rglob("*")):
        relative = path.relative_to(out_dir).as_posix()
        if any(lab in relative for lab in later):
            leaked.append(relative)
    return leaked


def build_kit(out_dir: Path, release: str, root: Path = COURSE_ROOT) -> Path:
    """Write the kit of `release` to out_dir and `<out_dir>.zip`; returns the zip's path."""
    labs = release_labs(release)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    ignore = _ignore_for(release)
    for lab in labs:
        shutil.copytree(root / "labs" / lab.name, out_dir / "labs" / lab.name, ignore=ignore)
    shutil.copytree(PACKAGE_DIR, out_dir / "grader", ignore=ignore)
    shutil.copytree(root / "templates", out_dir / "templates", ignore=ignore)
    context = {"release": release, "labs": [lab.name for lab in labs],
               "venv_mb": KIT_VENV_MB, "first_check_s": KIT_FIRST_CHECK_S}
    (out_dir / "Makefile").write_text(_render("Makefile.j2", **context), encoding="utf-8")
    (out_dir / "README.md").write_text(_render("README.md.j2", **context), encoding="utf-8")
    (out_dir / "requirements.txt").write_text("\n".join(kit_requirements(root)) + "\n",
                                              encoding="utf-8")
    leaked = _leaks(out_dir, release)
    if leaked:
        raise KitError(f"the kit of {release} would contain {', '.join(leaked[:5])}")
    return _zip(out_dir)


def _zip(out_dir: Path) -> Path:
    archive = out_dir.with_suffix(".zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for path in sorted(out_dir.rglob("*")):
            if path.is_file():
                bundle.write(path, Path(out_dir.name) / path.relative_to(out_dir))
    return archive


def kit_files(out_dir: Path) -> Sequence[Path]:
    """Every file of a built kit, sorted."""
    return sorted(path for path in out_dir.rglob("*") if path.is_file())
