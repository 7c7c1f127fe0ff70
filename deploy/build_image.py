"""Build deploy/Dockerfile's grader image with this machine's builder: `make image`, the image
test (tests/platforms/test_image_build.py) and CI all build with this one recipe.

Side: trusted (an instructor's and CI's tool; not part of the grader package, stdlib only).

- The builder: podman (rootful or not; its RUN steps use `--isolation chroot`, which needs no
  runtime rlimits) or docker.
- The base: the Dockerfile's `BASE_IMAGE` default where it can be pulled; else (or with
  `--base debootstrap`) a Debian bookworm made with debootstrap from the machine's own Debian
  mirror (read from apt's sources), imported under a local name keyed by the recipe, and kept
  in a cache folder (a tar) so that the next build skips debootstrap.
- pip: with podman, the machine's pip settings reach the build's `pip install`: every setting
  `pip config list` shows (its files' and the PIP_* variables'), written as one pip.conf mounted
  at /etc/pip.conf, and the files and folders they name (certificate, find-links, local indexes,
  constraints) mounted read-only at their own paths. Not `podman build --env`: that writes the
  variables into the image's configuration, and an index URL can hold a password. A mount
  leaves nothing of its own in a layer.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
IGNOREFILE = ROOT / "deploy" / "Dockerfile.dockerignore"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
# HIDDEN=0: no hidden suite nor solution in any layer; what PrairieLearn pulls (the export's
# default --image). HIDDEN=1: the hidden suites inside; a class on Kubernetes or Actions.
IMAGE_NAMES = {0: f"minigrad-labs-grader:{VERSION}", 1: f"minigrad-labs-grader-private:{VERSION}"}
PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CERT_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


@dataclass(frozen=True)
class Debootstrap:
    """The debootstrap base: a minimal Debian with the Python the Dockerfile's stages use."""

    suite: str = "bookworm"
    variant: str = "minbase"
    include: tuple[str, ...] = ("python3", "python3-venv", "python3-pip", "python-is-python3",
                                "ca-certificates")

    def key(self) -> str:
        """A short digest of the recipe and the machine's architecture (the cache's key)."""
        recipe = json.dumps([self.suite, self.variant, self.include, os.uname().machine])
        return hashlib.sha256(recipe.encode()).hexdigest()[:12]

    def image(self) -> str:
        """The local name the base is imported under."""
        return f"localhost/minigrad-labs-base:{self.suite}-{self.key()}"


BASE = Debootstrap()


def default_base_image() -> str:
    """The Dockerfile's own `ARG BASE_IMAGE=` default (what a machine that can pull uses)."""
    found = re.search(r"^ARG BASE_IMAGE=(\S+)", DOCKERFILE.read_text(encoding="utf-8"), re.M)
    assert found, "deploy/Dockerfile has no ARG BASE_IMAGE default"
    return found.group(1)


def default_cache() -> Path | None:
    """MINIGRAD_IMAGE_CACHE (empty: no cache); else /var/cache/minigrad-labs as root (CI), or
    ~/.cache/minigrad-labs."""
    chosen = os.environ.get("MINIGRAD_IMAGE_CACHE")
    if chosen is not None:
        return Path(chosen) if chosen else None
    if os.geteuid() == 0:
        return Path("/var/cache/minigrad-labs")
    return Path.home() / ".cache" / "minigrad-labs"


def log(message: str) -> None:
    """One progress line on stderr."""
    print(f"build_image: {message}", file=sys.stderr, flush=True)


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """A command that must succeed, logged."""
    log(" ".join(command))
    return subprocess.run(command, check=True, text=True, **kwargs)  # type: ignore[call-overload]


# --- the base image --------------------------------------------------------------------------


def apt_mirror(suite: str) -> str | None:
    """The machine's Debian mirror for `suite` (apt's sources: deb822 `.sources` files and
    one-line `.list` files), or None (debootstrap's own default)."""
    sources = Path("/etc/apt")
    files = [sources / "sources.list", *sorted((sources / "sources.list.d").glob("*"))]
    for path in files:
        if not path.is_file() or not path.name.endswith((".list", ".sources")):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.name.endswith(".sources"):
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
                if ("deb" in fields.get("Types", "").split()
                        and suite in fields.get("Suites", "").split()
                        and fields.get("Enabled", "yes") != "no"):
                    return fields.get("URIs", "").split()[0]
        for line in text.splitlines():
            words = re.sub(r"\[[^]]*\]", "", line.split("#")[0]).split()
            if len(words) >= 3 and words[0] == "deb" and words[2] == suite:
                return words[1]
    return None


