"""What a grading image does once, where it is built, so that each submission starts warm.

Side: trusted process. `python -m grader.platforms.image` (from the folder holding grader/)
is run by Gradescope's setup.sh and by deploy/Dockerfile. A platform grades every submission
in a fresh container made from the image, so whatever a first run would write (bytecode, the
parsed catalogues, the compiled templates) is either in the image or paid by every student:
here it is written into the image, and a container that writes no bytecode
(PYTHONDONTWRITEBYTECODE, as the Docker image sets) reads it all the same.
"""

from __future__ import annotations

import compileall
import sys

from grader.common.labs import COURSE_ROOT, PACKAGE_DIR
from grader.results.i18n import LANGUAGES, Catalogue
from grader.results.render import environment

COMPILED_FOLDERS = ("labs", "solutions")  # besides the package: the stubs and the references


def prepare() -> bool:
    """Compile the package and the course's Python, parse every catalogue and compile every
    template, each kept in its __pycache__; whether every file compiled."""
    sys.dont_write_bytecode = False  # the image is where the caches are written
    compiled = compileall.compile_dir(PACKAGE_DIR, quiet=1)
    for name in COMPILED_FOLDERS:
        if (COURSE_ROOT / name).is_dir():
            compiled = compileall.compile_dir(COURSE_ROOT / name, quiet=1) and compiled
    for lang in LANGUAGES:
        Catalogue.load(lang)
    templates = environment()
    for name in templates.list_templates(extensions=["j2"]):
        templates.get_template(name)
    return bool(compiled)


if __name__ == "__main__":
    sys.exit(0 if prepare() else 1)
