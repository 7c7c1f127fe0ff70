"""The parser of `python -m grader semester record | grades | extend | override | regrade | export | verify`.

Side: trusted process. grader.cli adds it (`add_semester_parser`) to every command line, so it
imports nothing but argparse: the handlers (`command_line`, with the ledger, the gradebook writers
and the grading they need) are imported when a semester command runs, never for `check`.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from typing import Any


def _handler(action: str) -> Callable[[argparse.Namespace], int]:
    """The handler of `semester ACTION`, its module imported when it runs."""
    def handle(args: argparse.Namespace) -> int:
        command_line = importlib.import_module("grader.semester.command_line")
        return int(command_line.run(getattr(command_line, f"cmd_{action}"))(args))
    return handle


def add_semester_parser(commands: Any, parser_class: type, text: Callable[[str], str],
                        language: dict[str, Any], lms_names: Sequence[str] = ()) -> None:
    """Add `semester` and its subcommands to the command line's subparsers (`lms_names`: the
    LMS targets `export --lms` offers, `grader.results.lms.registry.NAMES`)."""
    semester = commands.add_parser("semester", help=text("semester"))
    actions = semester.add_subparsers(dest="semester_command", required=True, metavar="ACTION",
                                      parser_class=parser_class)

    def action(name: str) -> Any:
        parser = actions.add_parser(name, help=text(f"semester_{name}"))
        parser.add_argument("--ledger", required=True, metavar="FILE", help=text("semester_ledger"))
        parser.add_argument("--lang", **language)
        parser.add_argument("--by", default=None, metavar="WHO", help=text("semester_by"))
        parser.set_defaults(handler=_handler(name))
        return parser

    record = action("record")
    record.add_argument("lab", help=text("lab"))
    record.add_argument("out_dir", metavar="OUT_DIR", help=text("semester_out_dir"))
    record.add_argument("--seed", default=None, help=text("semester_seed"))
    record.add_argument("--times", metavar="CSV", help=text("semester_times"))
    record.add_argument("--policy", metavar="SEMESTER_TOML", help=text("semester_policy"))

    grades = action("grades")
    grades.add_argument("lab", nargs="?", default=None, help=text("semester_grades_lab"))
    grades.add_argument("--policy", metavar="SEMESTER_TOML", help=text("semester_policy"))
    grades.add_argument("--out", metavar="CSV", help=text("semester_grades_out"))

    extend = action("extend")
    extend.add_argument("student", help=text("semester_student"))
    extend.add_argument("lab", help=text("lab"))
    extend.add_argument("--until", required=True, metavar="TIME", help=text("semester_until"))
    extend.add_argument("--reason", required=True, help=text("semester_reason"))

    override = action("override")
    override.add_argument("student", help=text("semester_student"))
    override.add_argument("lab", help=text("lab"))
    override.add_argument("--score", type=float, default=None, help=text("semester_score"))
    override.add_argument("--check", default=None, metavar="CHECK_ID", help=text("semester_check"))
    override.add_argument("--status", default=None, choices=("passed", "failed"),
                          help=text("semester_status"))
    override.add_argument("--reason", required=True, help=text("semester_reason"))

    regrade = action("regrade")
    regrade.add_argument("lab", help=text("lab"))
    regrade.add_argument("out_dir", metavar="OUT_DIR", help=text("semester_regrade_out_dir"))
    regrade.add_argument("--seed", default=None, help=text("semester_seed"))
    regrade.add_argument("--dry-run", action="store_true", help=text("semester_dry_run"))

    export = action("export")
    export.add_argument("lab", help=text("lab"))
    export.add_argument("--lms", required=True, choices=lms_names,
                        help=text("semester_export_lms"))
    export.add_argument("--points", required=True, type=float, metavar="N",
                        help=text("gradebook_points"))
    export.add_argument("--canvas-column", metavar="'TITLE (ID)'",
                        help=text("gradebook_canvas_column"))
    export.add_argument("--gradebook", metavar="FILE", help=text("gradebook"))
    export.add_argument("--policy", metavar="SEMESTER_TOML", help=text("semester_policy"))
    export.add_argument("--out", required=True, metavar="FILE", help=text("semester_export_out"))

    verify = action("verify")
    verify.add_argument("--sample", type=int, default=None, metavar="N",
                        help=text("semester_sample"))
    verify.add_argument("--sample-seed", type=int, default=0, help=argparse.SUPPRESS)


def add_ledger_options(grade: Any, text: Callable[[str], str]) -> None:
    """`grade --ledger FILE [--policy ...] [--times ...] [--by ...]`: record the run's documents."""
    grade.add_argument("--ledger", metavar="FILE", help=text("grade_ledger"))
    grade.add_argument("--policy", metavar="SEMESTER_TOML", help=text("semester_policy"))
    grade.add_argument("--times", metavar="CSV", help=text("semester_times"))
    grade.add_argument("--by", default=None, metavar="WHO", help=text("semester_by"))
