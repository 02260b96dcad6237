#!/usr/bin/env python3
"""Study 5's fitted rates: the numbers the page's prose quotes,
recomputed from `llmsys trends --format=json`, must appear as quoted, and
the findings hold; the six-year projection's findings that the page's
generated numbers alone do not carry, from `llmsys eval --format=json` of
trends.llmsys; and the audit of the page's prose.

    memory-wall.test.py TRENDS.json EVAL.json PAGE.md
"""
import json
import sys

from prose import Prose

t = {x["name"]: x for x in json.load(open(sys.argv[1]))["trends"]}
ev = {x["name"]: x for x in json.load(open(sys.argv[2]))["scenarios"]}
prose = Prose(sys.argv[3])
quoted, check = prose.quoted, prose.check


g = lambda n: t[n]["growth"]
ratio = lambda n: t[n]["growth"] / t[n]["reference"]
quoted(f"the parts grow x{g('flops_headline'):.2f} per two years "
       f"({ratio('flops_headline'):.2f}x the seed's rate)")
quoted(f"they grow x{g('flops_fp16'):.2f} ({ratio('flops_fp16'):.2f}x of it)")
quoted(f"HBM bandwidth grows x{g('dram'):.2f} per two years "
       f"({ratio('dram'):.2f}x the seed's 1.6x)")
quoted(f"NVLink bandwidth x{g('interconnect'):.2f} ({ratio('interconnect'):.2f}x its 1.4x)")
quoted(f"x{g('flops_headline'):.2f} against x{g('dram'):.2f} per two years")
years = {(x["first_year"], x["last_year"]) for x in t.values()}
quoted(f"The fits span {min(a for a, _ in years)}-{max(b for _, b in years)}")
check("headline above the seed, one format below",
      g("flops_headline") > 3.0 > g("flops_fp16"))
check("memory and links above the seed's", ratio("dram") > 1 and ratio("interconnect") > 1)
check("the wall stands in headline figures", g("flops_headline") > 1.5 * g("dram"))
check("references are the seed's", [t[n]["reference"] for n in
      ("flops_fp16", "flops_headline", "dram", "interconnect")] == [3.0, 3.0, 1.6, 1.4])

# Six years at the historical pace (trends.llmsys).
def peak(n):
    p = ev[n]["prefill"]
    return p["flops"] / p["time_s"] / p["achieved_compute_fraction"]


def dram(n):
    p = ev[n]["prefill"]
    return p["bytes"] / p["time_s"] / p["achieved_bandwidth_fraction"]


b, b6, g, g6 = "bert_encode", "bert_encode_2026", "gpt2_generate", "gpt2_generate_2026"
check("encoding: compute-bound in 2020, memory bandwidth-bound by 2026",
      ev[b]["prefill"]["bound"] == "compute" and ev[b6]["prefill"]["bound"] == "memory bandwidth")
check("encoding gains less than the FLOPs",
      ev[b]["e2e_s"] / ev[b6]["e2e_s"] < peak(b6) / peak(b))
check("generation's time per token gains less than even the DRAM bandwidth",
      ev[g]["tpot_s"] / ev[g6]["tpot_s"] < dram(g6) / dram(g))
check("generation's prefill all but disappears, memory bandwidth-bound by 2026",
      ev[g6]["ttft_s"] / ev[g6]["e2e_s"] < 0.01 and ev[g6]["prefill"]["bound"] == "memory bandwidth")
check("generation's decode memory-bound", ev[g]["decode"]["bound"] == "memory bandwidth")
prose.report("fitted rates")
