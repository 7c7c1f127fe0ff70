"""Replies are checked against their scenario's schema at the boundary (issue 38): every lab
scenario has one, a reply of another shape is a protocol breach on that check (never the
grader's error), checking is linear, and a breach flag quotes nothing of the child's.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from grader.grading.child.scenario import Scenario, scenario
from grader.grading.child.scenarios import lab01_graph, lab02_ops, lab03_backprop, lab04_xor
from grader.grading.child.schema import ListOf, Mismatch, Num, Obj
from grader.grading.sandbox import Limits, Sandbox, protocol, reply_schemas
from grader.grading.sandbox.jail import default_jail
from grader.results.i18n import Catalogue
from grader.results.messages import describe_flag

SCENARIO_MODULES = (lab01_graph, lab02_ops, lab03_backprop, lab04_xor)


def lab_scenarios() -> list[tuple[str, Scenario]]:
    """Every scenario the labs define, by module and name."""
    return [(f"{module.__name__.rsplit('.', 1)[-1]}.{name}", value)
            for module in SCENARIO_MODULES for name, value in vars(module).items()
            if isinstance(value, Scenario)]


@pytest.mark.parametrize(("name", "scen"), lab_scenarios(), ids=[n for n, _ in lab_scenarios()])
def test_every_lab_scenario_has_a_schema_of_its_own(name: str, scen: Scenario) -> None:
    assert reply_schemas.declared(scen) is not None, f"{name} has no reply schema (it gets PLAIN)"


# --- the shapes the issue found making the grader fail ----------------------------------------

def test_padded_recorder_is_refused_before_any_verdict() -> None:
    # 164,000 call entries padded through the recorder's closure (an hour of a verdict before)
    reply = {"calls": ["out"] * 164_000, "nodes": {}}
    assert reply_schemas.mismatch(lab01_graph.sibling_calls, reply, {}) is not None


def test_an_empty_list_where_a_number_belongs_is_refused() -> None:
    reply = {"a.grad": [], "b.grad": 1.0, "nodes": {}}
    assert reply_schemas.mismatch(lab01_graph.diamond, reply, {}) is not None


def test_a_trace_row_of_the_wrong_shape_is_refused() -> None:
    # train_trace's rows travel as named columns (one list per field, verdicts.TraceUpdate)
    row = {"call": [1], "param": [0], "grad": [0.5], "fresh": [0.5], "old": [1.0], "new": [0.9]}
    changed = {"call": [], "param": [], "forward": [], "now": []}
    good = {"parameters": 17, "passes": 3, "changed": changed, "updates": row}
    assert reply_schemas.mismatch(lab04_xor.train_trace, good, {}) is None
    for bad_row in ({**row, "call": [[]]}, {k: v for k, v in row.items() if k != "new"},
                    {**row, "extra": [1.0]}, {**row, "grad": ["x"]}, {**row, "old": [1.0, 2.0]},
                    [[1, 0, 0.5, 0.5, 1.0, 0.9]]):
        bad = {**good, "updates": bad_row}
        assert reply_schemas.mismatch(lab04_xor.train_trace, bad, {}) is not None, bad_row


def test_random_graph_replies_are_as_long_as_the_graphs_given() -> None:
    params = {"graphs": [{"leaves": [1.0, 2.0], "nodes": [["add", 0, 1, None]]}], "record": True}
    good = {"results": [{"data": [1.0, 2.0, 3.0], "grad": [1.0, 1.0, 1.0], "calls": [2]}]}
    assert reply_schemas.mismatch(lab01_graph.random_graphs, good, params) is None
    for bad in ({"results": []},
                {"results": [{"data": [1.0, 2.0], "grad": [1.0, 1.0, 1.0]}]},
                {"results": [{"data": [1.0, 2.0, 3.0], "grad": [1.0, 1.0, 1.0], "calls": [3]}]}):
        assert reply_schemas.mismatch(lab01_graph.random_graphs, bad, params) is not None, bad


def test_a_mismatch_says_no_position_the_child_chose() -> None:
    schema = Obj({"values": ListOf(Num(), 10)})
    with pytest.raises(Mismatch) as caught:
        schema.check({"values": [1.0] * 7 + ["secret"]}, "reply")
    assert "7" not in str(caught.value) and "secret" not in str(caught.value)


def test_checking_is_linear_in_the_reply() -> None:
    """A reply at the message cap is judged in well under a second (timed loosely: linear, not
    quadratic); an over-long list is refused by its length before its items are read."""
    calls = ["x*c"] * 1000
    started = time.perf_counter()
    for _ in range(100):
        reply_schemas.mismatch(lab01_graph.sibling_calls, {"calls": calls, "nodes": {}}, {})
    huge = ["x"] * 500_000
    reply_schemas.mismatch(lab01_graph.sibling_calls, {"calls": huge, "nodes": {}}, {})
    assert time.perf_counter() - started < 5.0


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.randint(-(2 ** 70), 2 ** 70)
    if kind == 3:
        return rng.uniform(-1e308, 1e308)
    if kind == 4:
        return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(30)))
    if kind == 5:
        return rng.choice(["out", "a", "x*c", "?", "0", "data", "grad"])
    if kind in (6, 7):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(6))]
    keys = ["a.grad", "b.grad", "nodes", "calls", "data", "grad", "results", "x", "out.grad"]
    return {rng.choice(keys): _random_value(rng, depth + 1) for _ in range(rng.randrange(6))}


def test_random_replies_end_as_a_match_or_a_breach_never_an_error() -> None:
    """A property of the decoder and the schemas together: random bytes and random plain data,
    as replies to every lab scenario, either match or are refused with ProtocolError or
    Mismatch; nothing else is ever raised."""
    rng = random.Random(38)
    scenarios = [scen for _, scen in lab_scenarios()]
    for _ in range(3000):
        value = _random_value(rng)
        payload = json.dumps(value).encode() if rng.random() < 0.8 else rng.randbytes(40)
        try:
            decoded = protocol.decode(payload)
        except protocol.ProtocolError:
            continue
        scen = rng.choice(scenarios)
        params = {"graphs": [{"leaves": [1.0], "nodes": []}], "depth": 3, "point": [1.0],
                  "sizes": [10], "grads": [0.5], "kinds": ["MLP"], "networks": [{}]}
        reply_schemas.mismatch(scen, decoded, params)  # a str or None, never an exception


# --- in the sandbox: a breach flag quotes nothing of the child's ------------------------------

FORGER = '''\
import json, os

SECRET = "hidden-input-%s"

class Value:
    def __init__(self, data):
        self.data = data

    def forge(self, how):
        secret = SECRET % self.data
        if how == "status":
            message = {"status": secret, "value": 1}
        elif how == "shape":
            message = {"status": "ok", "value": {"a.grad": [secret], "b.grad": 1.0, "nodes": {}}}
        else:
            message = {"status": "ok", "value": 10 ** 400, "note": secret}
        payload = json.dumps(message).encode()
        os.write(3, b"%d\\n" % len(payload) + payload)
        os._exit(0)

    def __mul__(self, other):  # lab01's diamond: a reply of the wrong shape, forged
        return self.forge("shape")
'''


@scenario
def forge_reply(Value, x, how):
    return Value(x).forge(how)


@pytest.mark.parametrize("how", ["status", "shape", "huge"])
def test_a_forged_reply_s_breach_flag_quotes_nothing_of_it(tmp_path: Path, how: str) -> None:
    (tmp_path / "value.py").write_text(FORGER, encoding="utf-8")
    tmp_path.chmod(0o755)
    (tmp_path / "value.py").chmod(0o644)
    with Sandbox(tmp_path, "value", "Value", ("value.py",), Limits(), jail=default_jail()) as box:
        if how == "shape":  # a lab scenario: its schema, not PLAIN, judges the reply
            outcome = box.run(lab01_graph.diamond, {"x": 1234.5, "y": 2.0})
        else:
            outcome = box.run(forge_reply, {"x": 1234.5, "how": how})
    assert outcome.status == "bad-result", (outcome.status, outcome.detail)
    assert [flag["id"] for flag in outcome.flags] == ["protocol-breach"]
    said = json.dumps([outcome.flags, outcome.detail])
    assert "hidden-input" not in said and "1234" not in said, said
    assert outcome.flags[0]["params"]["reason"] in protocol.BREACHES


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_breach_is_said_in_every_language(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    for kind in protocol.BREACHES:
        said = describe_flag(protocol.breach_flag(protocol.ProtocolError(kind)), catalogue)
        assert catalogue.text(f"flags.protocol-breach.reason.{kind}") in said, (kind, said)
        assert kind not in said, said
