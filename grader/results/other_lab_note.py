"""The feedback's sentence for a submission that is another lab's file (grader.intake.other_lab).

Side: trusted process (results): it reads the score document only.
"""

from __future__ import annotations

from grader.common.labs import LABS
from grader.intake.other_lab import EVIDENCE
from grader.results.i18n import Catalogue
from grader.results.score_document import Document, as_document


def other_lab_note(doc: Document, catalogue: Catalogue) -> str:
    """That the submission is another lab's file, what in it says so, and what to hand in;
    empty for any other submission."""
    record = as_document(doc)
    found = record.submission.other_lab
    if found is None:
        return ""
    lab = record.lab
    said = [catalogue.text(f"ui.other_lab.evidence.{kind}", lab=found.lab)
            for kind in EVIDENCE if kind in found.evidence]
    file = LABS[lab].main_file if lab in LABS else ""
    return catalogue.text("ui.other_lab.note", lab=found.lab, expected=lab, file=file,
                          evidence="; ".join(said))
