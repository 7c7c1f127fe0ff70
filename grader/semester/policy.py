"""The semester's policy file (`semester.toml`): due dates, the late penalty, late days, which attempt counts.

Side: trusted process. Every key is validated (an unknown lab, key or value is an error naming
the file and the key, never a silently ignored line). The policy in force is recorded in the
ledger (a `policy` row) whenever it changes, so a grade computed later uses the same rules.

```toml
[semester]
counts = "last"            # last | best | last_before_deadline
penalty_percent = 10       # taken off per started day (or hour) late
penalty_per = "day"        # day | hour
penalty_cap_percent = 30   # the penalty never exceeds this
late_days = 2              # whole late days each student may use in the semester, no penalty
cutoff_hours = 120         # an attempt later than this after its due date is not accepted
unknown_time = "no_penalty"  # no time known: no_penalty | cap_if_marked_late (the LMS's flag)

[due]                      # every lab the course grades, ISO 8601 with a time zone
lab01_graph = "2026-09-14T23:59:00Z"

[[extension]]              # or `python -m grader semester extend`
student = "s07"
lab = "lab02_ops"
until = "2026-09-30T23:59:00Z"
reason = "medical"
```
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from grader.common.labs import LABS
from grader.common.toml_file import read_toml
from grader.semester.ledger import Entry, Ledger

COUNTS = ("last", "best", "last_before_deadline")
UNITS = {"day": 86400, "hour": 3600}
UNKNOWN_TIME = ("no_penalty", "cap_if_marked_late")
SEMESTER_KEYS = ("counts", "penalty_percent", "penalty_per", "penalty_cap_percent", "late_days",
                 "cutoff_hours", "unknown_time")
EXTENSION_KEYS = ("student", "lab", "until", "reason")


class PolicyError(ValueError):
    """A policy file that cannot be used; one line naming the file and the key."""


@dataclass(frozen=True)
class Extension:
    """A student's later due date for one lab, and why."""

    student: str
    lab: str
    until: str
    reason: str


@dataclass(frozen=True)
class Policy:
    """The validated rules of a semester."""

    due: dict[str, str]
    counts: str = "last"
    penalty_percent: float = 0.0
    penalty_per: str = "day"
    penalty_cap_percent: float = 100.0
    late_days: int = 0
    cutoff_hours: float | None = None
    unknown_time: str = "no_penalty"  # an attempt with no known time: never a guessed penalty
    extensions: tuple[Extension, ...] = field(default_factory=tuple)

    def record(self) -> dict[str, Any]:
        """The policy as the ledger keeps it (JSON)."""
        return asdict(self)

    def digest(self) -> str:
        """A digest of the rules, to record a policy row only when it changes."""
        text = json.dumps(self.record(), sort_keys=True).encode("utf-8")
        return "sha256:" + hashlib.sha256(text).hexdigest()[:16]


def policy_from_record(record: dict[str, Any]) -> Policy:
    """The policy a ledger row recorded."""
    extensions = tuple(Extension(**item) for item in record.get("extensions", ()))
    return Policy(**{**record, "extensions": extensions})


def parse_time(text: str) -> datetime.datetime:
    """An ISO 8601 time with a zone (a trailing Z is UTC), as an aware datetime; ValueError else."""
    moment = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone (add Z for UTC, or +01:00)")
    return moment


def utc_text(text: str) -> str:
    """An ISO 8601 time with a zone, as the ledger writes times: UTC, to the second, with Z."""
    return parse_time(text).astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _time(path: Path, where: str, value: Any) -> str:
    try:
        return utc_text(value)
    except (TypeError, ValueError, AttributeError) as exc:
        raise PolicyError(f"{path}: {where} = {value!r} is not an ISO 8601 time with a zone "
                          f"({exc})") from None


