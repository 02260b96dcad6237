#!/usr/bin/env python3
"""Checks that every figure of `llmsys schema` has one name and one key
everywhere: the key in eval's JSON, CSV and Markdown and in sweep CSV and
JSON; the name in sweep text columns; name and key both in
`diff --fail-if`. One line per check, 'ok' or 'FAILED: ...'.

    check-figure-keys.py SPEC SCHEMA.md
SPEC has a train scenario `t`, a serve scenario `s` with every figure
computable, and sweeps `st` / `ss` over them whose `where` names every
figure of the kind.
"""
import csv
import io
import json
import re
import subprocess
import sys

spec, schema_md = sys.argv[1], sys.argv[2]


def run(*args, ok=True):
    p = subprocess.run(["llmsys", *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        print(f"FAILED: llmsys {' '.join(args)}: {p.stderr}")
        sys.exit(1)
    return p


# The figure tables of `llmsys schema`: (kind, name, key).
figures = {"train": [], "serve": []}
booleans = set()
kind = None
for line in open(schema_md):
    m = re.match(r"### `(\w+)`", line)
    if m:
        kind = m.group(1)
    m = re.match(r"\| `(\w+)` \| `(\w+)` \| ([^|]+) \| (higher|lower) \|", line)
    if m and kind in figures:
        figures[kind].append((m.group(1), m.group(2)))
        if m.group(3).strip() == "true or false":
            booleans.add(m.group(1))
for k in figures:
    print(f"{k} figures: {'ok' if len(figures[k]) > 5 else 'FAILED: ' + str(figures[k])}")

scenario = {"train": "t", "serve": "s"}
sweep = {"train": "st", "serve": "ss"}
doc = json.loads(run("eval", "--format=json", spec).stdout)
by_name = {s["name"]: s for s in doc["scenarios"]}
csv_rows = {r["scenario"]: r for r in csv.DictReader(io.StringIO(run("eval", "--format=csv", spec).stdout))}
md = run("eval", "--format=md", spec).stdout
md_keys = {}
for part in md.split("## ")[1:]:
    name = re.match(r"\w+ `(\w+)`", part).group(1)
    md_keys[name] = set(re.findall(r"^\| (\w+) \|", part, re.M))

for k, figs in figures.items():
    name = scenario[k]
    keys = [key for _, key in figs]
    missing = [x for x in keys if by_name[name].get(x) is None]
    print(f"{k} json: {'ok' if not missing else 'FAILED: ' + str(missing)}")
    missing = [x for x in keys if csv_rows[name].get(x) in (None, "")]
    print(f"{k} csv: {'ok' if not missing else 'FAILED: ' + str(missing)}")
    missing = [x for x in keys if x not in md_keys[name]]
    print(f"{k} markdown: {'ok' if not missing else 'FAILED: ' + str(missing)}")
    # Sweeps: keys in CSV and JSON, names in text.
    header = run("sweep", spec, "--sweep=" + sweep[k], "--format=csv").stdout.splitlines()[0].split(",")
    missing = [x for x in keys if x not in header]
    print(f"{k} sweep csv: {'ok' if not missing else 'FAILED: ' + str(missing)}")
    points = json.loads(run("sweep", spec, "--sweep=" + sweep[k], "--format=json").stdout)["results"]
    missing = [x for x in keys if x not in points[0]]
    print(f"{k} sweep json: {'ok' if not missing else 'FAILED: ' + str(missing)}")
    text = run("sweep", spec, "--sweep=" + sweep[k]).stdout.splitlines()[1].split()
    missing = [n for n, _ in figs if n not in text]
    print(f"{k} sweep text: {'ok' if not missing else 'FAILED: ' + str(missing)}")
    # --fail-if: a scenario against itself crosses no threshold (1.000x)
    # and knows every figure by name and by key.
    bad = []
    for n, key in figs:
        for word in sorted({n, key}):
            # A boolean takes '== true|false' (a ratio is refused).
            test = f"{word} != true" if n in booleans else f"{word} > 1.5x"
            p = run("diff", f"{spec}:{name}", f"{spec}:{name}", "--fail-if", test, ok=False)
            if p.returncode != 0:
                bad.append(word)
    print(f"{k} diff --fail-if: {'ok' if not bad else 'FAILED: ' + str(bad)}")
