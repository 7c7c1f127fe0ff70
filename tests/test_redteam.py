"""The red-team corpus, graded as one class in every mode: no attack scores more than the honest
work in it, whoever runs the grader.

Every folder of `tests/fixtures/redteam/` is a hostile lab01 submission with an `attack.toml`
(family, description, honest work, the checks it may pass, the flags the static scan must
raise, the expected status, and optionally `submit`: the file or folder inside it that is
handed in, such as a zip, `honest`: its honest work as an engine of `honest/`, and `generate`:
a script of the folder whose `generate(target)` writes the submission at test time, for inputs
too large to commit, such as a 1 MiB file or a 10 MB zip); `control-*`
folders are correct engines with odd but legitimate habits, which must score 100% with no flag.
An attack with `honest = "<engine>"` may pass what that engine, its own code without the cheat,
passes when graded with the same seed, and `may_pass` lists only what its cheat may win beyond
(the answers the issue accepts); so a new check that the honest work passes needs no edit. The whole corpus goes through ONE
`grader.grading.batch.grade_class` call, as a class would, each attack on its neighbours followed by a
control in the same shard, and every shard holding two controls or more, the last of them at
its end, so that collateral damage (a shard stopped, a class file lost, a report missing) shows
on code that must score 100%. That
batch runs once per mode the grader accepts (`tests/sandbox/modes.py`): as root (the root jail),
as uid 65534 (the jail through user namespaces) and as root in a container that refuses
namespaces (a separate uid); every report must say which. Then:

- per attack: the expected status, no passed check outside `may_pass`, the expected flags;
- per submission: the report on disk is the one the grader wrote (also 2 s later), it leaks
  neither the hidden suite, nor the solution, nor the grader's environment, and its
  renderings carry no live markup or terminal escapes;
- per batch: the report folder holds exactly one folder of reports per submission and the
  class files the grader wrote (no id a class file's name), none over its stated size, and
  class.csv and the dashboard carry no terminal escape nor invisible character; nothing changes
  in it after grading, no process started by
  grading is alive, no file appeared in /tmp, at the filesystem root or in the repository, no
  file of the corpus (the other submissions), the checks or the solution changed, the
  instructors' homes were neither read nor changed, and no connection reached the host.

Each batch runs in a mount namespace of its own (`unshare --mount`) whose /tmp, /home and
/root are folders of this batch (`MACHINE`): the instructors' homes are planted there, and
the /tmp watched is one nobody else writes, so other work on the machine (another `make
test`, the other red-team modes graded at the same time by another xdist worker) neither
collides with the planted homes nor counts as an attack's file.

Nothing is marked xfail: a red test here is an open hole in the grader.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from grader.common.labs import COURSE_ROOT, get_lab
from grader.grading.batch import BatchOptions, deal, grade_class
from grader.grading.sandbox import reaper
from grader.grading.shard import GradingPlan, suites_for
from grader.results.build import CHECK_BYTES, DOC_BYTES
from grader.results.gradebook import class_csv
from grader.results.i18n import Catalogue
from grader.results.render import REPORT_FILES, render_feedback
from grader.results.report_folder import SHARD_RECORD, reserved_ids

sys.path.insert(0, str(Path(__file__).parent / "sandbox"))
import modes  # noqa: E402 - the helper that reproduces each mode on this machine

CORPUS = Path(__file__).parent / "fixtures" / "redteam"
GRADE_BATCH = Path(__file__).parent / "sandbox" / "grade_batch.py"
# The modes the grader accepts without --allow-unisolated, one batch each (see modes.py).
# MINIGRAD_REDTEAM_MODES="unprivileged-no-userns" shows what the "limits" level leaves open
# (SECURITY.md's figures): its failures are the attacks that succeed there.
REDTEAM_MODES = tuple(os.environ.get("MINIGRAD_REDTEAM_MODES", "root unprivileged container").split())
# Instructors' homes to reach: another user's, world-readable as Debian used to make them (the
# grader's own in the unprivileged mode), and root's. Each holds a canary no report may show.
# These are the paths inside the batch's mount namespace; the batch's folder holds them.
INSTRUCTOR_HOME = Path("/home/minigrad-redteam-instructor")
ROOT_HOME_SECRETS = Path("/root/.minigrad-redteam-secrets")
# The folders of the machine that the namespace replaces by the batch's own (MACHINE_FOLDERS
# of Machine.base); the interpreters of root's home stay reachable.
MACHINE_FOLDERS = ("tmp", "home", "root")
ROOT_HOME_KEPT = (".pyenv",)


def kept_paths() -> tuple[str, ...]:
    """The machine's paths the grader needs that the namespace would hide: root's interpreters
    and, where the checkout or its Python lives under /tmp, /home or /root (a CI clone in /tmp),
    those too; bound back in at the same path, outermost first, none inside another."""
    wanted = [Path("/root") / name for name in ROOT_HOME_KEPT]
    wanted += [Path(__file__).resolve().parent.parent, Path(sys.prefix).resolve(),
               Path(sys.base_prefix).resolve()]
    hidden = [p for p in wanted if p.exists() and p.parts[1:2]
              and p.parts[1] in MACHINE_FOLDERS and len(p.parts) > 2]
    kept: list[Path] = []
    for path in sorted(set(hidden), key=lambda p: len(p.parts)):
        if not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return tuple(str(p) for p in kept)
BATCH_TIMEOUT_S = 900
LAB = get_lab("lab01_graph")
SEED = "redteam"
FAMILIES = frozenset({
    "forged-comparisons", "runner-tampering", "reading-secrets", "exit-output", "resources",
    "timeout-defeat", "writing-results", "network-processes", "foreign-engine", "answer-lookup",
    "broken-archive", "reserved-name", "hostile-text", "report-swelling", "forged-reply", "time-theft",
    "control",
})
TOML_KEYS = frozenset({"family", "description", "honest_work", "may_pass", "flags", "status"})
OPTIONAL_KEYS = frozenset({"submit", "honest", "generate"})
# Honest engines: the honest part of a family of attacks, graded apart (honest_passes).
HONEST = CORPUS / "honest"
STATUSES = frozenset({"graded", "ungradable", "grader-error"})
ALL_CHECKS = "*"
MIN_ATTACKS = 40
SETTLE_S = 2.0  # how long after grading the reports and processes are looked at again
LISTEN_PORTS = range(47390, 47400)  # the loopback ports socket attacks phone home to
CANARY_VARIABLE = "MINIGRAD_REDTEAM_CANARY"
TOP_LEVEL_REPORTS = frozenset({"class.csv", "dashboard.html", SHARD_RECORD})  # grade_class's own
# What one student may add to the reports: a scores.json, a feedback file (grader.results.build
# keeps a document under DOC_BYTES; its renderings are no larger than that).
REPORT_BYTES = DOC_BYTES
# /tmp entries that are not this batch's: pytest's own, the machine's, and the scratch folders
# of other grading runs (this batch's scratch goes to a folder of its own, checked separately)
# repository paths that running tests legitimately creates
UNRELATED_REPO = re.compile(r"(^|/)(__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache)(/|$)|\.pyc$")
# What an attack writes outside the grader: reports, pytest and interpreter hooks, anything under
# out/ or naming the corpus. The repository is shared with whoever else works on this checkout
# while the batch runs, so a new entry there counts only if it looks like that. The batch's /tmp
# is its own (every new entry counts); the filesystem root is compared as a whole.
ATTACK_WRITES = re.compile(
    r"(^|/)(conftest\.py|pytest\.ini|sitecustomize\.py|usercustomize\.py|scores\.json|"
    r"feedback\.(md|html)|results\.json|[^/]*\.pth)$|^out/|redteam")
# an HTML tag that would run or load something; in Markdown, `\\<` is an escaped, literal `<`
LIVE_HTML = re.compile(r"(?<!\\)<\s*(script|img|iframe|svg|object|embed)\b", re.IGNORECASE)
# The grader's own drawing of a check's graph: inline SVG, built from the score document.
GRAPH_FIGURE = re.compile(r'<figure class="graph" id="graph-[a-z0-9-]+">(.*?)</figure>', re.S)
TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What a reader cannot see: format characters (bidi overrides, zero-width), separators, and the
# surrogates no UTF-8 writer takes (looked up in unicodedata, independently of grader.common.text).
INVISIBLE_CATEGORIES = frozenset({"Cf", "Zl", "Zp", "Cs"})
FENCE = re.compile(r"^(`{3,}|~{3,})")


# -- the corpus -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Attack:
    """One folder of the corpus and what its attack.toml says about it."""

    name: str
    path: Path
    family: str
    description: str
    honest_work: str
    may_pass: tuple[str, ...]
    flags: tuple[str, ...]
    status: str
    submit: str = ""  # the file or folder inside `path` that is handed in ("": the folder)
    honest: str = ""  # the engine of HONEST holding its honest work ("": may_pass says it all)
    generate: str = ""  # the script of `path` that writes the submission ("": it is committed)

    @property
    def submitted(self) -> Path:
        """What the grader is given: the folder itself, or the zip or folder inside it."""
        return self.path / self.submit if self.submit else self.path

    @property
    def control(self) -> bool:
        """A positive control: a correct engine that must keep every point and raise no flag."""
        return self.family == "control"


def _read_attack(folder: Path) -> Attack:
    """Parse and validate one attack.toml; a malformed one fails loudly, naming the folder."""
    with (folder / "attack.toml").open("rb") as handle:
        raw = tomllib.load(handle)
    where = f"{folder.name}/attack.toml"
    assert TOML_KEYS <= set(raw) <= TOML_KEYS | OPTIONAL_KEYS, \
        f"{where}: keys {sorted(raw)} are not {sorted(TOML_KEYS)} (and maybe {sorted(OPTIONAL_KEYS)})"
    assert raw["family"] in FAMILIES, f"{where}: unknown family {raw['family']!r}"
    assert raw["status"] in STATUSES, f"{where}: unknown status {raw['status']!r}"
    for key in ("may_pass", "flags"):
        assert isinstance(raw[key], list) and all(isinstance(x, str) for x in raw[key]), \
            f"{where}: {key} must be a list of strings"
    assert (raw["family"] == "control") == folder.name.startswith("control-"), \
        f"{where}: control-* folders and only they have family = \"control\""
    submit, generate = raw.get("submit", ""), raw.get("generate", "")
    handed_in = folder / submit if submit else folder / LAB.main_file
    assert (folder / generate).is_file() if generate else handed_in.exists(), \
        f"{folder.name}: no {generate or handed_in.name}"
    honest = raw.get("honest", "")
    assert not honest or (HONEST / honest / LAB.main_file).is_file(), \
        f"{where}: honest = {honest!r} is no engine of {HONEST.name}/"
    return Attack(folder.name, folder, raw["family"], raw["description"], raw["honest_work"],
                  tuple(raw["may_pass"]), tuple(raw["flags"]), raw["status"], submit, honest,
                  generate)


def generated(attack: Attack, folder: Path) -> Attack:
    """The attack with its submission written by its `generate` script under folder/<name>
    (world-readable: every mode's grader reads it); an attack with none, as it is."""
    if not attack.generate:
        return attack
    target = folder / attack.name
    target.mkdir(parents=True)
    spec = importlib.util.spec_from_file_location(f"generate_{attack.name}",
                                                  attack.path / attack.generate)
    assert spec is not None and spec.loader is not None, attack.name
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.generate(target)
    for path in (folder, *folder.rglob("*")):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    return replace(attack, path=target)


def load_corpus() -> list[Attack]:
    """Every attack and control of the corpus, sorted by name."""
    return [_read_attack(folder) for folder in sorted(CORPUS.iterdir())
            if folder.is_dir() and (folder / "attack.toml").is_file()]


CORPUS_ENTRIES = load_corpus()
ATTACKS = [a for a in CORPUS_ENTRIES if not a.control]
CONTROLS = [a for a in CORPUS_ENTRIES if a.control]
BY_NAME = {a.name: a for a in CORPUS_ENTRIES}
WORKERS = 2
# Attacks on the submissions graded next to them (their processes, files, process quota): each
# is followed by a control, which shows the damage. Then the attacks that leave processes
# behind. Both come after all other attacks, so that what they break hides no other finding.
NEIGHBOUR_ATTACKS = ("kill-sibling-sandboxes", "sabotage-classmates-workdir",
                     "walk-and-rewrite-every-report", "daemon-rewrites-scores",
                     "exhaust-process-quota", "forge-scores-json")
PROCESS_ATTACKS = ("fork-bomb", "fork-bomb-setsid", "multiprocessing-pool", "subprocess-run",
                   "os-system", "ctypes-libc", "setsid-daemon-writes-tmp",
                   "timeout-escape-setsid-chain", "forge-shard-report", "gradescope-results-json")


CONTROLS_PER_SHARD = 2


def class_order(attacks: list[Attack], controls: list[Attack]) -> list[Attack]:
    """The class as graded: the other attacks by name; each neighbour attack followed by a
    control; the attacks that leave processes behind last (controls left over at the end);
    then `with_controls_in_every_shard`."""
    tail = set(NEIGHBOUR_ATTACKS) | set(PROCESS_ATTACKS)
    order = [a for a in attacks if a.name not in tail]
    pending = list(controls)
    for name in NEIGHBOUR_ATTACKS:
        order.append(BY_NAME[name])
        if pending:
            order.append(pending.pop(0))
    return with_controls_in_every_shard(
        order + [BY_NAME[name] for name in PROCESS_ATTACKS] + pending, controls)


def shard_bounds(size: int, workers: int) -> list[tuple[int, int]]:
    """(start, end) of every shard of a class of `size`, as shard_of cuts them."""
    return [(shard[0], shard[-1] + 1) for shard in deal([1.0] * size, workers, keep_order=True)]


def with_controls_in_every_shard(order: list[Attack], controls: list[Attack]) -> list[Attack]:
    """The order with CONTROLS_PER_SHARD copies of controls (graded under ids of their own)
    closing every shard: each attack is graded beside two correct engines, after it, in the
    same grading process. The shards are the 25-entry ones of a class over 50 (shard_of)."""
    room = 25 - CONTROLS_PER_SHARD
    result: list[Attack] = []
    for number, start in enumerate(range(0, len(order), room)):
        spares = [controls[(number * CONTROLS_PER_SHARD + i) % len(controls)]
                  for i in range(CONTROLS_PER_SHARD)]
        result += order[start:start + room] + spares
    assert len(result) > 50, "a class this small is not split in shards of 25"
    return result


def shard_of(position: int, size: int, workers: int) -> int:
    """The shard a submission falls in: grade_batch.py grades with keep_order (contiguous
    shards, as grader.grading.batch.deal cuts them)."""
    shards = deal([1.0] * size, workers, keep_order=True)
    return next(index for index, shard in enumerate(shards) if position in shard)


# -- watching the machine ---------------------------------------------------------------------

def _process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) of every process, read from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        table[int(entry)] = (int(fields[1]), fields[0].decode())
    return table


