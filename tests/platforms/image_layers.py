"""What an image's layers hold, read from its saved archive (a test helper, not a test module).

`podman save --format docker-archive` writes the image as Docker's archive: `manifest.json`
names each layer's tarball, in order; every layer is read whole (a file a later layer deletes
stays in the layer that added it: OCI image-spec `layer.md`, a whiteout only hides it), its
member names and the bytes of its regular files searched for probes: the hidden suites' and the
solutions' file paths and strings only they hold (hidden_probes).
"""

from __future__ import annotations

import ast
import json
import subprocess
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MIN_PROBE_CHARS = 16  # shorter strings are too common to tell a leak from chance
PROBES_PER_KIND = 3  # the longest distinctive lines, and code strings, of each hidden file


@dataclass(frozen=True)
class Probe:
    """One thing that must not be in a public layer: a path suffix or a content string."""

    source: str  # the hidden file it stands for
    kind: str  # "path" (its folder and name without suffix) or "text"
    text: str

    def names(self, member: str) -> bool:
        """Whether a layer's member is the hidden file (source, bytecode or any other suffix)."""
        folder, _, stem = self.text.rpartition("/")
        member_folder, _, name = f"/{member}".rpartition("/")
        return f"/{folder}/" in f"{member_folder}/" and name.startswith(f"{stem}.")


def code_strings(path: Path) -> set[str]:
    """What a hidden file's bytecode keeps of it too: the string constants and the names
    (functions, classes, arguments) of its Python source, each line of a long one apart."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found |= {line.strip() for line in node.value.splitlines()}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
    return found


def source_lines(path: Path) -> set[str]:
    """A hidden file's lines, stripped (what a copy of its source holds)."""
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines()}


def distinctive(candidates: set[str], public: str) -> list[str]:
    """The longest candidates found in no public file, at most PROBES_PER_KIND."""
    kept = [c for c in candidates if len(c) >= MIN_PROBE_CHARS and c not in public]
    return sorted(kept, key=lambda c: (-len(c), c))[:PROBES_PER_KIND]


def hidden_probes(hidden_files: dict[str, Path], public_texts: Iterable[str]) -> list[Probe]:
    """For each hidden file (its repository path: file): its folder and name, and its longest
    source lines and code strings found in no public file."""
    public = "\n".join(public_texts)
    probes: list[Probe] = []
    for name, path in sorted(hidden_files.items()):
        relative = name.split("/", 1)[1] if name.startswith("grader/") else name
        probes.append(Probe(name, "path", relative.rsplit(".", 1)[0]))
        texts = distinctive(source_lines(path), public) + distinctive(code_strings(path), public)
        probes += [Probe(name, "text", text) for text in dict.fromkeys(texts)]
    return probes


def save(image: str, target: Path) -> Path:
    """The image saved as a docker-archive tar at `target`."""
    subprocess.run(["podman", "save", "--format", "docker-archive", "-o", str(target), image],
                   capture_output=True, check=True)
    return target


def layer_digests(image: str) -> list[str]:
    """The image's layers as its configuration lists them (RootFS.Layers)."""
    inspected = subprocess.run(["podman", "image", "inspect", image], capture_output=True,
                               text=True, check=True).stdout
    return list(json.loads(inspected)[0]["RootFS"]["Layers"])


@dataclass(frozen=True)
class Found:
    """A probe found in a layer: in a member's name or in a file's bytes."""

    layer: str
    member: str
    probe: Probe


def scan(archive: Path, probes: list[Probe]) -> tuple[list[str], list[Found]]:
    """Every layer the archive's manifest names, and each probe found in one."""
    by_path = [p for p in probes if p.kind == "path"]
    by_text = [(p, p.text.encode("utf-8")) for p in probes if p.kind == "text"]
    found: list[Found] = []
    with tarfile.open(archive) as outer:
        manifest = json.load(outer.extractfile("manifest.json"))  # type: ignore[arg-type]
        layers = [layer for entry in manifest for layer in entry["Layers"]]
        for layer in layers:
            with tarfile.open(fileobj=outer.extractfile(layer)) as inner:
                for member in inner:
                    found += [Found(layer, member.name, p) for p in by_path
                              if p.names(member.name)]
                    if not member.isfile():
                        continue
                    data = inner.extractfile(member).read()  # type: ignore[union-attr]
                    found += [Found(layer, member.name, p) for p, raw in by_text if raw in data]
    return layers, found
