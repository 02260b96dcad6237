#!/usr/bin/env python3
"""Recomputes, from the JSON documents the test saved, each value that
tools/gen-doc-outputs.py generated into Inputs/generated-values.md, and
fails unless the page shows exactly those.

    check-generated-values.py PAGE EVAL.json SWEEP.json REQUIRE.json DIFF.json
"""
import json
import re
import sys

page = open(sys.argv[1]).read()
ev, sw, rq, df = (json.load(open(p)) for p in sys.argv[2:6])
got = re.findall(r"-->([^<]*)<!--=-->", page)
s = {x["name"]: x for x in ev["scenarios"]}["dram_b1"]
ops = s["operators"]
want = [
    f"{s['tpot_s'] * 1000:.4f}",
    f"{s['inputs']['tp']:d}",
    f"{s['memory']['kv_cache_bytes'] / 1e9:.4f}",
    f"{[o for o in ops if o['name'] == 'mlp.up' and o['phase'] == 'decode'][0]['time_s'] * 1e6:.4f}",
    f"{sum(o['time_s'] for o in ops if o['phase'] == 'decode') * 1e6:.4f}",
    f"{sw['results'][0]['tpot_s'] * 1000:.4f}",
    f"{sw['points']:,d}",
    f"{[r for r in [x for x in rq['requirements'] if x['scenario'] == 'uc_long_context'][0]['resources'] if r['resource'] == 'compute'][0]['ratio']:.4f}",
    f"{[f for f in df['diffs'][0]['figures'] if f['figure'] == 'tpot_s'][0]['ratio']:.4f}",
    "0.65",
]
for i, (g, w) in enumerate(zip(got, want)):
    print(f"value {i}: {'ok' if g == w else f'FAILED: page {g!r}, json {w!r}'}")
print("values:", "ok" if got == want else f"FAILED ({len(got)} on the page)")
