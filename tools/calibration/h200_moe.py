#!/usr/bin/env python3
"""Fits the H100 die's serving expert-GEMM knobs (`efficiency.expert_memory`,
`expert_overhead`) to this project's own H200 grouped-GEMM timings.

reference/kernels/h200-2026-12-04/moe_formats.csv holds PyTorch's grouped
GEMMs (torch._grouped_mm in BF16, torch._scaled_grouped_mm in FP8 with
row-wise scales; CUTLASS grouped kernels on Hopper, as TensorRT-LLM's MoE
GEMMs are) over the experts of DeepSeek-V3, Qwen3-235B-A22B and
GPT-OSS-120B, up and down projections, 8 or 32 experts, 1 to 128 tokens an
expert. At up to 64 tokens an expert they stream the experts' weights;
llmsys prices such a GEMM as lib/Cost/OpCost.cpp does a serving engine's
expert GEMM (docs/cost-model.md): its bytes (the weights, the tokens in
and out) at `expert_memory` of the HBM bandwidth, plus the part's kernel overhead and `expert_overhead`.
The script searches a grid for the pair that minimises the mean |error|
over those timings and prints each group's error; the values are written
by hand into stdlib/hardware/nvidia.llmsys (H100_SXM).

    python3 tools/calibration/h200_moe.py
"""
import argparse
import csv
import itertools
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "reference", "kernels", "h200-2026-12-04",
                    "moe_formats.csv")
BANDWIDTH = 4.8e12   # H200 hbm.bandwidth (stdlib)
LAUNCH = 2e-6        # H100_SXM efficiency.kernel_overhead (stdlib)
MAX_TOKENS = 64      # memory-bound: beyond, the products take over


def timings(path):
    out = []
    for r in csv.DictReader(open(path)):
        if int(r["tokens_per_expert"]) <= MAX_TOKENS:
            # The bytes llmsys counts for the op (lib/Passes/ExpandLayers.cpp):
            # the experts' weights, and the tokens in and out, all in the
            # format (FP8 activations too).
            size = 2 if r["format"] == "bf16" else 1
            tokens = int(r["experts"]) * int(r["tokens_per_expert"])
            n, k = int(r["n"]), int(r["k"])
            nbytes = (int(r["experts"]) * n * k + tokens * (n + k)) * size
            out.append((r["format"], r["model"], r["gemm"], int(r["experts"]),
                        int(r["tokens_per_expert"]), nbytes, float(r["seconds"])))
    return out


def predict(row, memory, overhead):
    return row[5] / (BANDWIDTH * memory) + LAUNCH + overhead


def errors(rows, memory, overhead):
    return [predict(r, memory, overhead) / r[6] - 1 for r in rows]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=DATA)
    a = p.parse_args()
    rows = timings(a.data)
    grid = itertools.product([x / 1000 for x in range(400, 1001, 5)],
                             [x / 10 * 1e-6 for x in range(0, 401, 2)])
    memory, overhead = min(grid, key=lambda q: sum(abs(e) for e in errors(rows, *q)))
    errs = errors(rows, memory, overhead)
    print("fit: expert_memory %.3f, expert_overhead %.1f us (mean |error| %.1f%% "
          "over %d grouped GEMMs, 1 to %d tokens an expert)" %
          (memory, overhead * 1e6, 100 * sum(abs(e) for e in errs) / len(errs),
           len(rows), MAX_TOKENS))
    groups = {}
    for r, e in zip(rows, errs):
        groups.setdefault((r[0], r[1]), []).append(e)
    for (fmt, model), es in sorted(groups.items()):
        print("  %-5s %-13s %3d  mean |error| %4.1f%%  mean %+5.1f%%" %
              (fmt, model, len(es), 100 * sum(abs(e) for e in es) / len(es),
               100 * sum(es) / len(es)))


if __name__ == "__main__":
    main()
