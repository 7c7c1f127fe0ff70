"""A report folder's shard record (`shard.json`): what it was graded with, as one typed record.

Side: trusted process. `grader.grading.batch` writes it (`shard_record`), `merge` reads it
(`read_shard_record`) and refuses folders whose records differ; both go through ShardRecord.
"""

from __future__ import annotations

import dataclasses
from typing import Any


class NotAShardRecord(ValueError):
    """A shard.json that is not a shard's record (not an object, no shard, a field missing)."""


@dataclasses.dataclass(frozen=True)
class ShardRecord:
    """The shard (K, N; None for a whole class), then what every shard of one grading shares,
    in the order a refusal names the first difference: lab, grader version, report options,
    language, gradebook settings, and every submission id of the class (sorted)."""

    shard: tuple[int, int] | None
    lab: str
    grader_version: str
    options: dict[str, Any]
    lang: str
    gradebook: dict[str, Any]
    class_ids: tuple[str, ...] = dataclasses.field(metadata={"json": "class"})

    def to_json(self) -> dict[str, Any]:
        """The record as shard.json holds it."""
        return {"shard": list(self.shard) if self.shard else None, "lab": self.lab,
                "grader_version": self.grader_version, "options": self.options,
                "lang": self.lang, "gradebook": self.gradebook, "class": list(self.class_ids)}

    def first_difference(self, other: ShardRecord) -> str | None:
        """The name (as shard.json writes it) of the first shared field that differs, if any."""
        for field in dataclasses.fields(self)[1:]:
            if getattr(self, field.name) != getattr(other, field.name):
                return str(field.metadata.get("json", field.name))
        return None


def read_shard_record(raw: Any) -> ShardRecord:
    """The record a shard.json holds; NotAShardRecord when it is not one."""
    if not isinstance(raw, dict) or not raw.get("shard"):
        raise NotAShardRecord("not a shard's record")
    try:
        index, count = raw["shard"]
        return ShardRecord(shard=(int(index), int(count)), lab=str(raw["lab"]),
                           grader_version=str(raw["grader_version"]), options=raw["options"],
                           lang=str(raw["lang"]), gradebook=raw["gradebook"],
                           class_ids=tuple(str(sid) for sid in raw["class"]))
    except (KeyError, TypeError, ValueError):
        raise NotAShardRecord("a shard's record with a field missing or malformed") from None
