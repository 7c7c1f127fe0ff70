"""The machines the grader meets, reproduced on this one (a test helper, not a test module).

Each mode is a command prefix that runs a program the way an instructor's machine would:

- "root": as is (root with every capability: the root jail);
- "root-no-sys-admin": root without CAP_SYS_ADMIN (user namespaces still work: the jail via
  user namespaces, with a uid of the jail's own);
- "container": root without CAP_SYS_ADMIN behind a seccomp filter that refuses what Docker's
  default profile refuses to such a container (unshare, setns, mount, namespace flags to
  clone, clone3): Gradescope's and PrairieLearn's setting, where only a separate uid is left;
- "unprivileged": uid 65534, as an instructor's own account (the jail via user namespaces);
- "unprivileged-no-userns": uid 65534 behind the same seccomp filter (no isolation at all).

Every mode but "root" needs root to set up, and the unprivileged ones an interpreter that uid
65534 can run: `unprivileged_python` makes a virtual environment of the system's Python that
reads this repository and this environment's packages in place.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from grader.common.labs import PACKAGE_DIR
from grader.grading.sandbox.jail import readable_by_others

SOURCE_ROOT = PACKAGE_DIR.parent  # the folder the grader package is imported from
NOBODY = 65534
CONTAINER = Path(__file__).with_name("container_seccomp.py")
DROP_SYS_ADMIN = ["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin", "--"]
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
MODES = ("root", "root-no-sys-admin", "container", "unprivileged", "unprivileged-no-userns")
UNPRIVILEGED = frozenset({"unprivileged", "unprivileged-no-userns"})
# What available_isolation() must say in each mode on a Linux kernel that allows user
# namespaces to unprivileged users (this machine's).
EXPECTED_ISOLATION = {
    "root": ("jail", "root"),
    "root-no-sys-admin": ("jail", "userns"),
    "container": ("uid", "setuid"),
    "unprivileged": ("jail", "userns"),
    "unprivileged-no-userns": ("limits", "none"),
}


def why_unavailable(mode: str) -> str | None:
    """Why this machine cannot reproduce `mode` (None when it can)."""
    if not sys.platform.startswith("linux"):
        return "Linux only"
    if mode != "root" and os.geteuid() != 0:
        return "setting the mode up needs root"
    if mode != "root" and shutil.which("setpriv") is None:
        return "needs setpriv (util-linux)"
    if mode in ("container", "unprivileged-no-userns") and platform.machine() != "x86_64":
        return "the container seccomp filter is written for x86_64"
    if mode in UNPRIVILEGED:
        for path in (SOURCE_ROOT / "grader" / "__init__.py", Path(sysconfig.get_paths()["purelib"])):
            if not readable_by_others(path):
                return f"uid {NOBODY} cannot read {path}"
        if not os.access("/usr/bin/python3", os.X_OK):
            return "needs the system's /usr/bin/python3 for uid 65534"
    return None


def unprivileged_python(folder: Path) -> Path:
    """A virtual environment of the system's Python (which uid 65534 can run) that imports
    this repository's grader and this environment's packages in place; returns its python."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)
    venv = folder / "venv"
    if not (venv / "bin" / "python").exists():
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(venv)],
                       check=True, capture_output=True)
        purelib = subprocess.run([str(venv / "bin" / "python"), "-c",
                                  "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 check=True, capture_output=True, text=True).stdout.strip()
        here = sysconfig.get_paths()["purelib"]
        Path(purelib, "minigrad-tests.pth").write_text(
            f"import sys, site; site.addsitedir({here!r}); sys.path.insert(0, {str(SOURCE_ROOT)!r})\n",
            encoding="utf-8")
    return venv / "bin" / "python"


def python_for(mode: str, folder: Path) -> str:
    """The interpreter a grader runs with in `mode`."""
    return str(unprivileged_python(folder)) if mode in UNPRIVILEGED else sys.executable


def prefix(mode: str) -> list[str]:
    """The command prefix that puts a program in `mode`."""
    container = [sys.executable, str(CONTAINER)]
    return {
        "root": [],
        "root-no-sys-admin": DROP_SYS_ADMIN,
        "container": [*container, *DROP_SYS_ADMIN],
        "unprivileged": AS_NOBODY,
        "unprivileged-no-userns": [*container, *AS_NOBODY],
    }[mode]


def grader_owned(path: Path, mode: str) -> Path:
    """Make a folder the grader of `mode` owns (its output and scratch folders)."""
    path.mkdir(parents=True, exist_ok=True)
    if mode in UNPRIVILEGED:
        os.chown(path, NOBODY, NOBODY)
    return path


def environment(mode: str, **extra: str) -> dict[str, str]:
    """The environment a grader of `mode` runs with: this one, without this environment's
    interpreter settings, plus `extra`."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "VIRTUAL_ENV", "GRADER_"))}
    if mode in UNPRIVILEGED:
        env["HOME"] = "/nonexistent"
    env.update(extra)
    return env
