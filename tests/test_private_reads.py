"""The two places the grader reads another library's private names, pinned to the versions they
were read from: a new version fails here, loudly, before it fails a grading.

- `grader.grading.plugin.json_report_tests` reads pytest-json-report's `JSONReport._json_tests`
  (pytest_jsonreport/plugin.py of 1.5.0: set in `__init__`, one entry per node id filled in by
  `pytest_runtest_logreport`), so a shard streams each submission's tests as soon as they end.
- `grader.cli._argparse_speaks` swaps argparse's module-level `_` and `ngettext` (Lib/argparse.py
  of Python 3.11: `from gettext import gettext as _, ngettext`) and matches the messages it looks
  up (`ARGPARSE_MESSAGES`) to translate them.
"""

from __future__ import annotations

import argparse
import ast
import gettext
import importlib.metadata
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

from grader.cli import ARGPARSE_MESSAGES

# The versions whose source the reads were written against; a new one: read its source, then
# change the read and this pin together.
PYTEST_JSON_REPORT_READ = "1.5.0"
PYTHON_ARGPARSE_READ = {(3, 11)}


def test_pytest_json_report_is_the_version_whose_tests_dict_is_read() -> None:
    version = importlib.metadata.version("pytest-json-report")
    assert version == PYTEST_JSON_REPORT_READ, (
        f"pytest-json-report {version}: grader.grading.plugin.json_report_tests reads "
        f"JSONReport._json_tests of {PYTEST_JSON_REPORT_READ}; read the new plugin.py and "
        "update the read and this pin")


PROBE = '''
import json, os
import pytest
from grader.grading.plugin import json_report_tests

@pytest.hookimpl(trylast=True)
def pytest_runtest_logfinish(nodeid, location):
    seen = json_report_tests(CONFIG)
    with open(os.environ["PROBE_OUT"], "a") as out:
        out.write(json.dumps({"nodeid": nodeid, "keys": sorted(seen),
                              "entry": sorted(seen.get(nodeid, {}))}) + "\\n")

def pytest_configure(config):
    global CONFIG
    CONFIG = config
'''


def test_the_private_tests_dict_holds_each_test_once_it_has_finished(tmp_path: Path) -> None:
    (tmp_path / "probe_plugin.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "test_two.py").write_text("def test_a():\n    pass\n\n"
                                          "def test_b():\n    assert 1\n", encoding="utf-8")
    out = tmp_path / "seen.jsonl"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "probe_plugin",
         "--json-report", "--json-report-file=none", "test_two.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**_environment(), "PYTHONPATH": f"{tmp_path}:{Path.cwd()}", "PROBE_OUT": str(out)})
    assert run.returncode == 0, run.stdout + run.stderr
    seen = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [s["nodeid"] for s in seen] == ["test_two.py::test_a", "test_two.py::test_b"], seen
    assert seen[0]["keys"] == ["test_two.py::test_a"], seen[0]
    assert seen[1]["keys"] == ["test_two.py::test_a", "test_two.py::test_b"], seen[1]
    # what grader.results.build.entries_by_submission reads of each entry
    assert {"nodeid", "outcome", "setup", "call", "teardown"} <= set(seen[1]["entry"]), seen[1]


def _environment() -> dict[str, str]:
    """This environment without PYTEST_ADDOPTS (the probe's run takes only its own options)."""
    return {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}


def test_python_is_the_version_whose_argparse_lookups_are_swapped() -> None:
    assert sys.version_info[:2] in PYTHON_ARGPARSE_READ, (
        f"Python {sys.version_info[:2]}: grader.cli._argparse_speaks swaps argparse's `_` and "
        f"`ngettext` as Lib/argparse.py of {sorted(PYTHON_ARGPARSE_READ)} looks them up; read the "
        "new argparse.py, check ARGPARSE_MESSAGES against it and update this pin")
    assert argparse._ is gettext.gettext, "argparse no longer looks its words up through `_`"  # type: ignore[attr-defined]
    assert argparse.ngettext is gettext.ngettext, "argparse no longer calls `ngettext`"  # type: ignore[attr-defined]


def test_every_translated_argparse_message_is_one_argparse_looks_up() -> None:
    tree = ast.parse(inspect.getsource(argparse))
    looked_up = {arg.value for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Name) and node.func.id in ("_", "ngettext")
                 for arg in node.args
                 if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}
    unknown = sorted(set(ARGPARSE_MESSAGES) - looked_up)
    assert unknown == [], f"ARGPARSE_MESSAGES that this argparse never looks up: {unknown}"