def image_id(builder: str, name: str) -> str | None:
    """The id of the image `name` in the builder's storage, or None."""
    found = subprocess.run([builder, "image", "inspect", "--format", "{{.Id}}", name],
                           capture_output=True, text=True, check=False)
    if found.returncode != 0:
        return None
    return found.stdout.strip() or None


def drop_replaced(builder: str, previous: str | None, name: str) -> None:
    """Remove the image `name` named before this build, once nothing names it: with it go
    its intermediate images no other image uses (the layer cache of sources since changed),
    so that a machine building on every change does not fill its disk."""
    if previous is None or previous == image_id(builder, name):
        return
    tags = subprocess.run([builder, "image", "inspect", "--format", "{{len .RepoTags}}",
                           previous], capture_output=True, text=True, check=False).stdout
    if tags.strip() == "0":
        subprocess.run([builder, "rmi", previous], capture_output=True, check=False)
        log(f"removed the image {name} replaced ({previous[:12]}) and its unused layers")


def debootstrap_tar(recipe: Debootstrap, target: Path) -> None:
    """Make the base's root file system with debootstrap and write it as a tar at `target`."""
    work = Path(tempfile.mkdtemp(prefix="minigrad-base-", dir=target.parent))
    try:
        rootfs = work / "rootfs"
        mirror = apt_mirror(recipe.suite)
        run(["debootstrap", f"--variant={recipe.variant}", f"--include={','.join(recipe.include)}",
             recipe.suite, str(rootfs), *([mirror] if mirror else [])],
            stdout=subprocess.DEVNULL)
        partial = work / "base.tar"  # renamed when whole: two builds at once never share it
        run(["tar", "-C", str(rootfs), "--numeric-owner", "-cf", str(partial), "."])
        partial.replace(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def debootstrap_base(builder: str, cache: Path | None, recipe: Debootstrap = BASE) -> str:
    """The debootstrap base in the builder's storage: already there, or imported from the
    cache's tar, or made (its tar kept in the cache when there is one)."""
    name = recipe.image()
    if image_id(builder, name):
        log(f"base {name}: in the builder's storage")
        return name
    with tempfile.TemporaryDirectory(prefix="minigrad-base-", dir="/var/tmp") as scratch:
        tar = Path(scratch) / "base.tar"
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            tar = cache / f"base-{recipe.suite}-{recipe.key()}.tar"
        if tar.is_file():
            log(f"base {name}: from the cache {tar}")
        else:
            debootstrap_tar(recipe, tar)
        run([builder, "import", "--change", f"ENV {PATH_ENV}", "--change", 'CMD ["/bin/bash"]',
             str(tar), name], stdout=subprocess.DEVNULL)
    return name


def pullable(builder: str, name: str, timeout_s: float = 120) -> bool:
    """Whether `name` is in the builder's storage or can be pulled (within `timeout_s`)."""
    if image_id(builder, name):
        return True
    try:
        return subprocess.run([builder, "pull", name], capture_output=True, timeout=timeout_s,
                              check=False).returncode == 0
    except subprocess.TimeoutExpired:
        return False


# --- pip's settings --------------------------------------------------------------------------


@dataclass
class PipSettings:
    """The machine's pip settings for a build: one pip.conf and the paths it names."""

    sections: dict[str, dict[str, str]] = field(default_factory=dict)
    paths: list[Path] = field(default_factory=list)

    def config_text(self) -> str:
        """The settings as one pip.conf."""
        lines: list[str] = []
        for section, values in self.sections.items():
            lines.append(f"[{section}]")
            lines += [f"{key} = {value}" for key, value in values.items()]
        return "\n".join(lines) + "\n"


def pip_settings(python: str = sys.executable) -> PipSettings:
    """This machine's pip settings, as `pip config list` shows them (parse_pip_config)."""
    listed = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True,
                            text=True, check=False).stdout
    return parse_pip_config(listed, os.environ)