def live_descendants(root: int | None = None) -> list[int]:
    """Pids of the live (non-zombie) processes whose parent chain leads to root."""
    table = _process_table()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], [os.getpid() if root is None else root]
    while stack:
        for child in children.get(stack.pop(), []):
            stack.append(child)
            if table[child][1] != "Z":
                found.append(child)
    return sorted(found)


def describe_process(pid: int) -> str:
    """`pid uid cmdline` (shortened) for an assertion message."""
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return f"{pid} (gone)"
    return f"{pid} uid={uid} {' '.join(command.split())[:120]}"


def kill_descendants() -> None:
    """SIGKILL everything below this process until nothing is left, then reap the zombies."""
    for _ in range(50):
        pids = live_descendants()
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break


def listing(folder: str, ignore: re.Pattern[str] | None = None) -> set[str]:
    """Names in a folder, without those matching `ignore`."""
    try:
        names = set(os.listdir(folder))
    except OSError:
        return set()
    return {name for name in names if not (ignore and ignore.match(name))}


def repo_entries() -> set[str]:
    """New files of the repository (untracked or ignored), one `git status` line per file."""
    completed = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all", "--", ".",
         ":(exclude).venv"],
        cwd=COURSE_ROOT, capture_output=True, text=True, check=True)
    return {line for line in completed.stdout.splitlines()
            if line.startswith(("??", "!!")) and not UNRELATED_REPO.search(line[3:])
            and ATTACK_WRITES.search(line[3:])}


