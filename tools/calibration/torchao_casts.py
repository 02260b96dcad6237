#!/usr/bin/env python3
"""Checks, and fits, the cast kernels' rate of torchao's row-wise FP8
recipe (`cast_efficiency` of `torchao_float8_rowwise`,
stdlib/recipes/torchao.llmsys) on torchao's own microbenchmark.

reference/kernels/torchao-float8-rowwise-2025-06/speedup.csv holds the
speedup torchao published for its row-wise FP8 linear over BF16 on an
H100 ("LayerNorm -> Linear -> Sigmoid fwd + bwd", compiled, PyTorch
2.8.0a0 of June 2025) at 216 forward shapes M x K x N. Each shape becomes
the `mlp.up` of a one-layer model (hidden = K, ffn = N, a non-gated
activation, M tokens), costed twice by `llmsys-opt --emit=costs` on a copy
of the stdlib whose H100 keeps up its short-run rate (`sustained` 1, as
for a kernel timing): in BF16 and with a recipe extending the row-wise one
at the cast efficiency tried. The benchmark's time is the layer's second
norm (forward and backward; the LayerNorm), its activation (forward and
backward; the sigmoid, a one-pass element-wise kernel like it) and
`mlp.up`'s three GEMMs, with, in FP8, the casts the quantize pass puts
around them (the input's and the weight's before the forward GEMM, the
output gradient's and the weight's before the input-gradient GEMM, the
rescales after both backward GEMMs). The speedup is the BF16 time over the
FP8 one.

Only shapes whose BF16 time is at least MIN_TIME are fitted on: the
benchmark launches some twenty kernels a linear in FP8, each with a fixed
cost llmsys leaves to the training step's kernel overhead; above 2 ms
those are a few percent of the time, below they are most of it (the
1024-token rows lose 2x in FP8 at every K and N).

The tensor-wise recipe's two published points (its README's text,
reference/kernels/torchao-float8-tensorwise-2024-09) are printed beside
llmsys's at that recipe's own written rate, a check, not a fit. The MXFP8
recipe's rate is read off torchao's B200 timings of the two cast kernels it
runs on each tensor (reference/kernels/torchao-mxfp8-casts-2026-01: dim 0
in Triton, dim 1 in CUDA, RCEIL scales): a pair of equal casts at their
harmonic mean, over the B200's memory-bound rate in llmsys.

    python3 tools/calibration/torchao_casts.py          # the stdlib's value
    python3 tools/calibration/torchao_casts.py --fit    # grid 0.30 .. 1.00
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

import llmsys_run
from narrow import with_field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "reference", "kernels",
                    "torchao-float8-rowwise-2025-06", "speedup.csv")
# The tensor-wise recipe's two published points: printed beside llmsys's
# at the recipe's written rate, a check that it keeps 1 (not fitted on).
TENSORWISE = os.path.join(ROOT, "reference", "kernels",
                          "torchao-float8-tensorwise-2024-09", "speedup.csv")
# The MXFP8 recipe's casts: torchao's B200 timings of its cast kernels,
# read off (module docstring).
MXFP8_CASTS = os.path.join(ROOT, "reference", "kernels",
                           "torchao-mxfp8-casts-2026-01", "casts.csv")
RECIPE_FILE = os.path.join(ROOT, "stdlib", "recipes", "torchao.llmsys")
RECIPE = "torchao_float8_rowwise"
ACCEL = "H100_SXM"
MIN_TIME = 2e-3     # the shapes fitted on: BF16 benchmark time (s)


def shapes(path):
    """[(m, k, n, speedup)] of the table."""
    return [(int(r["m"]), int(r["k"]), int(r["n"]), float(r["speedup"]))
            for r in csv.DictReader(open(path))]


def spec(rows, efficiency, recipe=RECIPE):
    """One spec: per shape a model and two scenarios, bM_K_N in BF16 and
    rM_K_N with the recipe (row-wise unless told) at the cast efficiency
    tried."""
    lines = ["import std.hardware.nvidia", "import std.recipes.torchao",
             "network cal_link { bandwidth = 450 GB/s; latency = 1 us }",
             "system cal_one { node { accelerator = %s; devices = 1; "
             "fabric = cal_link } }" % ACCEL,
             "recipe cal_casts extends %s { cast_efficiency = %r }"
             % (recipe, efficiency)]
    for m, k, n, _ in rows:
        heads = k // 128
        name = "%d_%d_%d" % (m, k, n)
        lines.append(
            "model m%s { layers = 1; hidden = %d; heads = %d; kv_heads = %d; "
            "head_dim = 128; ffn = %d; activation = gelu; norm = layernorm; "
            "positional = rotary; vocab = 128; max_seq = %d; bias = false }"
            % (name, k, heads, heads, n, m))
        for tag, recipe in (("b", ""), ("r", "; recipe = cal_casts")):
            lines.append(
                "train %s%s { model = m%s; system = cal_one; seq_len = %d; "
                "mapping { micro_batch = 1; global_batch = 1%s; "
                "fusion = [flash_attention_2, bias_gelu] } }"
                % (tag, name, name, m, recipe))
    return "\n".join(lines) + "\n"


def layer_ops(costs):
    """{scenario: [(phase, op, seconds)]} of its layer block."""
    out = {}
    parts = re.split(r"^costs (\S+) on \S+\n", costs, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        layer = body.split("block layer")[1].split("block head")[0]
        out[name] = [(m.group(1), m.group(2), float(m.group(3)))
                     for m in re.finditer(r"^\s+(\S+)\s+(\S+)\s+time (\S+) s",
                                          layer, re.M)]
    return out


def benchmark_time(ops):
    """The benchmark's time out of a layer's operators (module docstring)."""
    at = {(ph, name): i for i, (ph, name, _) in enumerate(ops)}
    t = sum(ops[at[key]][2] for key in
            [("fwd", "ln2"), ("bwd-data", "ln2"), ("fwd", "mlp.act"),
             ("bwd-data", "mlp.act"), ("fwd", "mlp.up"),
             ("bwd-data", "mlp.up"), ("bwd-weight", "mlp.up")])

    def casts(i, step):
        s = 0.0
        i += step
        while 0 <= i < len(ops) and ops[i][1].startswith("quant."):
            s += ops[i][2]
            i += step
        return s
    t += casts(at[("fwd", "mlp.up")], -1)           # input, weight
    t += casts(at[("bwd-data", "mlp.up")], -1)      # output gradient, weight
    t += casts(at[("bwd-data", "mlp.up")], +1)      # input gradient rescale
    t += casts(at[("bwd-weight", "mlp.up")], +1)    # weight gradient rescale
    return t


def predictions(llmsys_opt, stdlib, rows, efficiency, recipe=RECIPE):
    """{(m, k, n): (BF16 time, predicted speedup)}."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "shapes.llmsys")
        open(path, "w").write(spec(rows, efficiency, recipe))
        out = subprocess.run([llmsys_opt, "--emit=costs", "--stdlib", stdlib,
                              path], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    ops = layer_ops(out.stdout)
    result = {}
    for m, k, n, _ in rows:
        name = "%d_%d_%d" % (m, k, n)
        bf16 = benchmark_time(ops["b" + name])
        result[(m, k, n)] = (bf16, bf16 / benchmark_time(ops["r" + name]))
    return result


def memory_rate(llmsys_opt, accelerator):
    """An accelerator's memory-bound rate in llmsys (B/s): its
    hbm.bandwidth times its efficiency.memory, as the stdlib resolves
    them."""
    out = subprocess.run([llmsys_opt, "--emit=spec", "--include-imported",
                          os.path.join(ROOT, "stdlib", "hardware",
                                       "nvidia.llmsys")],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    block = re.search(r"^accelerator %s .*?(?=^accelerator |\Z)" % accelerator,
                      out.stdout, re.S | re.M).group(0)
    bandwidth = float(re.search(r"^\s+hbm\.bandwidth = (\S+) B/s", block,
                                re.M).group(1))
    fraction = float(re.search(r"^\s+efficiency\.memory = (\S+)", block,
                               re.M).group(1))
    return bandwidth * fraction


def written(recipe=RECIPE, path=RECIPE_FILE):
    """The stdlib's cast_efficiency of a recipe of the file at path (the
    torchao recipes' unless told; 1 unless written)."""
    text = open(path).read()
    block = re.search(r"recipe %s \{(.*?)\n\}" % recipe, text, re.S).group(1)
    m = re.search(r"cast_efficiency\s*=\s*([0-9.]+)", block)
    return float(m.group(1)) if m else 1.0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llmsys",
                   default=os.path.join(ROOT, "build", "bin", "llmsys-opt"),
                   help="the llmsys-opt binary")
    p.add_argument("--fit", action="store_true",
                   help="search cast_efficiency 0.30 .. 1.00 by 0.01")
    a = p.parse_args()
    rows = shapes(DATA)
    with tempfile.TemporaryDirectory() as tmp:
        stdlib, hw = llmsys_run.copy_stdlib(tmp, ROOT)
        text = with_field(open(hw).read(), ACCEL, "sustained", 1.0)
        open(hw, "w").write(text)

        def error(efficiency):
            pred = predictions(a.llmsys, stdlib, rows, efficiency)
            errs = [(pred[(m, k, n)][1] / s - 1, (m, k, n))
                    for m, k, n, s in rows if pred[(m, k, n)][0] >= MIN_TIME]
            return sum(abs(e) for e, _ in errs) / len(errs), errs, pred

        if a.fit:
            best = min((error(i / 100)[0], i / 100) for i in range(30, 101))
            print("best cast_efficiency %.2f: mean |error| %.1f%% "
                  "(written %.2f)" % (best[1], 100 * best[0], written()))
            return
        value = written()
        mean, errs, pred = error(value)
        print("cast_efficiency %.2f (stdlib): %d shapes with a BF16 time of "
              "at least %g ms, mean |error| %.1f%%"
              % (value, len(errs), MIN_TIME * 1e3, 100 * mean))
        print("%6s %6s %6s %9s %9s %7s" % ("m", "k", "n", "measured",
                                            "llmsys", "error"))
        measured = {(m, k, n): s for m, k, n, s in rows}
        for e, (m, k, n) in errs:
            print("%6d %6d %6d %9.2f %9.2f %+6.1f%%"
                  % (m, k, n, measured[(m, k, n)], pred[(m, k, n)][1], 100 * e))
        for n in sorted({s[2] for _, s in errs}):
            sel = [e for e, s in errs if s[2] == n]
            print("n %5d: %3d shapes, mean error %+.1f%%"
                  % (n, len(sel), 100 * sum(sel) / len(sel)))
        tensorwise = shapes(TENSORWISE)
        value = written("torchao_float8_tensorwise")
        pred = predictions(a.llmsys, stdlib, tensorwise, value,
                           "torchao_float8_tensorwise")
        print("torchao_float8_tensorwise at cast_efficiency %.2f (stdlib), "
              "the README's two points (not fitted on):" % value)
        for m, k, n, s in tensorwise:
            p = pred[(m, k, n)][1]
            print("%6d %6d %6d %9.2f %9.2f %+6.1f%%"
                  % (m, k, n, s, p, 100 * (p / s - 1)))
        rates = {r["mode"]: float(r["gbps"]) * 1e9
                 for r in csv.DictReader(open(MXFP8_CASTS))}
        dim0, dim1 = (rates["dim0_mxfp8_triton_rceil"],
                      rates["dim1_mxfp8_cuda_rceil"])
        pair = 2 / (1 / dim0 + 1 / dim1)
        rate = memory_rate(a.llmsys, "B200")
        print("torchao_mxfp8: dim0 Triton %.0f and dim1 CUDA %.0f GB/s, %.0f "
              "GB/s a pair, %.3f of the B200's %.1f TB/s; written %.2f"
              % (dim0 / 1e9, dim1 / 1e9, pair / 1e9, pair / rate,
                 rate / 1e12, written("torchao_mxfp8")))


if __name__ == "__main__":
    main()
