#!/usr/bin/env python3
"""`llmsys require` against `llmsys eval`: for the compute and memory
bandwidth requirements of each serve scenario of a file whose accelerator
writes `bf16 = X` and `bandwidth = Y` (the device's) literally, a device
with 0.1% more than the need meets every SLO, and one with 0.1% less misses
one. Prints one line per check; exits 1 on any failure."""
import json
import os
import re
import subprocess
import sys

llmsys, spec, work = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(spec).read()
req = json.loads(subprocess.check_output([llmsys, "require", "--format=json", spec]))
fields = {"compute": r"bf16 = [^;}\n]+", "memory bandwidth": r"bandwidth = [^;}\n]+ TB/s"}
units = {"compute": "bf16 = {} FLOP/s", "memory bandwidth": "bandwidth = {} B/s"}
failed = False
for r in req["requirements"]:
    for row in r["resources"]:
        name = row["resource"]
        if name not in fields or row["kind"] != "needed":
            continue
        for factor, want in ((1.001, True), (0.999, False)):
            value = repr(row["need_per_device"] * factor)
            changed, n = re.subn(fields[name], units[name].format(value), text, count=1)
            assert n == 1, name
            path = os.path.join(work, "scaled.llmsys")
            open(path, "w").write(changed)
            out = json.loads(subprocess.check_output(
                [llmsys, "eval", "--format=json", "--scenario", r["scenario"], path]))
            met = all(s["met"] for s in out["scenarios"][0]["slo"])
            ok = met == want
            failed |= not ok
            print(f"{r['scenario']} {name} x{factor}: {'met' if met else 'missed'}"
                  f" ({'ok' if ok else 'WRONG'})")
sys.exit(1 if failed else 0)