def _number(path: Path, key: str, value: Any, whole: bool = False) -> float:
    if (isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
            or value < 0 or (whole and not float(value).is_integer())):
        kind = "a whole number" if whole else "a number"
        raise PolicyError(f"{path}: [semester] {key} = {value!r} must be {kind}, 0 or more")
    return float(value)


def _lab(path: Path, where: str, name: Any) -> str:
    if name not in LABS:
        raise PolicyError(f"{path}: {where} {name!r} is not a lab (known: {', '.join(sorted(LABS))})")
    return str(name)


def _extensions(path: Path, items: Any) -> tuple[Extension, ...]:
    if not isinstance(items, list):
        raise PolicyError(f"{path}: extension must be an array of tables ([[extension]])")
    result = []
    for index, item in enumerate(items, 1):
        where = f"[[extension]] #{index}"
        if not isinstance(item, dict) or sorted(item) != sorted(EXTENSION_KEYS):
            raise PolicyError(f"{path}: {where} needs exactly {', '.join(EXTENSION_KEYS)}")
        result.append(Extension(str(item["student"]), _lab(path, f"{where} lab", item["lab"]),
                                _time(path, f"{where} until", item["until"]), str(item["reason"])))
    return tuple(result)


def _semester(path: Path, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise PolicyError(f"{path}: [semester] must be a table")
    unknown = sorted(set(table) - set(SEMESTER_KEYS))
    if unknown:
        raise PolicyError(f"{path}: [semester] unknown key(s) {unknown}; allowed: {list(SEMESTER_KEYS)}")
    rules: dict[str, Any] = {}
    if "counts" in table:
        if table["counts"] not in COUNTS:
            raise PolicyError(f"{path}: [semester] counts = {table['counts']!r}; one of {list(COUNTS)}")
        rules["counts"] = table["counts"]
    if "penalty_per" in table:
        if table["penalty_per"] not in UNITS:
            raise PolicyError(f"{path}: [semester] penalty_per = {table['penalty_per']!r}; "
                              f"one of {list(UNITS)}")
        rules["penalty_per"] = table["penalty_per"]
    if "unknown_time" in table:
        if table["unknown_time"] not in UNKNOWN_TIME:
            raise PolicyError(f"{path}: [semester] unknown_time = {table['unknown_time']!r}; "
                              f"one of {list(UNKNOWN_TIME)}")
        rules["unknown_time"] = table["unknown_time"]
    for key in ("penalty_percent", "penalty_cap_percent", "cutoff_hours"):
        if key in table:
            rules[key] = _number(path, key, table[key])
    if "late_days" in table:
        rules["late_days"] = int(_number(path, "late_days", table["late_days"], whole=True))
    return rules


def load_policy(path: Path) -> Policy:
    """Read and validate a semester.toml; PolicyError names what is wrong and where."""
    data = read_toml(path, PolicyError)
    unknown = sorted(set(data) - {"semester", "due", "extension"})
    if unknown:
        raise PolicyError(f"{path}: unknown section(s) {unknown}; allowed: semester, due, extension")
    due = data.get("due", {})
    if not isinstance(due, dict) or not due:
        raise PolicyError(f"{path}: [due] must give each lab's due date")
    return Policy(due={_lab(path, "[due]", lab): _time(path, f"[due] {lab}", when)
                       for lab, when in due.items()},
                  extensions=_extensions(path, data.get("extension", [])),
                  **_semester(path, data.get("semester", {})))


def policy_in_force(ledger: Ledger, given: Policy | None, source: str | None,
                    who: str | None) -> Policy | None:
    """The policy given (recorded in the ledger as a `policy` row when it changed), else the
    ledger's latest, else None."""
    if given is not None:
        ledger.append_policy(Entry("policy", "", "", detail={
            "digest": given.digest(), "source": source, "policy": given.record()}), who=who)
        return given
    rows = [e for e in ledger.entries() if e.kind == "policy"]
    return policy_from_record(rows[-1].detail["policy"]) if rows else None