def parse_pip_config(listed: str, environ: Mapping[str, str]) -> PipSettings:
    """The settings `pip config list` printed, merged as pip merges them (files in their
    order, then the PIP_* variables, `:env:`, over every section), a certificate from
    SSL_CERT_FILE or REQUESTS_CA_BUNDLE when pip has none, and the existing paths the values
    name (a local index's `simple` folder stands for the folder holding it: its pages link to
    ../../files/)."""
    sections: dict[str, dict[str, str]] = {}
    for line in listed.splitlines():
        found = re.match(r"^([^=]+?)\.([\w-]+)=(.*)$", line)
        if not found:
            continue
        section, key, raw = found.groups()
        value = raw.strip("'\"")
        if section == ":env:":
            for values in sections.values():
                values.pop(key, None)
            section = "global"
        sections.setdefault(section, {})[key] = value
    certificate = next((environ[v] for v in CERT_VARIABLES if environ.get(v)), None)
    if certificate and "cert" not in sections.get("global", {}):
        sections.setdefault("global", {})["cert"] = certificate
    paths: list[Path] = []
    for values in sections.values():
        for value in values.values():
            for word in value.split():
                path = Path(word.removeprefix("file://"))
                if word.startswith("file://") and path.name == "simple":
                    path = path.parent
                if path.is_absolute() and path.exists() and path not in paths:
                    paths.append(path)
    return PipSettings({name: values for name, values in sections.items() if values}, paths)


# --- the build -------------------------------------------------------------------------------


def builder_on_path(chosen: str | None = None) -> str:
    """The builder to use: `chosen`, else podman, else docker."""
    for name in ([chosen] if chosen else ["podman", "docker"]):
        if shutil.which(name):
            return name
    raise SystemExit("build_image: neither podman nor docker is installed")


def build_command(builder: str, hidden: int, tag: str, base_image: str | None, local_base: bool,
                  pip_conf: Path | None, settings: PipSettings | None) -> list[str]:
    """The builder's command line for one stage of deploy/Dockerfile."""
    command = [builder, "build", "-f", str(DOCKERFILE), "--build-arg", f"HIDDEN={hidden}",
               "-t", tag]
    if base_image:
        command += ["--build-arg", f"BASE_IMAGE={base_image}"]
    if builder == "podman":
        command += ["--isolation", "chroot", "--ignorefile", str(IGNOREFILE),
                    "--pull=never" if local_base else "--pull=missing"]
        if pip_conf is not None and settings is not None:
            command += ["--volume", f"{pip_conf}:/etc/pip.conf:ro"]
            command += [arg for path in settings.paths
                        for arg in ("--volume", f"{path}:{path}:ro")]
    return [*command, str(ROOT)]


def build(hidden: int, tag: str | None = None, base: str = "auto", builder: str | None = None,
          cache: Path | None = None) -> str:
    """Build the image of `hidden` (0: public, 1: with the hidden suites); its name."""
    chosen = builder_on_path(builder)
    name = tag or IMAGE_NAMES[hidden]
    default = default_base_image()
    if base == "auto":
        base = "pull" if pullable(chosen, default) else "debootstrap"
        log(f"base: {base}")
    base_image = debootstrap_base(chosen, cache) if base == "debootstrap" else None
    with tempfile.TemporaryDirectory(prefix="minigrad-pip-") as scratch:
        settings = pip_settings() if chosen == "podman" else None
        pip_conf = None
        if settings is not None:
            pip_conf = Path(scratch) / "pip.conf"
            pip_conf.write_text(settings.config_text(), encoding="utf-8")
        previous = image_id(chosen, name)
        run(build_command(chosen, hidden, name, base_image, base == "debootstrap", pip_conf,
                          settings))
    drop_replaced(chosen, previous, name)
    return name


def main(argv: list[str] | None = None) -> int:
    """`make image`: build one stage and say how to push it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, choices=(0, 1), default=0,
                        help="0: the public image (PrairieLearn), 1: with the hidden suites")
    parser.add_argument("--tag", help="the image's name (default: minigrad-labs-grader[-private]:VERSION)")
    parser.add_argument("--base", choices=("auto", "pull", "debootstrap"), default="auto")
    parser.add_argument("--builder", choices=("podman", "docker"))
    args = parser.parse_args(argv)
    try:
        name = build(args.hidden, args.tag, args.base, args.builder, default_cache())
    except subprocess.CalledProcessError as failed:
        log(f"failed (exit {failed.returncode}): {' '.join(failed.cmd)}")
        return 3
    builder = builder_on_path(args.builder)
    print(f"built {name}; to publish it:\n"
          f"  {builder} tag {name} REGISTRY/{name}\n  {builder} push REGISTRY/{name}\n"
          f"(docs/deploy.md; HIDDEN=1 images go to a private registry only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
