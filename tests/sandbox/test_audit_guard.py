"""The child's audit guard (`bootstrap.install_guard`): what each rule decides, and that nothing a
submission can reach turns it off.

The rules are run in a fresh interpreter (an audit hook cannot be removed, so never in the test
process); the escapes are run through the sandbox, as a submission would try them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.grading.child import bootstrap
from grader.grading.child.scenario import scenario
from grader.grading.sandbox import Limits, Sandbox

REFUSED = "the grader's sandbox does not allow "

# Each operation, run after install_guard, and what the guard decides: "allowed", or the
# refusal's message. Operations that fail for another reason after the guard let them through
# count as allowed.
DECISIONS = {
    "sys._getframe()": REFUSED + "sys._getframe in a submission",
    "sys._getframe(1)": REFUSED + "sys._getframe in a submission",
    "typing.TypeVar('T')": "allowed",  # a standard frame reader
    "collections.namedtuple('P', 'x y')": "allowed",
    "enum.Enum('E', 'a b')": "allowed",
    "compile('x = 1', STDLIB + 'typing.py', 'exec')": REFUSED + "compiling as a standard module",
    "compile('x = 1', 'mine.py', 'exec')": "allowed",
    "os.kill(os.getpid(), 0)": "allowed",
    "os.kill(0, 0)": "allowed",
    "os.kill(1, 0)": REFUSED + "os.kill in a submission",
    "os.killpg(0, 0)": "allowed",
    "os.killpg(1, 0)": REFUSED + "os.killpg in a submission",
    "gc.get_objects()": REFUSED + "gc.get_objects in a submission",
    "gc.get_referrers(os)": REFUSED + "gc.get_referrers in a submission",
    "sys.settrace(None)": REFUSED + "sys.settrace in a submission",
    "sys._current_frames()": REFUSED + "sys._current_frames in a submission",
    "os.fork()": REFUSED + "os.fork in a submission",
    "os.system('true')": REFUSED + "os.system in a submission",
    "subprocess.Popen(['true'])": REFUSED + "subprocess.Popen in a submission",
    "socket.socket()": REFUSED + "socket.__new__ in a submission",
    "ctypes.CDLL(None)": REFUSED + "ctypes.dlopen in a submission",
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))": REFUSED + "resource.setrlimit in a submission",
    "types.FunctionType((lambda: 1).__code__, {})": REFUSED + "function.__new__ in a submission",
    "raised().__traceback__.tb_frame": REFUSED + "reading tb_frame",
    "raised().__traceback__.tb_lineno": "allowed",
    "(x for x in ()).gi_frame": REFUSED + "reading gi_frame",
    "open('/proc/self/status')": REFUSED + "open on /proc/self/status",
    "open(b'/proc/self/status')": REFUSED + "open on /proc/self/status",
    "os.listdir('/sys')": REFUSED + "os.listdir on /sys",
    "open(os.devnull)": "allowed",
    "os.listdir('.')": "allowed",
    # What a submission can reach cannot change a rule: the bootstrap's names (it runs as
    # __main__), a str subclass's methods.
    "rebind('BLOCKED_EVENTS', frozenset()) or gc.get_objects()": REFUSED + "gc.get_objects in a submission",
    "rebind('HIDDEN_PATHS', ()) or open('/proc/self/status')": REFUSED + "open on /proc/self/status",
    "compile('x = 1', Lying(STDLIB + 'typing.py'), 'exec')": REFUSED + "compiling as a standard module",
    "open(Lying('/proc/self/status'))": REFUSED + "open on /proc/self/status",
}

RUNNER = r"""
import collections, ctypes, enum, gc, json, os, resource, socket, subprocess, sys, types, typing
source_path, operations = sys.argv[1], json.loads(sys.argv[2])
bootstrap = {"__name__": "bootstrap"}  # its globals, as __main__ holds them in a child
exec(compile(open(source_path).read(), source_path, "exec"), bootstrap)
STDLIB = os.path.dirname(os.__file__) + os.sep

class Lying(str):  # says it starts with nothing, and ends with whatever is asked
    def startswith(self, *args):
        return False
    def endswith(self, *args):
        return True

def rebind(name, value):
    bootstrap[name] = value

def raised():
    try:
        raise ValueError("x")
    except ValueError as exc:
        return exc

bootstrap["install_guard"](bootstrap["student_frames"])
decided = {}
for operation in operations:
    try:
        eval(operation)
        decided[operation] = "allowed"
    except RuntimeError as exc:
        decided[operation] = str(exc)
    except Exception:
        decided[operation] = "allowed"
print(json.dumps(decided))
"""


def test_each_rule_decides_as_stated() -> None:
    done = subprocess.run([sys.executable, "-I", "-S", "-c", RUNNER, bootstrap.__file__,
                           json.dumps(list(DECISIONS))], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    decided = json.loads(done.stdout)
    wrong = {operation: decided[operation] for operation in DECISIONS
             if decided[operation] != DECISIONS[operation]}
    assert wrong == {}, "decided otherwise than stated: " + json.dumps(wrong, indent=1)


# -- escapes through the sandbox, as a submission tries them ----------------------------------

ESCAPES = '''\
import __main__
import gc
import os
import traceback


def escaped():
    """Whether the collector answers, which it does only while the guard looks away; says so."""
    try:
        gc.get_objects()
    except RuntimeError:
        return False
    print("ESCAPED", flush=True)
    return True


_extract_tb, _basename = traceback.extract_tb, os.path.basename
traceback.extract_tb = lambda *args, **kwargs: (escaped(), _extract_tb(*args, **kwargs))[1]
os.path.basename = lambda path: (escaped(), _basename(path))[1]


class Value:
    def __init__(self, data):
        self.data = data

    def rebind(self):
        for name in dir(__main__):
            if name.isupper() and isinstance(getattr(__main__, name), frozenset):
                setattr(__main__, name, frozenset())
        return {"escaped": escaped()}

    def fail(self):
        raise ValueError("no")

    def fail_inside(self):
        self.fail()
'''


@scenario
def rebind_the_bootstrap(Value):
    return Value(1.0).rebind()


@scenario
def fail_inside(Value):
    Value(1.0).fail_inside()
    return {}


@pytest.fixture
def escapes(tmp_path: Path):
    (tmp_path / "value.py").write_text(ESCAPES, encoding="utf-8")
    sandbox = Sandbox(tmp_path, "value", "Value", ("value.py",), Limits())
    yield sandbox
    sandbox.close()


def test_rebinding_the_bootstraps_names_leaves_the_guard_as_it_was(escapes: Sandbox) -> None:
    outcome = escapes.run(rebind_the_bootstrap, {})
    assert outcome.status == "ok" and outcome.value == {"escaped": False}, outcome


def test_reading_a_traceback_runs_no_code_the_submission_replaced(escapes: Sandbox) -> None:
    outcome = escapes.run(fail_inside, {})
    assert outcome.status == "exception", outcome
    assert "ESCAPED" not in outcome.output, outcome.output
    lines = ESCAPES.splitlines()
    assert outcome.detail["where"] == [
        {"file": "value.py", "line": lines.index("        self.fail()") + 1, "function": "fail_inside"},
        {"file": "value.py", "line": lines.index('        raise ValueError("no")') + 1,
         "function": "fail"}], outcome.detail
