"""How a stub's TODOs are written, shared by the stub generator and the checks that read them back.

Side: trusted. The student kit carries this module (the public checks read TODO numbers back
from a stub's NotImplementedError) and not grader.authoring, which writes them.
"""

from __future__ import annotations

import re

# The message of a TODO's NotImplementedError starts with this; TODO_NUMBER reads it back.
TODO_MESSAGE = "{lab}, TODO {number}: "
TODO_NUMBER = re.compile(r"^(?P<lab>\w+), TODO (?P<number>[1-9][0-9]*): ")
# A TODO left as the stub has it: its raise statement, on a line of its own.
UNTOUCHED_TODO = re.compile(
    r"^[ \t]*raise NotImplementedError\((?P<quote>['\"])(?P<lab>\w+), TODO (?P<number>[1-9][0-9]*): ",
    re.MULTILINE)
