"""What an LMS target is: the one interface every LMS the grader reads and writes for follows.

Side: trusted (intake of an LMS download, and the class files written after grading it). A
target says, in one module of this folder, everything the grader does for its LMS:

- its intake naming: how the LMS's "download all submissions" names each student's files
  (`read_download`, `is_download_name`, `is_download_entry`, the `--lms` value being `name`: the
  intake side of the interface, `grader.intake.lms.DownloadNaming`, which intake reads the
  download through without importing any target);
- its gradebook: the file the LMS imports, written fresh (`fresh_gradebook`) or filled into the
  gradebook the LMS exported (`reads_gradebook`, `check_gradebook`, `fill_gradebook`);
- its feedback-return zip: each student's feedback under the name the LMS's bulk upload reads
  as theirs (`feedback_name`);
- its words: what `grade` says of the files that go back (the catalogue's
  `cli.return.gradebook_<name>` and `cli.return.feedback_<name>`);
- the class files it writes in the report folder (`class_files`), which no student folder may
  take (`grader.results.report_folder`).

The registry (`grader.results.lms`) lists the targets; nothing else names an LMS.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.intake.lms import DownloadNaming
from grader.results.lms.sheet import Sheet
from grader.results.score_document import Document

__all__ = ["GradebookSettings", "LmsTarget"]

# The gradebook settings of a report folder (`grader.results.class_files`): points, column, the
# download's digest. `column` is the assignment column as the LMS names it (--canvas-column).
GradebookSettings = Mapping[str, Any]


class LmsTarget(DownloadNaming, ABC):
    """One LMS: its download's naming, its gradebook, its feedback zip, its class files."""

    # name (DownloadNaming): the --lms value, and the score document's submission.lms
    gradebook_file: str  # OUT/<gradebook_file>: the gradebook to import
    feedback_zip: str    # OUT/<feedback_zip>: the students' feedback, as the LMS takes it back
    gradebook_kind: str  # what its exported gradebook is, for a refusal: "a Canvas gradebook ..."

    @property
    def class_files(self) -> tuple[str, ...]:
        """The files this target writes beside the report folders."""
        return (self.gradebook_file, self.feedback_zip)

    @property
    def gradebook_message(self) -> str:
        """The catalogue key that says where the gradebook goes back."""
        return f"cli.return.gradebook_{self.name}"

    @property
    def feedback_message(self) -> str:
        """The catalogue key that says where the feedback zip goes back."""
        return f"cli.return.feedback_{self.name}"

    @abstractmethod
    def option_problem(self, points: float | None,
                       column: str | None) -> tuple[str, dict[str, str]] | None:
        """Why a fresh gradebook cannot be written with these options (a key under cli.errors
        and its parameters), or None."""

    @abstractmethod
    def fresh_gradebook(self, docs: Sequence[Document], settings: GradebookSettings,
                        lang: str, templates: Path | None = None) -> str | None:
        """The gradebook file written anew from the documents, or None (no points or column);
        `templates`: a course's overrides, for what the file says of each student."""

    @abstractmethod
    def reads_gradebook(self, header: Sequence[str]) -> bool:
        """Whether a downloaded gradebook with this header row is this LMS's."""

    @abstractmethod
    def check_gradebook(self, sheet: Sheet, lab: str, points: float | None,
                        column: str | None) -> None:
        """Refuse (GradebookError), before grading, a download that cannot be filled in."""

    @abstractmethod
    def fill_gradebook(self, sheet: Sheet, docs: Sequence[Document], lab: str,
                       points: float | None, column: str | None,
                       templates: Path | None = None) -> list[str]:
        """Write the graded students' scores into the sheet; the ids it has no row for
        (`templates`: a course's overrides, for what it says of each student)."""

    @abstractmethod
    def gradebook_ids(self, sheet: Sheet) -> set[str]:
        """The student ids the downloaded gradebook has a row for."""

    @abstractmethod
    def feedback_name(self, report: Document) -> str | None:
        """The name in the feedback zip that the LMS reads as this student's, or None."""
