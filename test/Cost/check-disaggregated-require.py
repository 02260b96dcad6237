#!/usr/bin/env python3
"""disaggregated.test: the HBM bandwidth `llmsys require` finds for a
disaggregated scenario, checked by evaluating the scenario on a device
with that bandwidth 1% above and 1% below it.

    check-disaggregated-require.py LLMSYS SPEC REQUIRE.json
"""
import json
import os
import subprocess
import sys
import tempfile

llmsys, spec, found = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
row = [r for r in found["requirements"][0]["resources"]
       if r["resource"] == "memory bandwidth"][0]
need = row["need_per_device"]


def met(bandwidth):
    text = open(spec).read().replace(
        "bandwidth = 2 TB/s", f"bandwidth = {bandwidth:.9g} B/s", 1)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.llmsys")
        open(path, "w").write(text)
        out = subprocess.run([llmsys, "eval", "--format=json", path],
                             capture_output=True, text=True, check=True)
    slo = json.loads(out.stdout)["scenarios"][0]["slo"]
    return all(c["met"] for c in slo)


print(f"met 1% above: {met(need * 1.01)}, 1% below: {met(need * 0.99)}")
