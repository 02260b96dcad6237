#!/usr/bin/env python3
"""Fits the A100's kernel-efficiency knobs to the LLMCompass timings.

The 38 A100 operator timings of measured_dev.csv from LLMCompass (the 20
LLMC-GEMM-A100-* torch.matmul shapes and the 18 LLMC-LAYER-{prefill,decode}-*
operators of a GPT-3 175B layer on 4 A100s, batch 8, 2048 tokens / 3072 of
context) were each timed alone from Python, so each includes a per-call
harness cost. This script searches a grid for the values that minimise the
mean |error| of the roofline of lib/Cost/OpCost.cpp (tile, wave, split-K,
half-size tiles at efficiency.small_tile = 0.9, the K-loop cost
k / (K + k)) over:

    compute      efficiency.compute
    k            efficiency.k_overhead
    harness      the per-call cost (a property of the measurements)
    elementwise  efficiency.elementwise (LayerNorm, GeLU, softmax)
    memory       efficiency.memory (weight streaming)
    kv           efficiency.kv_cache (decode attention reading the cache):
                 the two decode-attention timings disagree (the mean |error|
                 is flat between them), so the mean of the fractions they
                 imply, after the harness cost, is taken

and prints the best point and each timing's error. The result is written
by hand into stdlib/hardware/nvidia.llmsys (A100_SXM_40GB) with this
script's name; re-run it when OpCost.cpp's formulas change.

    python3 tools/calibration/a100_llmcompass.py [measured_dev.csv]
"""
import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "..", "..", "reference", "validation",
                   "measured_dev.csv")
PEAK, BW, UNITS, TILE, TILE_K, SMALL = 312e12, 2039e9, 108, 128, 32, 0.9


def up(v, t):
    return math.ceil(v / t) * t


def gemm_time(m, n, k, batch, compute, kcost, memory):
    best = 0
    for tm, tn, factor in ((TILE, TILE, 1), (TILE, TILE // 2, SMALL),
                           (TILE // 2, TILE, SMALL), (TILE // 2, TILE // 2, SMALL)):
        tm, tn = min(tm, up(m, 16)), min(tn, up(n, 16))
        tile = m * n * k / (up(m, tm) * up(n, tn) * up(k, TILE_K))
        tiles, loop = math.ceil(m / tm) * math.ceil(n / tn) * batch, k
        if tiles < UNITS:
            split = max(1, min(UNITS // tiles, max(1, k // (4 * TILE_K))))
            tiles, loop = tiles * split, k / split
        wave = tiles / up(tiles, UNITS)
        best = max(best, factor * tile * wave * loop / (loop + kcost))
    flops = 2 * m * n * k * batch
    bytes_ = 2 * (m * k + k * n + m * n) * batch
    return max(flops / (PEAK * compute * best), bytes_ / (BW * memory))


def timings(path):
    """(label, kind, shape, measured seconds)"""
    out = []
    for r in csv.DictReader(open(path)):
        if r["id"].startswith("LLMC-GEMM-A100-"):
            shape = r["model"].split("M=")[1].strip('"')
            m, n, k = (int(x.split("=")[-1]) for x in shape.split(","))
            out.append((r["id"], "gemm", (m, n, k, 1), float(r["measured_value"]) * 1e-3))
    # One layer of GPT-3 175B on 4 devices: batch 8, 24 heads of 128 per
    # device; prefill of 2048 tokens, decode at 3072 tokens of context.
    b, s, h, d, heads, ctx = 8, 2048, 12288, 128, 24, 3072
    layer = {
        "prefill-Q_K_V": ("gemm", (b * s, 3 * h // 4, h, 1)),
        "prefill-Q_mul_K": ("gemm", (s, s, d, b * heads)),
        "prefill-A_mul_V": ("gemm", (s, d, s, b * heads)),
        "prefill-Wo_proj": ("gemm", (b * s, h, h // 4, 1)),
        "prefill-W1_proj": ("gemm", (b * s, h, h, 1)),
        "prefill-W2_proj": ("gemm", (b * s, h, h, 1)),
        "prefill-Softmax": ("elementwise", 2 * 2 * b * heads * s * s),
        "prefill-LayerNorm_MHA": ("elementwise", 2 * 2 * b * s * h),
        "prefill-LayerNorm_FFN": ("elementwise", 2 * 2 * b * s * h),
        "prefill-GeLU": ("elementwise", 2 * 2 * b * s * h),
        "decode-Q_K_V": ("gemm", (b, 3 * h // 4, h, 1)),
        "decode-Q_mul_K": ("kv", 2 * b * heads * ctx * d),
        "decode-A_mul_V": ("kv", 2 * b * heads * ctx * d),
        "decode-Wo_proj": ("gemm", (b, h, h // 4, 1)),
        "decode-W1_proj": ("gemm", (b, h, h, 1)),
        "decode-W2_proj": ("gemm", (b, h, h, 1)),
        "decode-Softmax": ("elementwise", 2 * 2 * b * heads * ctx),
        "decode-LayerNorm_MHA": ("elementwise", 2 * 2 * b * h),
        "decode-LayerNorm_FFN": ("elementwise", 2 * 2 * b * h),
        "decode-GeLU": ("elementwise", 2 * 2 * b * h),
    }
    for r in csv.DictReader(open(path)):
        key = r["id"].replace("LLMC-LAYER-", "")
        if key in layer:
            kind, shape = layer[key]
            out.append((r["id"], kind, shape, float(r["measured_value"]) * 1e-3))
    return out


def predict(t, p):
    compute, kcost, harness, elementwise, memory, kv = p
    kind, shape = t[1], t[2]
    if kind == "gemm":
        return gemm_time(*shape, compute, kcost, memory) + harness
    eff = {"elementwise": elementwise, "kv": kv}.get(kind, memory)
    return shape / (BW * eff) + harness


def main():
    ts = timings(sys.argv[1] if len(sys.argv) > 1 else CSV)
    grid = [(c / 100, k, h * 1e-6, e / 100, m / 100, v / 100)
            for c in (90, 92, 93, 94, 95, 96) for k in range(0, 520, 40)
            for h in (5, 10, 15, 20, 25, 30) for e in (55, 60, 65, 70, 75)
            for m in (75, 80, 85, 90) for v in (90,)]
    def score(p):
        return sum(abs(predict(t, p) / t[3] - 1) for t in ts) / len(ts)
    best = min(grid, key=score)
    implied = [t[2] / (BW * (t[3] - best[2])) for t in ts if t[1] == "kv"]
    best = best[:5] + (round(sum(implied) / len(implied), 2),)
    print("kv_cache implied by the decode attention timings:",
          ", ".join(f"{x:.3f}" for x in implied))
    print(f"{len(ts)} timings: compute {best[0]}, k_overhead {best[1]}, "
          f"harness {best[2] * 1e6:.0f} us, elementwise {best[3]}, "
          f"memory {best[4]}, kv_cache {best[5]}: "
          f"mean |error| {100 * score(best):.1f}%")
    for t in ts:
        print(f"  {t[0]:<36} {100 * (predict(t, best) / t[3] - 1):+6.1f}%")


if __name__ == "__main__":
    main()
