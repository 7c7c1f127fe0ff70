"""The feedback's sentence for a submission that is another lab's file (grader.intake.other_lab).

Side: trusted process (results): it reads the score document only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grader.common.labs import LABS
from grader.intake.other_lab import EVIDENCE
from grader.results.i18n import Catalogue


def other_lab_note(doc: Mapping[str, Any], catalogue: Catalogue) -> str:
    """That the submission is another lab's file, what in it says so, and what to hand in;
    empty for any other submission."""
    found = doc["submission"].get("other_lab")
    if not isinstance(found, Mapping):
        return ""
    lab = str(doc["lab"])
    said = [catalogue.text(f"ui.other_lab.evidence.{kind}", lab=str(found["lab"]))
            for kind in EVIDENCE if kind in found.get("evidence", ())]
    file = LABS[lab].main_file if lab in LABS else ""
    return catalogue.text("ui.other_lab.note", lab=str(found["lab"]), expected=lab, file=file,
                          evidence="; ".join(said))