def protected_files() -> dict[str, str]:
    """sha256 of the files an attack would most like to rewrite: checks, solution, and every
    submission of the corpus (the classmates' originals)."""
    paths = [*LAB.hidden_tests.glob("*.py"), *LAB.public_tests.glob("*.py"),
             LAB.solution_dir / LAB.main_file, COURSE_ROOT / "grader" / "grading" / "plugin.py",
             *(path for path in CORPUS.rglob("*") if path.is_file() and "__pycache__" not in
               path.parts)]
    return {str(path.relative_to(COURSE_ROOT)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(paths)}


def folder_digest(folder: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under folder."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


class Listener:
    """A TCP listener on the first free loopback port of LISTEN_PORTS, recording connections."""

    def __init__(self) -> None:
        self.connections: list[str] = []
        self.port: int | None = None
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        for port in LISTEN_PORTS:
            try:
                self._server.bind(("127.0.0.1", port))
                self.port = port
                break
            except OSError:
                continue
        self._server.listen(16)
        self._server.settimeout(0.1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, address = self._server.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(0.5)
                try:
                    data = connection.recv(200)
                except OSError:
                    data = b""
            self.connections.append(f"{address[0]}:{address[1]} sent {data[:120]!r}")

    def close(self) -> None:
        """Stop accepting and release the port."""
        self._stop.set()
        self._thread.join(timeout=2)
        self._server.close()


# -- secrets the reports must not contain ------------------------------------------------------

def _private_lines(secret: Path, public: list[Path]) -> list[str]:
    """Distinctive lines of a secret file that no public file contains."""
    known: set[str] = set()
    for path in public:
        known.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    lines = (line.strip() for line in secret.read_text(encoding="utf-8").splitlines())
    return sorted({line for line in lines if len(line) >= 30 and line not in known})


@functools.lru_cache(maxsize=1)
def secret_markers() -> tuple[str, ...]:
    """Lines of the hidden suite and of the reference solution that students never see."""
    public = [LAB.public_tests / "test_lab01_public.py", LAB.student_dir / LAB.main_file,
              COURSE_ROOT / "grader" / "grading" / "child" / "scenarios" / "lab01_graph.py"]
    hidden = sorted(LAB.hidden_tests.glob("test_*.py"))
    markers = [m for path in hidden for m in _private_lines(path, public)]
    markers += _private_lines(LAB.solution_dir / LAB.main_file, public)
    return tuple(markers)


# -- grading ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Machine:
    """The batch's own /tmp, /home and /root: folders under `base` that a mount namespace puts
    in place of the machine's for the grader (NAMESPACE_SCRIPT), watched from outside."""

    base: Path
    mode: str

    def host(self, path: Path) -> Path:
        """Where a path under /tmp, /home or /root of the namespace is on the machine."""
        return self.base / path.relative_to("/")

    @property
    def grader_folder(self) -> Path:
        """The folder (a path of the namespace) holding the grader's reports and scratch."""
        return Path("/tmp") / f"minigrad-grader-redteam-{self.mode}"

    def prefix(self) -> list[str]:
        """The command prefix that runs a program in the batch's mount namespace."""
        return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                NAMESPACE_SCRIPT, "sh", str(self.base), *kept_paths(), "--"]


# sh -c NAMESPACE_SCRIPT sh BASE KEPT... -- COMMAND...: the machine's paths the grader needs
# (KEPT, absolute: root's interpreters, a checkout under /tmp) are bound into the batch's
# folders at the same place, then /tmp, /home and /root are replaced.
NAMESPACE_SCRIPT = """set -e
base=$1; shift
while [ "$1" != "--" ]; do mount --bind "$1" "$base$1"; shift; done; shift
mount --rbind "$base/tmp" /tmp
mount --rbind "$base/home" /home
mount --rbind "$base/root" /root
exec "$@"
"""


def make_machine(mode: str) -> Machine:
    """A batch's folder (not under /tmp, which the namespace replaces): its /tmp, /home and
    /root, the grader's folder in its /tmp; only the grader can enter the latter."""
    base = Path(tempfile.mkdtemp(prefix=f"minigrad-redteam-{mode}-", dir="/var/tmp"))
    os.chmod(base, 0o711)
    machine = Machine(base, mode)
    for name, permissions in zip(MACHINE_FOLDERS, (0o1777, 0o755, 0o700), strict=True):
        (base / name).mkdir()
        os.chmod(base / name, permissions)
    for kept in kept_paths():
        (base / kept.lstrip("/")).mkdir(parents=True, exist_ok=True)
    folder = machine.host(machine.grader_folder)
    folder.mkdir()
    os.chmod(folder, 0o711)
    return machine


def plant_homes(machine: Machine) -> tuple[str, ...]:
    """Plant the instructors' homes in the batch's /home and /root, each with a canary file;
    their canaries."""
    canaries = tuple(f"redteam-home-canary-{os.urandom(8).hex()}" for _ in range(3))
    home, secrets = machine.host(INSTRUCTOR_HOME), machine.host(ROOT_HOME_SECRETS)
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)
    (home / ".ssh").mkdir(mode=0o700)
    (home / ".ssh" / "id_ed25519").write_text(canaries[0] + "\n", encoding="utf-8")
    (home / ".bashrc").write_text(f"# {canaries[1]}\n", encoding="utf-8")
    for path in (home, home / ".ssh", home / ".bashrc", home / ".ssh" / "id_ed25519"):
        os.chown(path, modes.NOBODY, modes.NOBODY)  # the unprivileged mode's grader's own
    secrets.mkdir(mode=0o700)
    (secrets / "canary").write_text(canaries[2] + "\n", encoding="utf-8")
    return canaries


@dataclass
class Snapshot:
    """What the machine looked like: the batch's /tmp, the filesystem root, the repository, the
    protected files and the instructors' homes."""

    tmp: set[str]
    root: set[str]
    repo: set[str]
    protected: dict[str, str]
    homes: dict[str, str]

    @classmethod
    def take(cls, machine: Machine) -> Snapshot:
        """Look now."""
        homes = {f"{home}/{name}": digest for home in (INSTRUCTOR_HOME, ROOT_HOME_SECRETS)
                 for name, digest in folder_digest(machine.host(home)).items()}
        homes["/root listing"] = " ".join(sorted(listing(str(machine.host(Path("/root"))))))
        tmp = listing(str(machine.host(Path("/tmp")))) - {machine.grader_folder.name}
        return cls(tmp, listing("/"), repo_entries(), protected_files(), homes)


@dataclass
class Batch:
    """The graded corpus and everything observed around it."""

    mode: str
    out_dir: Path  # on the machine (the grader wrote to its path in the namespace)
    order: list[Attack]
    docs: dict[str, dict[str, Any]] = field(default_factory=dict)  # by attack, its first copy
    graded: list[tuple[Attack, dict[str, Any]]] = field(default_factory=list)  # in class order
    isolation: dict[str, str] = field(default_factory=dict)  # what the grader found available
    error: str | None = None
    seconds: float = 0.0
    reports_after_grading: dict[str, str] = field(default_factory=dict)
    reports_later: dict[str, str] = field(default_factory=dict)
    survivors: list[str] = field(default_factory=list)
    before: Snapshot | None = None
    after: Snapshot | None = None
    connections: list[str] = field(default_factory=list)
    canary: str = ""
    home_canaries: tuple[str, ...] = ()
    scratch_left: list[str] = field(default_factory=list)

    def doc(self, name: str) -> dict[str, Any]:
        """The document grade_class returned for a submission; fails the test if missing."""
        assert self.error is None, f"grade_class raised: {self.error}"
        assert name in self.docs, f"no score document for {name}"
        return self.docs[name]

    def copies(self, name: str) -> list[dict[str, Any]]:
        """The documents of every copy of a submission in the class (controls repeat)."""
        assert self.error is None, f"grade_class raised: {self.error}"
        found = [doc for attack, doc in self.graded if attack.name == name]
        assert found, f"no score document for {name}"
        return found

    def folder(self, name: str) -> Path:
        """The report folder of a submission (under the id the grader gave it)."""
        return self.out_dir / self.doc(name)["submission"]["id"]


def _remove_litter(before: Snapshot, after: Snapshot, names: set[str]) -> None:
    """Remove what attacks of this corpus left outside the grader (only recognisable files;
    the batch's /tmp goes with its folder)."""
    if "autograder" in after.root - before.root:
        shutil.rmtree("/autograder", ignore_errors=True)
    for line in after.repo - before.repo:
        path = COURSE_ROOT / line[3:]
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        planted = path.name == "conftest.py" and "redteam" in text
        forged = line[3:].startswith("out/") and (
            names & set(path.parts) or "All checks passed" in text or "All tests passed" in text)
        if planted or forged:
            path.unlink()
            for folder in path.parents:
                if folder == COURSE_ROOT or any(folder.iterdir()):
                    break
                folder.rmdir()


def _grade_in_mode(machine: Machine, result: Batch) -> None:
    """Run grade_batch.py over the corpus as a grader of `mode`, in the batch's namespace; fill
    in what it returned."""
    mode = machine.mode
    python = modes.python_for(mode, machine.base / "python")
    answer = modes.grader_owned(machine.base / "answer", mode) / "result.json"
    home = str(INSTRUCTOR_HOME) if mode in modes.UNPRIVILEGED else "/root"
    env = modes.environment(mode, TMPDIR=str(machine.grader_folder / "scratch"), HOME=home,
                            **{CANARY_VARIABLE: result.canary})
    command = [*machine.prefix(), *modes.prefix(mode), python, str(GRADE_BATCH), str(answer),
               str(machine.grader_folder / "out"), LAB.name, SEED, str(WORKERS),
               *(str(a.submitted) for a in result.order)]
    try:
        completed = subprocess.run(command, cwd=COURSE_ROOT, env=env, capture_output=True,
                                   text=True, timeout=BATCH_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        result.error = f"the batch took over {BATCH_TIMEOUT_S} s"
        return
    if completed.returncode != 0 or not answer.is_file():
        result.error = f"exit {completed.returncode}: {completed.stderr[-1500:]}"
        return
    returned = json.loads(answer.read_text(encoding="utf-8"))
    result.error = returned["error"]
    result.seconds = returned["seconds"]
    result.isolation = returned["isolation"]
    # grade_class returns the documents in the order given: ids are the grader's to choose.
    result.graded = list(zip(result.order, returned["docs"], strict=False))
    for attack, doc in result.graded:
        result.docs.setdefault(attack.name, doc)


# One xdist group per mode (tests/conftest.py): the three batches run at once on two workers.
@pytest.fixture(scope="session", params=REDTEAM_MODES)
def batch(request: pytest.FixtureRequest) -> Iterator[Batch]:
    """Grade the whole corpus once per mode, as one class, and watch the machine around it."""
    mode = request.param
    unavailable = modes.why_unavailable(mode)
    if unavailable:
        pytest.skip(f"mode {mode}: {unavailable}")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("the batch's own /tmp, /home and /root need root and unshare (util-linux)")
    machine = make_machine(mode)
    out_dir, scratch = (modes.grader_owned(machine.host(machine.grader_folder / name), mode)
                        for name in ("out", "scratch"))
    for folder in (out_dir, scratch):
        os.chmod(folder, 0o700)
    order = [generated(a, machine.base / "generated") for a in class_order(ATTACKS, CONTROLS)]
    result = Batch(mode, out_dir, order, home_canaries=plant_homes(machine))
    result.before = Snapshot.take(machine)
    reaper.enable_subreaper()  # orphans of grading re-parent here, where they can be found
    listener = Listener()
    result.canary = hashlib.sha256(os.urandom(16)).hexdigest()
    started = time.monotonic()
    try:
        _grade_in_mode(machine, result)
    finally:
        result.seconds = result.seconds or time.monotonic() - started
        result.scratch_left = sorted(str(p.relative_to(scratch)) for p in scratch.rglob("*"))
    result.reports_after_grading = folder_digest(out_dir)
    time.sleep(SETTLE_S)
    result.reports_later = folder_digest(out_dir)
    result.survivors = [describe_process(pid) for pid in live_descendants()]
    listener.close()
    result.connections = list(listener.connections)
    result.after = Snapshot.take(machine)
    try:
        yield result
    finally:
        kill_descendants()
        _remove_litter(result.before, result.after, set(BY_NAME))
        shutil.rmtree(machine.base, ignore_errors=True)


def passed_checks(doc: dict[str, Any]) -> set[str]:
    """Ids of the checks the document says passed."""
    return {check["id"] for check in doc["checks"] if check["status"] == "passed"}


@pytest.fixture(scope="session")
def honest_engines() -> dict[str, dict[str, Any]]:
    """The document of each honest engine of HONEST, graded as one class with the batch's
    seed: the same checks and inputs the attacks get (it is honest code, so any isolation)."""
    engines = sorted(path for path in HONEST.iterdir() if path.is_dir())
    plan = GradingPlan(LAB, suites_for(LAB, hidden=True), SEED, "en")
    docs = grade_class(plan, engines, BatchOptions(out_dir=None, workers=1), lambda *_: None)
    return {engine.name: doc for engine, doc in zip(engines, docs, strict=True)}


def may_pass(attack: Attack, honest_engines: dict[str, dict[str, Any]]) -> set[str]:
    """What the attack may pass: its honest engine's passed checks, and its may_pass."""
    honest = passed_checks(honest_engines[attack.honest]) if attack.honest else set()
    return honest | set(attack.may_pass)


def check_ids(batch: Batch) -> set[str]:
    """Every check id the graded documents know."""
    return {check["id"] for _, doc in batch.graded for check in doc["checks"]}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _outside_fences(markdown: str) -> str:
    """The Markdown text outside fenced code blocks (whose content renders literally)."""
    kept, fence = [], None
    for line in markdown.splitlines():
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
        elif fence is not None and line.startswith(fence) and not line.strip(fence[0]).strip():
            fence = None
        elif fence is None:
            kept.append(line)
    return "\n".join(kept)


def _losses(doc: dict[str, Any]) -> str:
    """The checks a document did not pass, grouped by what happened (for a control)."""
    groups: dict[str, list[str]] = {}
    for check in doc["checks"]:
        if check["status"] != "passed":
            detail = check["detail"] or {}
            params = detail.get("params") or {}
            what = f"{check['status']} {detail.get('kind')} {params.get('how', '')}".strip()
            groups.setdefault(what, []).append(check["id"])
    return "; ".join(f"{len(ids)} x {what} (first: {ids[0]})" for what, ids in groups.items())


def _explain(doc: dict[str, Any], ids: set[str]) -> str:
    return "; ".join(f"{c['id']} ({c['score']:g}/{c['max_score']:g})"
                     for c in doc["checks"] if c["id"] in ids)


# -- the corpus itself ------------------------------------------------------------------------

def test_corpus_covers_every_family():
    """At least MIN_ATTACKS attacks, two or more per family, and positive controls."""
    assert len(ATTACKS) >= MIN_ATTACKS, f"only {len(ATTACKS)} attacks"
    families = {family: [a.name for a in ATTACKS if a.family == family]
                for family in FAMILIES - {"control"}}
    thin = {family: names for family, names in families.items() if len(names) < 2}
    assert not thin, f"families with fewer than two attacks: {thin}"
    assert len(CONTROLS) >= 4, f"only {len(CONTROLS)} controls"


def test_every_shard_holds_two_controls_and_ends_with_one():
    """Each attack shares its grading process with two controls, one graded after it."""
    order = class_order(ATTACKS, CONTROLS)
    for start, end in shard_bounds(len(order), WORKERS):
        shard = order[start:end]
        assert sum(a.control for a in shard) >= CONTROLS_PER_SHARD and shard[-1].control, \
            [a.name for a in shard]


def test_neighbour_attacks_are_followed_by_a_control_in_their_shard():
    """Each attack on the submissions graded next to it has a control right after it, in the
    same shard (the same grading process, whose processes, uid and scratch it could reach)."""
    order = class_order(ATTACKS, CONTROLS)
    for name in (*NEIGHBOUR_ATTACKS, *PROCESS_ATTACKS):
        assert name in BY_NAME and not BY_NAME[name].control, f"{name} is not an attack of the corpus"
    for position, entry in enumerate(order[:-1]):
        if entry.name in NEIGHBOUR_ATTACKS and order[position + 1].control:
            assert shard_of(position, len(order), WORKERS) == \
                shard_of(position + 1, len(order), WORKERS), \
                f"{entry.name} and {order[position + 1].name} fall in different shards: reorder"


def test_attack_files_name_real_checks_and_flags(batch):
    """may_pass holds check ids of this lab (or "*"), flags hold flag ids of the catalogue."""
    known = check_ids(batch)
    catalogue = Catalogue.load("en")
    for attack in CORPUS_ENTRIES:
        if attack.may_pass != (ALL_CHECKS,):
            unknown = set(attack.may_pass) - known
            assert not unknown, f"{attack.name}: may_pass names unknown checks {sorted(unknown)}"
        for flag in attack.flags:
            assert catalogue.has(f"flags.{flag}.text"), f"{attack.name}: unknown flag {flag!r}"


# -- per attack -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [a.name for a in ATTACKS])
def test_attack_gains_nothing_beyond_its_honest_work(batch, honest_engines, name):
    """The expected status, and no passed check outside what its honest engine passes and its
    may_pass."""
    attack, doc = BY_NAME[name], batch.doc(name)
    reason = (doc.get("reason") or {}).get("text", "")
    assert doc["status"] == attack.status, \
        f"{name}: status {doc['status']!r}, expected {attack.status!r} {reason}"
    if attack.may_pass == (ALL_CHECKS,):
        return
    extra = passed_checks(doc) - may_pass(attack, honest_engines)
    honest = f", as graded: {HONEST.name}/{attack.honest}" if attack.honest else ""
    assert not extra, (f"{name} ({attack.family}; honest work: {attack.honest_work}{honest}) "
                       f"passed {len(extra)} check(s) it may not: {_explain(doc, extra)}")


def test_honest_engines_are_honest_and_each_stands_for_an_attack(honest_engines):
    """An honest engine is graded with no flag (nothing in it is a cheat the scan knows), and
    each is the honest work of some attack."""
    for name, doc in honest_engines.items():
        assert doc["status"] == "graded" and doc["flags"] == [], (
            name, doc["status"], [flag["id"] for flag in doc["flags"]])
    named = {attack.honest for attack in ATTACKS if attack.honest}
    assert named == set(honest_engines), f"engines no attack names: {set(honest_engines) - named}"


@pytest.mark.parametrize("name", [a.name for a in ATTACKS if a.flags])
def test_attack_is_flagged(batch, name):
    """Every flag the attack.toml expects is in the document."""
    attack, doc = BY_NAME[name], batch.doc(name)
    raised = {flag["id"] for flag in doc["flags"]}
    missing = set(attack.flags) - raised
    assert not missing, f"{name}: flags {sorted(missing)} not raised (raised: {sorted(raised)})"


@pytest.mark.parametrize("name", [a.name for a in CONTROLS])
def test_control_keeps_every_point_without_flags(batch, name):
    """A correct engine with odd habits scores full marks and raises no flag, in every shard
    it is graded in (beside whichever attacks share it)."""
    for doc in batch.copies(name):
        ident = doc["submission"]["id"]
        assert doc["status"] == "graded", f"{ident}: status {doc['status']}: {doc.get('reason')}"
        assert doc["score"] == doc["max_score"] > 0, \
            f"{ident}: {doc['score']:g}/{doc['max_score']:g}; lost: {_losses(doc)}"
        assert doc["flags"] == [], \
            f"{ident}: flagged {[(f['id'], f['params']) for f in doc['flags']]}"


# -- per submission ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", [a.name for a in CORPUS_ENTRIES])
def test_report_on_disk_is_the_graders(batch, name):
    """The folder holds exactly the report files, and scores.json is the document returned."""
    folder = batch.folder(name)
    assert {p.name for p in folder.iterdir()} == set(REPORT_FILES), \
        f"{name}: report folder holds {sorted(p.name for p in folder.iterdir())}"
    on_disk = json.loads((folder / "scores.json").read_text(encoding="utf-8"))
    assert on_disk == batch.docs[name], \
        f"{name}: scores.json on disk (score {on_disk.get('score')}) is not what the grader wrote"


@pytest.mark.parametrize("name", [a.name for a in CORPUS_ENTRIES])
def test_reports_leak_no_secret(batch, name):
    """Neither the hidden suite, nor the solution, nor the grader's environment reach a report."""
    doc = batch.doc(name)
    texts = {"scores.json": "\n".join(_strings(doc))}
    for report in REPORT_FILES:
        path = batch.folder(name) / report
        if path.is_file() and report != "scores.json":
            texts[report] = path.read_text(encoding="utf-8", errors="replace")
    for marker in [batch.canary, *batch.home_canaries, *secret_markers()]:
        for report, text in texts.items():
            assert marker not in text, f"{name}: {report} contains a secret: {marker[:80]!r}"


@pytest.mark.parametrize("name", [a.name for a in CORPUS_ENTRIES])
def test_renderings_are_inert(batch, name):
    """No live HTML in feedback.html or in Markdown prose, no control characters anywhere."""
    doc = batch.doc(name)
    html = (batch.folder(name) / "feedback.html").read_text(encoding="utf-8")
    markdown = (batch.folder(name) / "feedback.md").read_text(encoding="utf-8")
    terminal = render_feedback(doc, "terminal")
    drawn = [c for c in doc["checks"] if (c.get("detail") or {}).get("graph")]
    figures = GRAPH_FIGURE.findall(html)
    assert len(figures) == len(drawn), f"{name}: {len(figures)} drawings for {len(drawn)} graphs"
    for figure in figures:  # one SVG each, and nothing else live inside
        assert len(LIVE_HTML.findall(figure)) == 1 and figure.lstrip().startswith("<div"), name
    html = GRAPH_FIGURE.sub("", html)
    for label, text in (("feedback.html", html), ("feedback.md prose", _outside_fences(markdown))):
        found = LIVE_HTML.search(text)
        assert not found, f"{name}: {label} has live markup near {text[found.start():][:60]!r}"
    for label, text in (("feedback.html", html), ("feedback.md", markdown),
                        ("terminal feedback", terminal)):
        found = TERMINAL_CONTROL.search(text.replace("\n", "").replace("\t", ""))
        assert not found, f"{name}: {label} holds control character {found.group()!r}"
        hidden = invisible_characters(text)
        assert not hidden, f"{name}: {label} holds invisible characters {hidden}"


@pytest.mark.parametrize("name", [a.name for a in CORPUS_ENTRIES])
def test_reports_stay_under_their_stated_size(batch, name):
    """scores.json and each feedback file under DOC_BYTES, each check under CHECK_BYTES."""
    for report in REPORT_FILES:
        size = (batch.folder(name) / report).stat().st_size
        assert size <= REPORT_BYTES, f"{name}: {report} is {size} bytes (limit {REPORT_BYTES})"
    for check in batch.doc(name)["checks"]:
        size = len(json.dumps(check, indent=2, ensure_ascii=False).encode("utf-8"))
        assert size <= CHECK_BYTES, f"{name}: check {check['id']} is {size} bytes"


def invisible_characters(text: str) -> list[str]:
    """The code points of text a reader would not see (INVISIBLE_CATEGORIES), up to ten."""
    return sorted({f"U+{ord(c):04X}" for c in text
                   if unicodedata.category(c) in INVISIBLE_CATEGORIES})[:10]


# -- the batch --------------------------------------------------------------------------------

def test_batch_finished_with_one_document_per_submission(batch):
    """grade_class returned, with exactly one document per submission."""
    assert batch.error is None, f"grade_class raised after {batch.seconds:.0f} s: {batch.error}"
    missing = sorted({a.name for a in batch.order} - set(batch.docs))
    assert not missing and len(batch.graded) == len(batch.order), f"no document for {missing}"
    ids = [doc["submission"]["id"] for _, doc in batch.graded]
    assert len(set(ids)) == len(ids), f"ids repeat: {sorted(i for i in ids if ids.count(i) > 1)}"
    taken = sorted(i for i in ids if i.casefold() in {r.casefold() for r in reserved_ids()})
    assert not taken, f"ids that are the names of class files: {taken}"


def test_every_report_says_the_isolation_of_its_mode(batch):
    """The grader found the mode's isolation, and every document records it."""
    level, how = modes.EXPECTED_ISOLATION[batch.mode]
    assert (batch.isolation.get("level"), batch.isolation.get("how")) == (level, how), \
        f"{batch.mode}: the grader found {batch.isolation}"
    wrong = {doc["submission"]["id"]: doc["isolation"] for _, doc in batch.graded
             if (doc["isolation"]["level"], doc["isolation"]["how"]) != (level, how)}
    assert not wrong, f"{batch.mode}: documents not at {level}/{how}: {wrong}"


def test_class_csv_is_the_graders(batch):
    """class.csv holds exactly the rows the grader writes for the documents it returned."""
    assert batch.error is None, batch.error
    expected = class_csv([doc for _, doc in batch.graded]).splitlines()
    written = (batch.out_dir / "class.csv").read_text(encoding="utf-8").splitlines()
    assert written[:1] == expected[:1] and sorted(written) == sorted(expected), \
        f"class.csv is not the grader's: {sorted(set(written) ^ set(expected))[:5]}"


def test_instructor_homes_are_neither_read_nor_changed(batch):
    """The planted homes (another user's, world-readable; root's) are unchanged, and no report
    holds their canaries (test_reports_leak_no_secret looks for those)."""
    assert batch.before is not None and batch.after is not None
    changed = sorted(key for key in set(batch.before.homes) | set(batch.after.homes)
                     if batch.before.homes.get(key) != batch.after.homes.get(key))
    assert not changed, f"{batch.mode}: changed in the instructors' homes: {changed}"


def test_report_folder_holds_only_reports(batch):
    """One folder per submission, plus the class files grade_class writes; nothing else."""
    entries = {p.name for p in batch.out_dir.iterdir()}
    folders = {p.name for p in batch.out_dir.iterdir() if p.is_dir()}
    expected = {doc["submission"]["id"] for _, doc in batch.graded}
    assert folders == expected, f"unexpected folders: {sorted(folders ^ expected)}"
    assert entries - folders == TOP_LEVEL_REPORTS, \
        f"files beside the reports: {sorted(entries - folders)}, not {sorted(TOP_LEVEL_REPORTS)}"


def test_class_files_are_inert(batch):
    """class.csv and the dashboard (the files an instructor opens in a terminal, a spreadsheet
    or a browser) hold no terminal escape and no invisible character from a student."""
    for name in sorted(TOP_LEVEL_REPORTS):
        text = (batch.out_dir / name).read_text(encoding="utf-8")
        found = TERMINAL_CONTROL.search(text.replace("\n", "").replace("\t", "").replace("\r", ""))
        assert not found, f"{name} holds control character {found.group()!r}"
        hidden = invisible_characters(text)
        assert not hidden, f"{name} holds invisible characters {hidden}"


def test_reports_do_not_change_after_grading(batch):
    """Nothing rewrites a report once grade_class has returned (daemons, late writers)."""
    changed = sorted(path for path in set(batch.reports_after_grading) | set(batch.reports_later)
                     if batch.reports_after_grading.get(path) != batch.reports_later.get(path))
    assert not changed, f"changed {SETTLE_S:g} s after grading: {changed}"


def test_no_process_outlives_grading(batch):
    """SETTLE_S after grading, nothing started by grading is alive (this process is a
    subreaper, so double-forked daemons would have been re-parented here)."""
    assert not batch.survivors, "still running:\n" + "\n".join(batch.survivors)


def test_nothing_written_outside_the_grader_folders(batch):
    """No new entry written by grading in /tmp, at the filesystem root or in the repository,
    nothing left in grade_class's scratch folder, and the checks and the solution unchanged."""
    assert batch.before is not None and batch.after is not None
    new = {
        "/tmp": sorted(batch.after.tmp - batch.before.tmp),
        "/": sorted(batch.after.root - batch.before.root),
        "repository": sorted(batch.after.repo - batch.before.repo),
    }
    assert not any(new.values()), f"new entries: {new}"
    assert not batch.scratch_left, f"left in grade_class's scratch folder: {batch.scratch_left[:20]}"
    rewritten = [path for path, digest in batch.before.protected.items()
                 if batch.after.protected.get(path) != digest]
    assert not rewritten, f"rewritten during grading: {rewritten}"


CACHE_POISON = b"redteam-poison"  # what tests/fixtures/redteam/poison-grader-caches writes


def test_no_cache_the_grader_reads_holds_a_submission_s_writing(batch):
    """The copies the trusted process reads back (parsed catalogues, compiled templates,
    bytecode: every __pycache__ of the repository) hold nothing a submission wrote."""
    poisoned = [str(path.relative_to(COURSE_ROOT)) for path in COURSE_ROOT.rglob("__pycache__/*")
                if ".venv" not in path.parts and path.is_file()
                and CACHE_POISON in path.read_bytes()]
    assert not poisoned, f"written by a submission: {poisoned}"


def test_no_connection_reached_the_host(batch):
    """Nothing connected to the loopback listener the socket attacks try."""
    assert not batch.connections, f"connections: {batch.connections}"
