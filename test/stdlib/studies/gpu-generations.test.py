#!/usr/bin/env python3
"""Study 1's path, factor by factor: the numbers the page's prose quotes,
recomputed from `llmsys diff --format=json` over the chain, from the
scenarios' CSV and JSON and from `llmsys validate --format=json`, must
appear as quoted, the findings hold, and no figure of the page's prose is
typed by hand (prose.py's audit).

    gpu-generations.test.py CHAIN.json PATH.csv GPT3.csv PAGE.md SERVING.json GPT3.json VALIDATE.json
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

# The peak ratios (the B200's, GB200's and GB300's dense fp4 against the
# A100's dense bf16) are written by the page generator, each peak as the
# scenario's model FLOP rate over its MFU.
mfu = [float(rows[n]["mfu"]) for n in ("path_gb200_fp4", "path_gb200_fp4_mapped", "path_gb300_fp4")]
quoted(f"its MFU against the fp4 peak is {min(mfu):.2f}-{max(mfu):.2f} on the racks "
       f"({float(rows['gpt3_a100']['mfu']):.2f} for the A100 in bf16)")
comm = [float(rows[n]["comm_share"]) for n in ("path_gb200_fp4", "path_gb200_fp4_mapped", "path_gb300_fp4")]
quoted(f"(`comm_share` {min(comm):.2f}-{max(comm):.2f})")

# Serving (serving.llmsys).
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

# The bf16 steps (gpt3_175b.llmsys, JSON): the page generates the ends of
# the memory-bound and bubble shares' ranges from the scenarios below, which
# must be the ends; the collectives take the same time in every format.
ev = {s["name"]: s for s in json.load(open(sys.argv[6]))["scenarios"]}
bf16 = ("gpt3_a100", "gpt3_h100", "gpt3_b200")


def share(n, key):
    return ev[n]["breakdown"][key] / ev[n]["step_time_s"]


mem = {n: share(n, "memory_bound_s") for n in bf16}
bubble = {n: share(n, "bubble_s") for n in bf16}
check("memory-bound shares run from the A100's to the H100's",
      min(mem, key=mem.get) == "gpt3_a100" and max(mem, key=mem.get) == "gpt3_h100")
check("bubble shares run from the B200's to the A100's",
      min(bubble, key=bubble.get) == "gpt3_b200" and max(bubble, key=bubble.get) == "gpt3_a100")
comm = lambda n: ev[n]["comm_share"] * ev[n]["step_time_s"]
check("exposed communication the same in every format",
      abs(comm("gpt3_h100_fp8") / comm("gpt3_h100") - 1) < 1e-6
      and abs(comm("gpt3_b200_fp4") / comm("gpt3_b200") - 1) < 1e-6)

# The calibration of `sustained` (llmsys validate over the training cases):
# the cases fitted on for the A100 and for the H100 die, and their mean
# |error|.
cases = json.load(open(sys.argv[7]))["cases"]


def fitted(*parts):
    return [c for c in cases if c["accelerator"] in parts and c["calibrates"]]


def mean_abs(cs):
    return sum(abs(c["error"]) for c in cs) / len(cs)


a100 = fitted("A100_SXM_40GB", "A100_SXM_80GB")
h100 = fitted("H100_SXM", "H200")
quoted(f"({len(a100)} cases, mean |error| {mean_abs(a100):.1%};")
quoted(f"({len(h100)} cases, Megatron 2024's H100 runs, torchtitan's H200 "
       f"ones, two dense Megatron-Bridge Llama runs and two of its "
       f"fine-tuning runs, one of the "
       f"Megatron-Core MoE report's and thirteen of MLPerf Training's, "
       f"mean |error| {mean_abs(h100):.1%})")

prose.report("path prose and findings")
