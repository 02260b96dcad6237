#!/usr/bin/env python3
"""A diff chain's JSON against its diffs: each step's value is the figure
on its side of the pairs, its step ratio B / A of its pair, its total the
product of the steps.

    check-chain.py CHAIN.json KEY
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
key = sys.argv[2]
diffs, chain = doc["diffs"], doc["chain"]
steps = chain["steps"]
assert chain["figure"] == key, chain["figure"]
assert len(steps) == len(diffs) + 1, (len(steps), len(diffs))


def figure(d, side):
    return next(f[side] for f in d["figures"] if f["figure"] == key)


total = 1.0
for i, d in enumerate(diffs):
    assert steps[i]["scenario"] == d["a"] and steps[i + 1]["scenario"] == d["b"]
    a, b = figure(d, "a"), figure(d, "b")
    assert steps[i]["value"] == a and steps[i + 1]["value"] == b
    assert abs(steps[i + 1]["step_ratio"] / (b / a) - 1) < 1e-12
    total *= b / a
    assert abs(steps[i + 1]["total_ratio"] / total - 1) < 1e-9
    # Each change names a changed input with its two values.
    paths = {x["path"]: x for x in d["inputs"]}
    for c in steps[i + 1]["changed"]:
        path, values = c.split(": ", 1)
        assert path in paths, c
        assert values == f"{paths[path]['a'] or '-'} -> {paths[path]['b'] or '-'}", (c, paths[path])
    assert steps[i + 1]["changed"] or not d["inputs"]
assert steps[0]["step_ratio"] is None and steps[0]["total_ratio"] == 1
print(f"{len(diffs)} diffs, {len(steps)} steps: ok")
