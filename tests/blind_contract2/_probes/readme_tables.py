"""Print the per-engine tables of tests/blind_contract2/README.md from the NOTEs and the graded runs.

Usage: python tests/blind_contract2/_probes/readme_tables.py
Reads every <lab>/<engine>/NOTE.toml, before_hidden.json (bench/corpus_verdicts.py --json),
before_public.log (bench/public_catch_rate.py: its "uncaught:" lines) and
before_equivalent.csv (python -m grader grade on the eq_* engines, the class CSV concatenated).
"""
from __future__ import annotations

import csv
import json
import re
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent
LABS = ["lab01_graph", "lab02_ops", "lab03_backprop", "lab04_xor"]


def main() -> None:
    """Print one markdown table per lab."""
    hidden = {(r["lab"], r["engine"]): r for r in json.loads((HERE / "before_hidden.json").read_text())}
    public_log = (HERE / "before_public.log").read_text()
    uncaught = set(re.findall(r"uncaught: (\S+):", public_log))
    not_passing = set(re.findall(r"correct engine not passing: (\S+):", public_log))
    eq = {}
    eq_csv = HERE / "before_equivalent.csv"
    if eq_csv.exists():
        for row in csv.DictReader(eq_csv.open()):
            eq[row["submission"]] = row
    order = {"correct": 0, "bug": 1, "equivalent": 2}
    for lab in LABS:
        notes = []
        for path in sorted((CORPUS / lab).glob("*/NOTE.toml")):
            notes.append((path.parent.name, tomllib.loads(path.read_text())))
        notes.sort(key=lambda n: (order[n[1]["intent"]], n[0]))
        counts = {k: sum(1 for _, m in notes if m["intent"] == k) for k in order}
        print(f"### {lab} ({counts['correct']} correct, {counts['bug']} bug, {counts['equivalent']} equivalent)\n")
        print("| engine | intent | class / dimension | what the code does differently | pitfall_guess | edited from "
              "| shown by (probe.py) | hidden, before | public, before |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name, m in notes:
            row = hidden.get((lab, name))
            if row is None and name in eq:
                r = eq[name]
                h = f"{float(r['score']):g}/{float(r['max_score']):g} {r['pitfalls'] or '(none)'}"
            elif row is None:
                h = "-"
            else:
                h = f"{row['score']:g}/{row['max_score']:g} {','.join(row['pitfalls']) or '(none)'}"
            full = row is not None and row["score"] == row["max_score"]
            if m["intent"] == "bug" and full:
                h = f"**{h}**"
            if m["intent"] == "bug":
                p = "**not caught**" if name in uncaught else "caught"
            elif m["intent"] == "correct":
                p = "does not pass" if name in not_passing else "passes"
            else:
                p = "(not run)"
            shown = m.get("shown_by", "").removeprefix("probe.py: ") or "-"
            if m["intent"] != "bug":
                shown = "matches on every probe" if shown in ("-", "(matches on every probe)") else shown
            desc = m["description"].replace("|", "/")
            print(f"| `{name}` | {m['intent']} | {m['dimension']} | {desc} | `{m['pitfall_guess']}` | "
                  f"`{m['edited_from']}` | {shown} | {h} | {p} |")
        print()


if __name__ == "__main__":
    main()
