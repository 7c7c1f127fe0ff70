"""One check's block rendered alone through its format's macro (templates/check/block.*), as
the feedback pages and the platforms' outputs call it: what the tests compare those pages with
(a test helper, not a test module)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.results.check_view import CheckView
from grader.results.i18n import Catalogue
from grader.results.render import environment

BLOCKS = {"terminal": "check/block.terminal.j2", "markdown": "check/block.md.j2",
          "html": "check/block.html.j2", "text": "check/block.txt.j2"}


def check_block(view: CheckView, fmt: str, lang: str, templates: Path | None = None,
                **options: Any) -> str:
    """The block of one check view in `fmt`, uncoloured, with the macro's `options`."""
    catalogue = Catalogue.load(lang)
    context = {"t": catalogue.text, "lang": lang, "paint": lambda text, _style: text}
    module = environment(templates).get_template(BLOCKS[fmt]).make_module(context)
    return str(module.check_block(view, **options))
