#!/usr/bin/env python3
"""Checks, and fits, the GEMM knobs of the H100 die on this project's own
H200 GEMM timings.

reference/kernels/h200-2026-12-04/gemm.csv holds BF16 and FP8 (per-tensor
scale) GEMMs timed on one H200 (cuBLAS through PyTorch; tools/measure/
kernels.py): square shapes, a K sweep, the forward, input-gradient and
weight-gradient GEMMs of Llama 3 8B, 70B and 405B layers (the last two at
TP 8), DeepSeek-V3 expert shapes and thin (decode) shapes. The H200 is the
H100 SXM's die (it `extends H100_SXM` in stdlib/hardware/nvidia.llmsys), so
its GEMMs price the H100's `efficiency.compute`, `narrow`, `k_overhead`,
`small_tile` and tile sizes; the H200's own `memory` prices the thin ones.

Each shape becomes the forward `mlp.up` of a one-layer model (hidden = K,
ffn = N, M tokens), costed by `llmsys eval` on a copy of the stdlib with
the H100's `sustained` and `narrow` set to 1 (a kernel timing is a short
run) and `compute` to 0.001, so that every GEMM is compute-bound and the
time llmsys gives, less the kernel overhead, is 1000 times the compute
time at compute = 1 (compute divides it and nothing else); this script
then applies
compute, narrow and the memory bound itself (`max(compute time / (compute
x narrow), bytes / (bandwidth x memory)) + kernel_overhead`, as
lib/Cost/OpCost.cpp does) and prints each shape's error.

    python3 tools/calibration/h200_gemm.py              # the stdlib as it is
    python3 tools/calibration/h200_gemm.py --fit        # grid over the knobs

The fit searches tile sizes, k_overhead and small_tile (one llmsys run per
point) and, for each, compute, narrow and memory (analytically); it
minimises the mean |error| over all timings and prints the best point.
"""
import argparse
import csv
import itertools
import os

import llmsys_run

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "reference", "kernels", "h200-2026-12-04", "gemm.csv")
ACCEL = "H100_SXM"
BANDWIDTH = 4.8e12          # H200 hbm.bandwidth (stdlib)
OVERHEAD = 2e-6             # H100_SXM efficiency.kernel_overhead (stdlib)
SCALE = 0.001               # compute while llmsys prices the shapes
FORMATS = {"bf16": None, "fp8": "fp8"}


def timings(path):
    """[(group, format, m, n, k, seconds)] of the BF16 and per-tensor FP8
    rows (row-wise FP8 is a different kernel llmsys does not price)."""
    out = []
    for r in csv.DictReader(open(path)):
        if r["format"] in FORMATS:
            out.append((r["group"], r["format"], int(r["m"]), int(r["n"]),
                        int(r["k"]), float(r["seconds"])))
    return out


