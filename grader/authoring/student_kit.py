"""Building the student kit of one release: the labs opened so far, the grader's public side.

Side: trusted (authoring). The kit is what students download when a lab opens: that lab and
the earlier ones (whose deadlines have passed), never a later lab. `make check` works in it
exactly as in this repository, through the same sandbox, but it holds neither the reference
solutions nor the hidden checks nor the fixtures, nor anything of a later lab (its folder,
its scenarios, verdicts and catalogue texts), nor a hidden check's title or hint. Which grader
modules it carries is the import closure of what it runs (grader.authoring.kit_contents), and
its requirements.txt what those modules import. `build_kit` refuses to produce a kit that
contains any of the forbidden paths.

The course calendar this assumes (docs/instructors.md, "Reference: releases and the student kit"):
the labs open one after the other in the order of the registry, and a lab opens when the previous
one closes, late days included. So the kit of a release may hold complete engines of earlier labs
(lab02's stub holds the lab01 engine, lab04's given value.py the engine of labs 01-03): those labs
are closed.
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import tomllib
import zipfile
from collections.abc import Sequence
from pathlib import Path

import jinja2

from grader.authoring.kit_contents import (
    CHILD_OPERATIONS_FILE,
    Closure,
    ClosureError,
    child_operations_source,
    class_methods,
    declared_check_ids,
    kit_closure,
    normalise,
    public_catalogue,
)
from grader.common.labs import COURSE_ROOT, LABS, PACKAGE_DIR, Lab
from grader.intake.candidates import GIVEN_DIGESTS, given_digests
from grader.intake.collect import notebook_bytes
from grader.results.i18n import CATALOGUE_DIR, LANGUAGES, Catalogue

KIT_TEMPLATES = Path(__file__).parent / "kit"
# Never copied from a lab or template folder: caches an author's tools leave behind.
CACHE_NAMES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
               ".ipynb_checkpoints"}
# A last guard, not what decides the contents (the import closure does): a kit holding any of
# these is refused.
FORBIDDEN_IN_KIT = ("solutions", "grader/grading/suites", "grader/authoring", "grader/course", "tests",
                    "demo")
# The kit's own pyproject.toml (kit/pyproject.toml.j2): `pip install <kit>.zip` puts these kit
# folders inside the installed package, where grader.common.labs looks for an installed course.
KIT_PACKAGE_DIRS = {"grader": "grader", "labs": "grader.course.labs",
                    "templates": "grader.course.templates"}
# Measured on the course machine (2 cores, under load; docs/performance.md, "The student kit"):
# a fresh `make check` in the kit, virtual environment included.
KIT_VENV_MB = 49
KIT_FIRST_CHECK_S = 60
# The Jupyter kernel the kit's README registers from the kit's environment (kit/jupyter.*.md.j2).
KERNEL_NAME = "minigrad-labs"
KERNEL_DISPLAY = "minigrad labs (kit)"


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


def release_closure(release: str) -> Closure:
    """The grader modules the kit of `release` carries: what its public checks and `check` import."""
    return kit_closure([lab.public_tests for lab in release_labs(release)], PACKAGE_DIR)


def _project_dependencies(root: Path) -> list[str]:
    if (root / "pyproject.toml").is_file():  # a source checkout
        with (root / "pyproject.toml").open("rb") as handle:
            return list(tomllib.load(handle)["project"]["dependencies"])
    # an installed wheel: its metadata, without the extras
    return [spec for spec in importlib.metadata.requires("minigrad-labs") or []
            if "extra ==" not in spec]


def kit_requirements(closure: Closure, root: Path = COURSE_ROOT) -> list[str]:
    """The kit's requirements.txt: the project's dependencies that the kit's modules import.

    Every distribution they import must come from one of these, directly or as its dependency."""
    imported = closure.distributions()
    requirements = [spec for spec in _project_dependencies(root)
                    if _distribution(spec) in imported]
    missing = imported - _installed_with({_distribution(spec) for spec in requirements})
    if missing:
        raise KitError(f"the kit imports {', '.join(sorted(missing))}, which its requirements "
                       "do not install")
    return requirements


def _installed_with(distributions: set[str]) -> set[str]:
    """These distributions and everything they depend on (as installed here, extras aside)."""
    found: set[str] = set()
    pending = list(distributions)
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found.add(name)
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        pending.extend(_distribution(spec) for spec in requires if "extra ==" not in spec)
    return found


def _distribution(spec: str) -> str:
    name = spec
    for separator in "<>=!~[; (":
        name = name.split(separator, 1)[0]
    return normalise(name.strip())


def _ignore_for(release: str):  # type: ignore[no-untyped-def]
    later = set(later_labs(release))

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {name for name in names
                if name in CACHE_NAMES or name.endswith(".pyc")
                or name.split(".", 1)[0] in later}

    return ignore


def _copy_package(closure: Closure, out_dir: Path) -> None:
    """The closure's modules, and the data files beside them (pytest's ini, the JSON schema)."""
    folders = {path.parent for path in closure.files}
    data = [path for folder in folders for path in folder.iterdir()
            if path.is_file() and path.suffix not in (".py", ".pyc")]
    for path in sorted({*closure.files, *data}):
        target = out_dir / "grader" / path.relative_to(PACKAGE_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


def _copy_catalogue(labs: list[Lab], release: str, out_dir: Path) -> None:
    """The catalogue without a hidden check's text: each file less the checks the kit lacks."""
    public = declared_check_ids(path for lab in labs for path in lab.public_tests.glob("*.py"))
    later = set(later_labs(release))
    for source in sorted(CATALOGUE_DIR.rglob("*.toml")):
        if source.stem in later:
            continue
        target = out_dir / "grader" / "results" / "catalogue" / source.relative_to(CATALOGUE_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            text = public_catalogue(source, public, f"grader/{target.relative_to(out_dir / 'grader').as_posix()}")
            target.write_text(text, encoding="utf-8")
        except ClosureError as exc:
            raise KitError(str(exc)) from None


def _filter_child_operations(labs: list[Lab], out_dir: Path) -> None:
    """The child's table of operations less the operations no lab of the kit has yet: their
    local derivatives are a later lab's work (kit_contents.child_operations_source)."""
    sources = [(out_dir / "labs" / lab.name / name).read_text(encoding="utf-8")
               for lab in labs for name in (*lab.files, *lab.support_files)
               if name.endswith(".py") and (out_dir / "labs" / lab.name / name).is_file()]
    target = out_dir / "grader" / CHILD_OPERATIONS_FILE
    try:
        target.write_text(child_operations_source(target.read_text(encoding="utf-8"),
                                                  class_methods(sources)), encoding="utf-8")
    except ClosureError as exc:
        raise KitError(str(exc)) from None


def _record_given(labs: list[Lab], out_dir: Path) -> None:
    """The digests of what the kit gives for each lab (its stubs and notebooks as built), where
    the kit's grader reads them (candidates.GIVEN_DIGESTS): in the kit, the lab folders are the
    students' own, edited in place."""
    record = {lab.name: sorted(given_digests(lab, notebook_bytes, out_dir / "labs" / lab.name))
              for lab in labs}
    target = out_dir / "grader" / GIVEN_DIGESTS.relative_to(PACKAGE_DIR)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def _render(name: str, **context: object) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(KIT_TEMPLATES),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return env.get_template(name).render(context)


def jupyter_section(lang: str, release: str) -> str:
    """The kit README's Jupyter section in one language (docs/students.md quotes the English one)."""
    return _render(f"jupyter.{lang}.md.j2", release=release, kernel_name=KERNEL_NAME,
                   kernel_display=KERNEL_DISPLAY)


# docs/students.md holds the English section between these lines, rendered for any release.
JUPYTER_REGION = ("<!-- kit-jupyter: the kit README's section, grader/authoring/kit/jupyter.en.md.j2; "
                  "written by grader.authoring.student_kit.with_jupyter_section -->",
                  "<!-- /kit-jupyter -->")


def with_jupyter_section(page: str) -> str:
    """`page` (docs/students.md) with its kit-jupyter region holding the kit README's English
    Jupyter section as a student of any release reads it."""
    begin, end = JUPYTER_REGION
    before, rest = page.split(begin, 1)
    after = rest.split(end, 1)[1]
    return f"{before}{begin}\n{jupyter_section('en', '<release>')}{end}{after}"


def _kit_packages(out_dir: Path) -> list[str]:
    """Every folder of the kit's grader, labs and templates as a package name of the wheel."""
    packages = []
    for folder, package in KIT_PACKAGE_DIRS.items():
        for path in sorted({out_dir / folder, *(out_dir / folder).rglob("*")}):
            if path.is_dir():
                packages.append(".".join((package, *path.relative_to(out_dir / folder).parts)))
    return packages


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
    try:
        closure = release_closure(release)
    except ClosureError as exc:
        raise KitError(str(exc)) from None
    _copy_package(closure, out_dir)
    _copy_catalogue(labs, release, out_dir)
    _record_given(labs, out_dir)
    _filter_child_operations(labs, out_dir)
    shutil.copytree(root / "templates", out_dir / "templates", ignore=ignore)
    context = {"release": release, "labs": [lab.name for lab in labs],
               "venv_mb": KIT_VENV_MB, "first_check_s": KIT_FIRST_CHECK_S,
               "kernel_name": KERNEL_NAME, "kernel_display": KERNEL_DISPLAY,
               "setting_up": {lang: Catalogue.load(lang).text("kit.setting_up")
                              for lang in LANGUAGES}}
    (out_dir / "Makefile").write_text(_render("Makefile.j2", **context), encoding="utf-8")
    (out_dir / "README.md").write_text(_render("README.md.j2", **context), encoding="utf-8")
    requirements = kit_requirements(closure, root)
    (out_dir / "requirements.txt").write_text("\n".join(requirements) + "\n", encoding="utf-8")
    (out_dir / "pyproject.toml").write_text(_render(
        "pyproject.toml.j2", release=release, requirements=requirements,
        version=importlib.metadata.version("minigrad-labs"), packages=_kit_packages(out_dir)),
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
