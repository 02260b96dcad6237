#!/usr/bin/env python3
"""Study 1's path, factor by factor: the numbers the page's prose quotes,
recomputed from `llmsys diff --format=json` over the chain and from the
scenarios' CSV, must appear as quoted, and the findings hold.

    gpu-generations.test.py CHAIN.json PATH.csv GPT3.csv PAGE.md [SERVING.json]
"""
import csv
import json
import sys

from prose import Prose

chain = json.load(open(sys.argv[1]))["chain"]["steps"]
rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[2]))}
rows.update({r["scenario"]: r for r in csv.DictReader(open(sys.argv[3]))})
prose = Prose(sys.argv[4])
quoted, check = prose.quoted, prose.check
step = {s["scenario"]: s for s in chain}


def x(v):
    return f"{v:.3g}x"


r = lambda n: step[n]["step_ratio"]
quoted(f"most of its gain over the A100 ({x(r('path_peaks'))} of the "
       f"{x(step['gpt3_h100']['total_ratio'])})")
quoted(f"its memory little ({x(r('path_memory'))}: the step is compute-bound)")
quoted(f"takes some back ({x(r('path_device'))}:")
quoted(f"its NVLink 4 and NDR add {x(r('gpt3_h100'))}")
quoted(f"fp8 {x(r('gpt3_h100_fp8'))} on the H100, fp4 {x(r('gpt3_b200_fp4'))} on the B200")
quoted(f"adds little for a dense model of this size at this scale "
       f"({x(r('path_gb200_fp4'))}, and {x(r('path_gb200_fp4_mapped'))} more")
total = chain[-1]["total_ratio"]
quoted(f"the chain multiplies to {x(total)} per GPU")
quoted(f"it is {x(total)}. The seed's figure")
quoted(f"is {x(step['gpt3_b200_fp4']['total_ratio'])}, about a third of that")
check("short of 35x", total < 35 / 2)
check("peaks give most of the H100's gain", r("path_peaks") > 2 and abs(r("path_memory") - 1) < 0.1)
check("formats next", min(r("gpt3_h100_fp8"), r("gpt3_b200_fp4")) > max(
    r("path_gb200_fp4"), r("path_gb200_fp4_mapped"), r("gpt3_h100")))
rack = r("path_gb200_fp4") * r("path_gb200_fp4_mapped")
quoted(f"the racks add {r('path_gb200_fp4'):.3g}-{rack:.2g}x")

# Peak ratios against the A100's dense bf16 (312 TFLOP/s): the B200's,
# GB200's and GB300's dense fp4 peaks (stdlib/hardware/nvidia.llmsys).
quoted(f"the B200's dense fp4 peak is {9000 / 312:.1f}x the A100's")
quoted(f"the GB200's {10000 / 312:.1f}x and the GB300's {15000 / 312:.1f}x")
mfu = [float(rows[n]["mfu"]) for n in ("path_gb200_fp4", "path_gb200_fp4_mapped", "path_gb300_fp4")]
quoted(f"its MFU against the fp4 peak is {min(mfu):.2f}-{max(mfu):.2f} on the racks "
       f"({float(rows['gpt3_a100']['mfu']):.2f} for the A100 in bf16)")
comm = [float(rows[n]["comm_share"]) for n in ("path_gb200_fp4", "path_gb200_fp4_mapped", "path_gb300_fp4")]
quoted(f"(`comm_share` {min(comm):.2f}-{max(comm):.2f})")

# Serving (serving.llmsys), when its chain is given.
if len(sys.argv) > 5:
    sv = {s["scenario"]: s for s in json.load(open(sys.argv[5]))["chain"]["steps"]}
    sr = lambda n: sv[n]["step_ratio"]
    quoted(f"fp8 weights and KV cache on the H100 give {x(sr('gpt3_serve_h100_fp8'))}")
    quoted(f"the B200 in fp8 {x(sr('gpt3_serve_b200_fp8'))} more")
    quoted(f"fp4 weights add {x(sr('gpt3_serve_b200_fp4'))}, and the NVL72 rack "
           f"{x(sr('gpt3_serve_gb200_fp4'))}")
    quoted(f"the chain multiplies to {x(sv['gpt3_serve_gb200_fp4']['total_ratio'])} per GPU at this SLO")
    check("formats give serving more than training",
          sr("gpt3_serve_h100_fp8") > r("gpt3_h100_fp8"))
    check("serving short of 35x", sv["gpt3_serve_gb200_fp4"]["total_ratio"] < 35 / 2)

prose.report("path prose and findings")
