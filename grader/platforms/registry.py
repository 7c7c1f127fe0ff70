"""The grading platforms `export` writes bundles for, and the `export` command line they make.

Side: trusted (instructors export). Adding a platform is one module (a `Platform`, see
`grader.platforms.platform`), its templates and catalogue strings, and its line in PLATFORMS:
`python -m grader export` offers each one as a sub-command with the options it declares, and
runs the one named.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from grader.platforms import gradescope, prairielearn
from grader.platforms.platform import Platform

__all__ = ["PLATFORMS", "add_export_parsers", "platform_named"]

PLATFORMS: tuple[Platform, ...] = (gradescope.PLATFORM, prairielearn.PLATFORM)


def platform_named(name: str) -> Platform:
    """The platform of `export NAME` (argparse has already refused any other name)."""
    return next(platform for platform in PLATFORMS if platform.name == name)


def add_export_parsers(export: argparse.ArgumentParser, parser_class: type[argparse.ArgumentParser],
                       text: Callable[[str], str], language: dict[str, Any],
                       handler: Callable[[argparse.Namespace], int]) -> None:
    """One sub-command of `export` per platform: the lab, --out, --lang, --seed, its options."""
    platforms = export.add_subparsers(dest="platform", required=True, metavar="PLATFORM",
                                      parser_class=parser_class)
    for platform in PLATFORMS:
        parser = platforms.add_parser(platform.name, help=text(platform.name))
        parser.add_argument("lab", help=text("lab"))
        parser.add_argument("--out", required=True, help=text(f"{platform.name}_out"))
        parser.add_argument("--lang", **language)
        parser.add_argument("--seed", default=None, help=text("export_seed"))
        platform.add_arguments(parser, text)
        parser.set_defaults(handler=handler)
