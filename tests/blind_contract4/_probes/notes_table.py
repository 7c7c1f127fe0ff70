"""Print the per-engine tables of tests/blind_contract4/README.md from the NOTEs and the probe run.

Usage: python tests/blind_contract4/_probes/notes_table.py
Reads every <lab>/<engine>/NOTE.toml and last_run.json (probe.py --json); no grading result is
read (the corpus is graded by the lead, after it is committed).
"""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent
LABS = ["lab01_graph", "lab02_ops", "lab03_backprop", "lab04_xor"]


def main() -> None:
    """Print one markdown table per lab."""
    run = json.loads((HERE / "last_run.json").read_text(encoding="utf-8"))
    for lab in LABS:
        notes = {n.parent.name: tomllib.loads(n.read_text(encoding="utf-8"))
                 for n in sorted((CORPUS / lab).glob("*/NOTE.toml"))}
        order = sorted(notes, key=lambda k: ({"correct": 0, "bug": 1, "equivalent": 2}[notes[k]["intent"]], k))
        counts = {i: sum(1 for m in notes.values() if m["intent"] == i) for i in ("correct", "bug", "equivalent")}
        print(f"### {lab} ({counts['correct']} correct, {counts['bug']} bug, {counts['equivalent']} equivalent)\n")
        print("| engine | intent | class / dimension | what the code does differently | pitfall_guess | edited from "
              "| shown by (probe.py) | probe verdict |")
        print("|---|---|---|---|---|---|---|---|")
        for name in order:
            m = notes[name]
            row = run.get(f"{lab}/{name}", {})
            shown = ", ".join(row.get("differ", [])) or "matches on every probe"
            verdict = "ok" if row.get("ok") else "NOT OK"
            desc = m["description"].replace("|", "/")
            print(f"| `{name}` | {m['intent']} | {m['dimension']} | {desc} | `{m['pitfall_guess']}` "
                  f"| `{m['edited_from']}` | {shown} | {verdict} |")
        print()


if __name__ == "__main__":
    main()
