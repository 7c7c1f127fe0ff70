"""How a stub's TODOs are written, shared by the stub generator and the checks that read them back.

Side: trusted. The student kit carries this module (the public checks read TODO numbers back
from a stub's NotImplementedError) and not grader.authoring, which writes them.
"""

from __future__ import annotations

import re

# The stub's TODO lines (after the region's indentation); grader.authoring.notebooks reads them back.
TODO_EN = "# TODO({lab}): "
TODO_ES = "# TODO({lab}) es: "
# The stub's first lines, for the student who opens it (the kit has no solutions/ and no
# `make labs`): what to do, and the command that checks it, true in the repository and in kits.
HEADER_EN = "# {lab}: write the TODOs below, in order; `make check LAB={lab}` checks them."
HEADER_ES = "# {lab}: escribe los TODO de abajo, en orden; `make check LAB={lab}` los comprueba."
# A file with no solution regions is given to students complete (a support file).
GIVEN_HEADER_EN = "# {lab}: this file is given complete; you do not need to edit it."
GIVEN_HEADER_ES = "# {lab}: este archivo se entrega completo; no necesitas editarlo."
# The message of a TODO's NotImplementedError starts with this; TODO_NUMBER reads it back.
TODO_MESSAGE = "{lab}, TODO {number}: "
TODO_NUMBER = re.compile(r"^(?P<lab>\w+), TODO (?P<number>[1-9][0-9]*): ")
# A TODO left as the stub has it: its raise statement, on a line of its own.
UNTOUCHED_TODO = re.compile(
    r"^[ \t]*raise NotImplementedError\((?P<quote>['\"])(?P<lab>\w+), TODO (?P<number>[1-9][0-9]*): ",
    re.MULTILINE)
