#!/usr/bin/env python3
"""Study 5's fitted rates: the numbers the page's prose quotes,
recomputed from `llmsys trends --format=json`, must appear as quoted, and
the findings hold.

    memory-wall.test.py TRENDS.json PAGE.md
"""
import json
import sys

from prose import Prose

t = {x["name"]: x for x in json.load(open(sys.argv[1]))["trends"]}
prose = Prose(sys.argv[2])
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
prose.report("fitted rates")