def spec(rows):
    """One scenario per row: the row's GEMM as a forward mlp.up."""
    lines = llmsys_run.ONE_H200 + ["recipe cal_fp8 { forward = fp8 }"]
    models = {}
    for i, (_, fmt, m, n, k, _) in enumerate(rows):
        name = models.setdefault((n, k), "g%d" % len(models))
        recipe = "; recipe = cal_fp8" if fmt == "fp8" else ""
        lines.append("train s%d { model = %s; system = cal_one; seq_len = %d; "
                     "mapping { fusion = [flash_attention]%s } }"
                     % (i, name, m, recipe))
    for (n, k), name in models.items():
        heads = max(1, k // 128)
        # (After ONE_H200 and the recipe, before the scenarios.)
        lines.insert(len(llmsys_run.ONE_H200) + 1, "model %s { layers = 1; hidden = %d; heads = %d; "
                        "ffn = %d; vocab = 256; max_seq = 16384; bias = false }"
                     % (name, k, heads, n))
    return "\n".join(lines) + "\n"


def compute_times(llmsys, rows, knobs):
    """{row index: (compute seconds at compute = narrow = 1, bytes)} with
    the tile knobs of `knobs` written in."""
    out = llmsys_run.eval_with(llmsys, ROOT, ACCEL,
                               dict(knobs, compute=SCALE, narrow=1.0, sustained=1.0),
                               spec(rows))
    times = {}
    for s in out["scenarios"]:
        i = int(s["name"][1:])
        for o in s["operators"]:
            if o["name"] == "mlp.up" and o["phase"] == "fwd":
                assert o["bound"] == "compute", s["name"]
                times[i] = ((o["time_s"] - OVERHEAD) * SCALE, o["bytes"])
    return times


def predict(t1, nbytes, fmt, compute, narrow, memory):
    tc = t1 / (compute * (narrow if fmt == "fp8" else 1.0))
    return max(tc, nbytes / (BANDWIDTH * memory)) + OVERHEAD


def score(rows, times, compute, narrow, memory):
    errs = [predict(*times[i], r[1], compute, narrow, memory) / r[5] - 1
            for i, r in enumerate(rows)]
    return sum(abs(e) for e in errs) / len(errs), errs


def best_scalars(rows, times):
    """compute and memory on the BF16 rows, then narrow on the FP8 ones
    (the FP8 rows' memory-bound times share the BF16 rows' memory)."""
    def part(fmt, compute, narrow, memory):
        es = [abs(predict(*times[i], fmt, compute, narrow, memory) / r[5] - 1)
              for i, r in enumerate(rows) if r[1] == fmt]
        return sum(es) / len(es)
    compute, memory = min(itertools.product(
        [x / 1000 for x in range(600, 1001, 5)], [x / 100 for x in range(75, 100)]),
        key=lambda p: part("bf16", p[0], 1.0, p[1]))
    narrow = min([x / 1000 for x in range(700, 1001, 5)],
                 key=lambda n: part("fp8", compute, n, memory))
    return compute, narrow, memory


def report(rows, times, knobs, scalars):
    mean, errs = score(rows, times, *scalars)
    print("knobs: %s, compute %.3f, narrow %.3f, memory %.2f: "
          "mean |error| %.1f%% over %d timings" %
          (", ".join("%s %g" % kv for kv in knobs.items()), scalars[0],
           scalars[1], scalars[2], 100 * mean, len(rows)))
    groups = {}
    for r, e in zip(rows, errs):
        g = r[0].split("-fwd")[0].split("-dgrad")[0].split("-wgrad")[0]
        groups.setdefault((g, r[1]), []).append(e)
    for (g, fmt), es in sorted(groups.items()):
        print("  %-18s %-5s %3d  mean |error| %5.1f%%  mean %+6.1f%%" %
              (g, fmt, len(es), 100 * sum(abs(e) for e in es) / len(es),
               100 * sum(es) / len(es)))
    return mean


def stdlib_knobs():
    """The H100 die's GEMM knobs as stdlib/hardware/nvidia.llmsys writes
    them (the H200's own where it writes one; the schema's defaults where
    neither does): the tile knobs, and (compute, narrow, memory)."""
    import re
    text = open(os.path.join(ROOT, "stdlib", "hardware", "nvidia.llmsys")).read()

    def block(name):
        m = re.search(r"^accelerator\s+%s\b.*?^}" % name, text, re.M | re.S)
        return m.group(0) if m else ""

    def value(field, default):
        for name in ("H200", ACCEL):
            m = re.search(r"^\s*(?:efficiency\.)?%s\s*=\s*([0-9.]+)" % field,
                          block(name), re.M)
            if m:
                return float(m.group(1))
        return default
    tiles = {"tile_m": int(value("tile_m", 128)), "tile_n": int(value("tile_n", 128)),
             "k_overhead": value("k_overhead", 0), "small_tile": value("small_tile", 0)}
    return tiles, (value("compute", 1), value("narrow", 1), value("memory", 1))


LLAMA3_8B = ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336))


