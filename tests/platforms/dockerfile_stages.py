"""What can reach a Dockerfile's final image, read from its stages (a test helper; no Docker here).

Follows BuildKit's reading of a Dockerfile (moby/buildkit `frontend/dockerfile/instructions`,
the Dockerfile reference): `\\` continues a line, `#` starts a comment line; `ARG`s before the
first `FROM` are global and may be used in `FROM`; a `FROM` naming an earlier stage starts from
that stage's filesystem; `COPY`/`ADD` take build-context paths (globs allowed, filtered by the
.dockerignore) or, with `--from=STAGE`, that stage's files; `RUN --mount=type=bind` can read the
context or a stage. The image is the last stage. A `RUN` cannot bring in a file that neither its
stage nor a mount holds, so what can reach the image's layers is, conservatively, every context
file that any stage it is built from copied, mounted or inherited (a later `RUN rm` does not
count: OCI image-spec `layer.md`, a whiteout only hides a lower layer's file).
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Stage:
    """One `FROM` and what it takes from the context and from other stages."""

    name: str
    base: str  # an earlier stage's name or an image
    context_sources: list[str] = field(default_factory=list)
    stages_read: list[str] = field(default_factory=list)


def instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) of each instruction, continuations joined, comments dropped."""
    joined: list[str] = []
    pending = ""
    for line in text.splitlines():
        if line.lstrip().startswith("#") and not pending.strip():
            continue
        if line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    found = []
    for line in joined:
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def _substitute(text: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)",
                  lambda m: args.get(m.group(1) or m.group(2), ""), text)


def stages(text: str, build_args: dict[str, str] | None = None) -> list[Stage]:
    """The stages of a Dockerfile, `FROM` resolved with the global ARGs and `build_args`."""
    args: dict[str, str] = {}
    found: list[Stage] = []
    for keyword, rest in instructions(text):
        if keyword == "ARG" and not found:
            name, _, default = rest.partition("=")
            args[name] = (build_args or {}).get(name, default)
        elif keyword == "FROM":
            words = _substitute(rest, args).split()
            words = [w for w in words if not w.startswith("--platform")]
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else str(len(found))
            found.append(Stage(name, words[0]))
        elif keyword in ("COPY", "ADD"):
            words = shlex.split(rest)
            flags = [w for w in words if w.startswith("--")]
            paths = [w for w in words if not w.startswith("--")][:-1]
            source = next((f.split("=", 1)[1] for f in flags if f.startswith("--from=")), None)
            if source is None:
                found[-1].context_sources += paths
            else:
                found[-1].stages_read.append(source)
        elif keyword == "RUN":
            for mount in re.findall(r"--mount=(\S+)", rest):
                options = dict(item.partition("=")[::2] for item in mount.split(","))
                if options.get("type", "bind") != "bind":
                    continue
                if "from" in options:
                    found[-1].stages_read.append(options["from"])
                else:
                    found[-1].context_sources.append(options.get("source", "."))
    return found


def ignored(path: str, patterns: list[str]) -> bool:
    """Whether the .dockerignore `patterns` leave `path` out of the context (the last match
    wins; a pattern matching a folder matches everything under it; `!` takes back)."""
    excluded = False
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    for raw in patterns:
        pattern = raw.strip()
        if not pattern or pattern.startswith("#"):
            continue
        negated = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        regex = re.escape(pattern).replace(r"\*\*/", "(.*/)?").replace(r"\*\*", ".*")
        regex = regex.replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
        if any(re.fullmatch(regex, prefix) for prefix in prefixes):
            excluded = not negated
    return excluded


def context_files(root: Path, source: str, patterns: list[str]) -> set[str]:
    """The context's files a COPY source names (a file, a folder, a glob), after .dockerignore."""
    files: set[str] = set()
    everything = [p for p in root.rglob("*") if p.is_file()] if source in (".", "./") else []
    for path in everything or _matches(root, source):
        for file in ([path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]):
            relative = file.relative_to(root).as_posix()
            if not ignored(relative, patterns):
                files.add(relative)
    return files


def _matches(root: Path, source: str) -> list[Path]:
    source = source.strip("/")
    if any(ch in source for ch in "*?["):
        return [p for p in root.glob(source) if fnmatch.fnmatch(p.relative_to(root).as_posix(),
                                                                  source)]
    return [root / source] if (root / source).exists() else []


def reachable(all_stages: list[Stage], root: Path, patterns: list[str],
              stage: Stage | None = None) -> set[str]:
    """The context files that can be in `stage`'s layers (default: the image, the last stage)."""
    by_name = {s.name: s for s in all_stages}
    target = stage or all_stages[-1]
    seen: set[str] = set()
    files: set[str] = set()
    pending = [target.name]
    while pending:
        name = pending.pop()
        if name in seen or name not in by_name:
            continue  # an image from a registry brings nothing of the context
        seen.add(name)
        current = by_name[name]
        for source in current.context_sources:
            files |= context_files(root, source, patterns)
        pending += [current.base, *current.stages_read]
    return files
