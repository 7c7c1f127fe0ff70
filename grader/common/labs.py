"""The registry of labs: which files a submission holds, and where the course's files are.

In a source checkout the course (labs/, solutions/, templates/) stands beside the package; an
installed wheel carries the same folders inside the package, under grader/course/.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # grader/: this module is in grader/common/
_INSTALLED_COURSE = PACKAGE_DIR / "course"
COURSE_ROOT = _INSTALLED_COURSE if _INSTALLED_COURSE.is_dir() else PACKAGE_DIR.parent
TEMPLATE_DIR = COURSE_ROOT / "templates"


class UnknownLab(LookupError):
    """A lab name that is not in the registry."""


@dataclass(frozen=True)
class Lab:
    """One lab: the files students edit and the module the checks import from them."""

    name: str
    files: tuple[str, ...]
    module: str
    class_name: str | None  # None: scenarios receive the whole module instead of one class
    timeout_s: float = 2.0
    support_files: tuple[str, ...] = ()  # given to students complete; copied from labs/<lab>/

    @property
    def student_dir(self) -> Path:
        """The lab folder students get (stubs, README, public tests)."""
        return COURSE_ROOT / "labs" / self.name

    @property
    def public_tests(self) -> Path:
        """The public checks that ship with the lab."""
        return self.student_dir / "tests"

    @property
    def hidden_tests(self) -> Path:
        """The hidden checks; absent from the student kit."""
        return PACKAGE_DIR / "grading" / "suites" / self.name

    @property
    def solution_dir(self) -> Path:
        """The reference solution; absent from the student kit."""
        return COURSE_ROOT / "solutions" / self.name

    @property
    def main_file(self) -> str:
        """The file a bare-file or notebook submission stands for."""
        return self.files[0]


LABS: dict[str, Lab] = {
    "lab01_graph": Lab(
        name="lab01_graph", files=("value.py",), module="value", class_name="Value"
    ),
    "lab02_ops": Lab(name="lab02_ops", files=("value.py",), module="value", class_name="Value"),
    "lab03_backprop": Lab(name="lab03_backprop", files=("value.py",), module="value", class_name=None, timeout_s=2.0),
    "lab04_xor": Lab(name="lab04_xor", files=("nn.py",), module="nn", class_name=None,
                     support_files=("value.py",), timeout_s=5.0),
}


def get_lab(name: str) -> Lab:
    """The lab called `name`, or UnknownLab listing the known ones."""
    try:
        return LABS[name]
    except KeyError:
        known = ", ".join(sorted(LABS))
        raise UnknownLab(f"unknown lab {name!r}; known labs: {known}") from None