def layer_rows(tokens):
    """The 12 GEMMs of a Llama 3 8B layer's forward, input- and
    weight-gradient passes at `tokens` (tools/measure/kernels.py
    layer_gemms), in BF16 and FP8, as unmeasured rows."""
    out = []
    for fmt in FORMATS:
        for n, k in LLAMA3_8B:
            for m, nn, kk in ((tokens, n, k), (tokens, k, n), (n, k, tokens)):
                out.append(("layer-%d" % tokens, fmt, m, nn, kk, None))
    return out


def layer_ratios(llmsys, knobs, scalars, path):
    """llmsys's FP8-over-BF16 speed-up of the layer's 12 GEMMs beside the
    measured ones of layer_sweep.csv (each GEMM alone; ten passes back to
    back; passes mixed with memory-bound copies)."""
    measured = {}
    for r in csv.DictReader(open(path)):
        measured.setdefault((int(r["tokens"]), r["mode"]), {})[r["format"]] = \
            float(r["tflops"])
    for tokens in sorted({t for t, _ in measured}):
        rows = layer_rows(tokens)
        times = compute_times(llmsys, rows, knobs)
        total = {f: sum(predict(*times[i], f, *scalars)
                        for i, r in enumerate(rows) if r[1] == f) for f in FORMATS}
        flops = sum(2 * r[2] * r[3] * r[4] for r in rows if r[1] == "bf16")
        modes = ", ".join("%s %.3f" % (mode, v["fp8"] / v["bf16"])
                          for (t, mode), v in sorted(measured.items()) if t == tokens)
        bf16 = ", ".join("%s %.0f" % (mode, v["bf16"])
                         for (t, mode), v in sorted(measured.items()) if t == tokens)
        print("  Llama 3 8B layer, %5d tokens: FP8 %.3fx BF16 in llmsys; measured %s"
              % (tokens, total["bf16"] / total["fp8"], modes))
        print("  %32s BF16 %.0f TFLOP/s in llmsys; measured %s"
              % ("", flops / total["bf16"] / 1e12, bf16))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fit", action="store_true",
                   help="search the tile knobs too (one llmsys run each)")
    p.add_argument("--data", default=DATA)
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print every timing's error")
    p.add_argument("--llmsys", default=os.path.join(ROOT, "build", "bin", "llmsys"))
    a = p.parse_args()
    rows = timings(a.data)
    knobs, stdlib = stdlib_knobs()
    times = compute_times(a.llmsys, rows, knobs)
    print("the stdlib:")
    report(rows, times, knobs, stdlib)
    layer_ratios(a.llmsys, knobs, stdlib, os.path.join(os.path.dirname(a.data),
                                                       "layer_sweep.csv"))
    scalars = best_scalars(rows, times)
    print("compute, narrow and memory fitted at the stdlib's tiles:")
    report(rows, times, knobs, scalars)
    if a.fit:
        best = None
        for tm, tn, k, st in itertools.product((128,), (128, 256), range(0, 401, 50),
                                               (0.8, 0.9, 1.0)):
            grid = {"tile_m": tm, "tile_n": tn, "k_overhead": k, "small_tile": st}
            t = compute_times(a.llmsys, rows, grid)
            sc = best_scalars(rows, t)
            m = score(rows, t, *sc)[0]
            if best is None or m < best[0]:
                best = (m, grid, sc, t)
        print("every knob fitted:")
        _, knobs, scalars, times = best
        report(rows, times, knobs, scalars)
    if a.verbose:
        _, errs = score(rows, times, *scalars)
        for r, e in zip(rows, errs):
            print("  %-20s %-5s %6d %6d %6d %+6.1f%%" % (r[0], r[1], r[2], r[3], r[4],
                                                       100 * e))


if __name__ == "__main__":
    main()
