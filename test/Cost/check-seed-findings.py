#!/usr/bin/env python3
"""Prints the seeds' inference findings as llmsys computes them, one line
each, for FileCheck: the numbers come from `llmsys eval --format=json`."""
import json
import subprocess
import sys

out = subprocess.run(["llmsys", "eval", "--format=json", sys.argv[1]],
                     check=True, capture_output=True, text=True).stdout
s = {x["name"]: x for x in json.loads(out)["scenarios"]}
base, bw, comp = s["base"], s["more_bandwidth"], s["more_compute"]
print("prefill bound:", base["prefill"]["bound"])
print("decode bound:", base["decode"]["bound"])
print("2x bandwidth: decode x%.2f, prefill x%.2f" %
      (base["tpot_s"] / bw["tpot_s"], base["ttft_s"] / bw["ttft_s"]))
print("2x compute: decode x%.2f, prefill x%.2f" %
      (base["tpot_s"] / comp["tpot_s"], base["ttft_s"] / comp["ttft_s"]))
enc = s["encoder"]["prefill"]["intensity_flops_per_byte"]
dec = s["decoder"]["decode"]["intensity_flops_per_byte"]
print("intensity: encoder %.0f, decoder generation %.1f FLOP/B, ratio %.0f" %
      (enc, dec, enc / dec))
