"""What a grading platform is to `export`: its options, the checks of them, and the bundle it writes.

Side: trusted (instructors export). Every platform the grader runs on (a runner: Gradescope's
autograder zip, a PrairieLearn question) is one `Platform` in its own module; the registry
(`grader.platforms.registry`) lists them, and `python -m grader export PLATFORM` offers exactly
those, dispatching to the one named. Each export takes the lab, `--out`, `--lang` and `--seed`;
a platform adds its own options (`add_arguments`), refuses a bad command line before anything is
written (`refuse`, raising ExportUsage) and writes its bundle (`export`), returning the lines to
say, as catalogue keys.
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

from grader.common.keyed_error import KeyedError
from grader.common.labs import Lab

__all__ = ["ExportUsage", "Platform", "Said"]

Said = tuple[str, dict[str, str]]  # a catalogue key and its parameters, said on stdout


class ExportUsage(KeyedError):
    """A command line the platform refuses: a catalogue key under cli.errors and its parameters."""


class Platform(ABC):
    """A grading platform `export` writes a bundle for."""

    name: str  # the export's sub-command; its help is the catalogue's cli.help.<name>

    @abstractmethod
    def add_arguments(self, parser: argparse.ArgumentParser, text: Callable[[str], str]) -> None:
        """Add the platform's own options (`text` gives a cli.help key's words)."""

    @abstractmethod
    def refuse(self, out: Path, args: argparse.Namespace) -> None:
        """Raise ExportUsage for options the platform cannot export with."""

    @abstractmethod
    def export(self, lab: Lab, out: Path, args: argparse.Namespace, seed: str) -> list[Said]:
        """Write the bundle of `lab` at `out`, graded with `seed`; the lines to say."""
