"""The score document's JSON Schema, and the caps on a drawn graph read from it.

Side: trusted process. `score.schema.json` is the one place a cap on what a document may hold
is written; the code that builds a check's graph (grading) and the code that draws one
(results) read the numbers here instead of copying them.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).with_name("score.schema.json")


@functools.cache
def score_schema() -> dict[str, Any]:
    """The score document's JSON Schema, as parsed from its file."""
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema


@dataclass(frozen=True)
class GraphCaps:
    """How much a `detail.graph` may hold: nodes, edges, calls, and a node's name and op."""

    nodes: int
    edges: int
    calls: int
    name: int
    op: int


def graph_caps() -> GraphCaps:
    """The caps of `$defs.graph` and `$defs.graph_node` in the schema."""
    definitions = score_schema()["$defs"]
    graph, node = definitions["graph"]["properties"], definitions["graph_node"]["properties"]
    return GraphCaps(nodes=graph["nodes"]["maxItems"], edges=graph["edges"]["maxItems"],
                     calls=graph["calls"]["maxItems"], name=node["name"]["maxLength"],
                     op=node["op"]["maxLength"])


GRAPH_CAPS = graph_caps()
