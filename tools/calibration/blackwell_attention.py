#!/usr/bin/env python3
"""Fits the Blackwell parts' fused-attention knobs to cuDNN's published
attention timings on GB200 and GB300.

reference/kernels/cudnn-sdpa-2026-04/ holds NVIDIA's own SDPA training
benchmark of cuDNN 9.22 (NVIDIA/cudnn-frontend, benchmark/
sdpa_benchmark_training/results/llama3.1): Llama 3.1-style attention (64
query heads, 8 K/V heads, head dimension 128, batch 2), sequences of 2k
to 32k tokens, causal and not, forward and backward timed apart, in BF16,
per-tensor FP8 and MXFP8. The non-deterministic backward is the one
training runs by default.

Each timing becomes a one-layer training scenario of that shape on the
part (a derived accelerator that writes the attention fractions 1,
`sustained` 1, no kernel launch and the two per-block overheads at a grid
point; the timings are of whole kernels); the products' time is then
inversely proportional to the kernel's fraction.
Per part and pass (the forward's products, the backward's), the script
fits the per-block overhead and the BF16 fraction (`attention_overhead`
and `attention`; `attention_overhead_backward` and `attention_backward`)
over the 10 BF16 timings of the pass, then, at that overhead, the 8-bit
products' fraction of the BF16 one (`attention_narrow`,
`attention_narrow_backward`) over the 10 FP8 and 10 MXFP8 timings of the
pass (llmsys gives attention one 8-bit rate a pass: its products are
never block-scaled, so per-tensor FP8 and MXFP8 share it), and prints
each timing's error.

    python3 tools/calibration/blackwell_attention.py [--part GB200]

With --window, a check instead of a fit: NVIDIA's timings of the same
benchmark's GPT-OSS configuration (128 query and 128 K/V heads of 64,
batch 2, a 128-token sliding window, causal, 2k to 32k tokens, BF16, FP8
and MXFP8; `gb200_gpt_oss.csv`, `gb300_gpt_oss.csv`) beside llmsys's at
the part's written values (`sustained` 1, no kernel launch): the forward
and the BF16 backward visit the window's key blocks alone, the 8-bit
backward every causal block before them (`attention_narrow_window`).

    python3 tools/calibration/blackwell_attention.py --window [--part GB200]

With --mla, the same kind of check on the benchmark's DeepSeek-V3
configuration (`gb200_dsv3.csv`, `gb300_dsv3.csv`: 128 heads, query and
key 192 wide, value 128, batch 2, 2k to 32k tokens, causal and not, BF16,
FP8 and MXFP8), costed as the stdlib's deepseek_v3 attention (MLA): the
fits above saw heads of 128 alone.

    python3 tools/calibration/blackwell_attention.py --mla [--part GB200]
"""
import argparse
import csv
import json
import os
import tempfile

import llmsys_run

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "reference", "kernels", "cudnn-sdpa-2026-04")
PARTS = {"GB200": "gb200_llama3.1.csv", "GB300": "gb300_llama3.1.csv"}
WINDOWED = {"GB200": "gb200_gpt_oss.csv", "GB300": "gb300_gpt_oss.csv"}
MLA = {"GB200": "gb200_dsv3.csv", "GB300": "gb300_dsv3.csv"}
NARROW = ("fp8", "mxfp8")


# The attention shape each file holds, column by column.
LLAMA_SHAPE = {"num_q_heads": "64", "num_kv_heads": "8", "head_dim_qk": "128"}
WINDOW_SHAPE = {"num_q_heads": "128", "num_kv_heads": "128",
                "head_dim_qk": "64", "sliding_window_size": "128",
                "attn_mask": "top_left"}
MLA_SHAPE = {"num_q_heads": "128", "head_dim_qk": "192", "head_dim_vo": "128"}


def timings(path, shape):
    """(format, causal, pass, batch, tokens, seconds) of cuDNN's timings,
    the non-deterministic backward; asserts each row has the columns of
    shape."""
    out = []
    for r in csv.DictReader(open(path)):
        if r["backend"] != "cudnn" or r["deterministic_bwd"] == "True":
            continue
        assert all(r[k] == v for k, v in shape.items()), r
        out.append((r["data_type"], r["attn_mask"] == "top_left",
                    r["profile_pass"], int(r["batch_size"]),
                    int(r["q_seqlen"]), float(r["time_ms"]) * 1e-3))
    return out


def spec(part, rows, forward, backward):
    lines = [
        "import std.hardware.nvidia",
        "import std.recipes.transformer_engine",
        "network cal_link { bandwidth = 900 GB/s; latency = 1 us }",
        "accelerator cal_part extends %s { efficiency.attention = 1; "
        "efficiency.attention_backward = 1; efficiency.sustained = 1; "
        "efficiency.attention_narrow = 1; "
        "efficiency.attention_narrow_backward = 1; "
        "efficiency.kernel_overhead = 0 us; "
        "efficiency.attention_overhead = %r; "
        "efficiency.attention_overhead_backward = %r }"
        % (part, forward, backward),
        "system cal_one { node { accelerator = cal_part; devices = 1; "
        "fabric = cal_link } }",
        "model cal_causal { layers = 1; hidden = 8192; heads = 64; "
        "kv_heads = 8; head_dim = 128; ffn = 1024; vocab = 256; "
        "max_seq = 32768; bias = false }",
        "model cal_encoder extends cal_causal { kind = encoder }",
        # FP8 attention (Transformer Engine's fp8_dot_product_attention).
        "recipe cal_fp8 extends te_fp8_current_blackwell { attention = fp8 }"]
    for i, (fmt, causal, _, batch, seq, _) in enumerate(rows):
        lines.append(
            "train s%d { model = %s; system = cal_one; seq_len = %d; "
            "mapping { micro_batch = %d; global_batch = %d; "
            "fusion = [flash_attention]%s } }"
            % (i, "cal_causal" if causal else "cal_encoder", seq, batch,
               batch, "; recipe = cal_fp8" if fmt in NARROW else ""))
    return "\n".join(lines) + "\n"


def attention_times(llmsys, part, rows, forward, backward):
    """{row: (forward seconds, backward seconds)} of the fused attention
    products at fraction 1 and the given overheads."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "shapes.llmsys")
        open(path, "w").write(spec(part, rows, forward, backward))
        out = json.loads(llmsys_run.run(
            llmsys, os.path.join(ROOT, "stdlib"),
            ["eval", "--format=json", "--ops=0", path]))
    return llmsys_run.attention_pass_times(out)


def predict(row, t, eff):
    # The pass's products at the fraction.
    fwd, bwd = t
    return (fwd if row[2] == "fwd" else bwd) / eff


def best_fraction(rows, times, idx):
    def err(e):
        return sum(abs(predict(rows[i], times[i], e) / rows[i][5] - 1)
                   for i in idx)
    e = min((x / 1000 for x in range(150, 1001)), key=err)
    return e, err(e) / len(idx)


def fit(llmsys, part, rows):
    """{pass: (overhead, BF16 fraction, mean |error|, narrow fraction,
    its mean |error|)} and the times at each pass's overhead; the
    overheads without the fit first."""
    grid = [x / 10 for x in range(0, 121, 2)]
    runs = {c: attention_times(llmsys, part, rows, c, c) for c in grid}
    out, times = {}, {i: [0.0, 0.0] for i in range(len(rows))}
    for k, side in enumerate(("fwd", "bwd")):
        wide = [i for i, r in enumerate(rows)
                if r[0] == "bfloat16" and r[2] == side]
        plain = best_fraction(rows, runs[0.0], wide)
        c = min(grid, key=lambda c: best_fraction(rows, runs[c], wide)[1])
        eff, mean = best_fraction(rows, runs[c], wide)
        narrow = [i for i, r in enumerate(rows)
                  if r[0] in NARROW and r[2] == side]
        scaled = {i: tuple(t / eff for t in runs[c][i]) for i in narrow}
        ratio, mean8 = best_fraction(rows, scaled, narrow)
        out[side] = (plain, c, eff, mean, ratio, mean8)
        for i in range(len(rows)):
            times[i][k] = runs[c][i][k]
    return out, times


def written_times(llmsys, part, models, shapes):
    """{index: (forward seconds, backward seconds)} of the fused attention
    products of each shape, on the part as the stdlib writes it (sustained
    1, no kernel launch). models: spec lines defining the models; shapes:
    (model, format, batch, tokens) per scenario."""
    lines = [
        "import std.hardware.nvidia",
        "import std.models.deepseek",
        "import std.recipes.transformer_engine",
        "network cal_link { bandwidth = 900 GB/s; latency = 1 us }",
        "accelerator cal_part extends %s { efficiency.sustained = 1; "
        "efficiency.kernel_overhead = 0 us }" % part,
        "system cal_one { node { accelerator = cal_part; devices = 1; "
        "fabric = cal_link } }",
        "recipe cal_fp8 extends te_fp8_current_blackwell { attention = fp8 }"]
    lines += models
    for i, (model, fmt, batch, seq) in enumerate(shapes):
        lines.append(
            "train s%d { model = %s; system = cal_one; seq_len = %d; "
            "mapping { micro_batch = %d; global_batch = %d; "
            "fusion = [flash_attention]%s } }"
            % (i, model, seq, batch, batch,
               "; recipe = cal_fp8" if fmt in NARROW else ""))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "check.llmsys")
        open(path, "w").write("\n".join(lines) + "\n")
        out = json.loads(llmsys_run.run(
            llmsys, os.path.join(ROOT, "stdlib"),
            ["eval", "--format=json", "--ops=0", path]))
    return llmsys_run.attention_pass_times(out)


def window_check(llmsys, part):
    """Prints each windowed timing beside llmsys's at the part's values."""
    rows = [(fmt, side, batch, seq, seconds)
            for fmt, _, side, batch, seq, seconds in
            timings(os.path.join(DATA, WINDOWED[part]), WINDOW_SHAPE)]
    shapes = sorted({(fmt, batch, seq) for fmt, _, batch, seq, _ in rows})
    times = written_times(
        llmsys, part,
        ["model cal_window { layers = 1; hidden = 8192; heads = 128; "
         "kv_heads = 128; head_dim = 64; ffn = 1024; vocab = 256; "
         "max_seq = 32768; sliding_window = 128; bias = false }"],
        [("cal_window", fmt, batch, seq) for fmt, batch, seq in shapes])
    errors = {}
    print("%s, 128-token window: cuDNN against llmsys" % part)
    for fmt, side, batch, seq, seconds in rows:
        fwd, bwd = times[shapes.index((fmt, batch, seq))]
        t = fwd if side == "fwd" else bwd
        errors.setdefault((fmt, side), []).append(t / seconds - 1)
        print("  %-8s %-3s %5d tokens %9.3f ms %9.3f ms %+6.1f%%"
              % (fmt, side, seq, seconds * 1e3, t * 1e3,
                 100 * (t / seconds - 1)))
    # How each pass grows with the sequence: as the sequence (the window's
    # blocks alone) or as its square (every causal block).
    growth = {}
    for fmt, side, batch, seq, seconds in rows:
        fwd, bwd = times[shapes.index((fmt, batch, seq))]
        growth.setdefault((fmt, side), {})[seq] = (
            seconds, fwd if side == "fwd" else bwd)
    for (fmt, side), errs in sorted(errors.items()):
        g = growth[(fmt, side)]
        lo, hi = min(g), max(g)
        print("  %-8s %-3s mean |error| %.1f%% over %d; %d to %d tokens: "
              "cuDNN x%.1f, llmsys x%.1f"
              % (fmt, side, 100 * sum(abs(e) for e in errs) / len(errs),
                 len(errs), lo, hi, g[hi][0] / g[lo][0], g[hi][1] / g[lo][1]))


def mla_check(llmsys, part):
    """Prints each DeepSeek-V3-shaped timing beside llmsys's at the part's
    values, and the mean |error| per format, mask and pass."""
    rows = timings(os.path.join(DATA, MLA[part]), MLA_SHAPE)
    shapes = sorted({(fmt, causal, batch, seq)
                     for fmt, causal, _, batch, seq, _ in rows})
    # One MoE layer of DeepSeek-V3 (its attention is what is read).
    times = written_times(
        llmsys, part,
        ["model cal_mla extends deepseek_v3 { layers = 1; mtp_layers = 0; "
         "max_seq = 32768; moe { dense_layers = 0 } }",
         "model cal_mla_full extends cal_mla { kind = encoder }"],
        [("cal_mla" if causal else "cal_mla_full", fmt, batch, seq)
         for fmt, causal, batch, seq in shapes])
    errors = {}
    print("%s, DeepSeek-V3 attention (MLA): cuDNN against llmsys" % part)
    for fmt, causal, side, batch, seq, seconds in rows:
        fwd, bwd = times[shapes.index((fmt, causal, batch, seq))]
        t = fwd if side == "fwd" else bwd
        mask = "causal" if causal else "full"
        errors.setdefault((fmt, mask, side), []).append(t / seconds - 1)
        print("  %-8s %-6s %-3s %5d tokens %9.3f ms %9.3f ms %+6.1f%%"
              % (fmt, mask, side, seq, seconds * 1e3, t * 1e3,
                 100 * (t / seconds - 1)))
    for (fmt, mask, side), errs in sorted(errors.items()):
        print("  %-8s %-6s %-3s mean |error| %.1f%%, mean %+.1f%% over %d"
              % (fmt, mask, side, 100 * sum(abs(e) for e in errs) / len(errs),
                 100 * sum(errs) / len(errs), len(errs)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=sorted(PARTS), action="append")
    p.add_argument("--llmsys", default=os.path.join(ROOT, "build", "bin", "llmsys"))
    p.add_argument("--window", action="store_true",
                   help="check the sliding-window timings (no fit)")
    p.add_argument("--mla", action="store_true",
                   help="check the DeepSeek-V3 (MLA) timings (no fit)")
    a = p.parse_args()
    if a.window:
        for part in a.part or sorted(WINDOWED):
            window_check(a.llmsys, part)
        return
    if a.mla:
        for part in a.part or sorted(MLA):
            mla_check(a.llmsys, part)
        return
    names = {"fwd": ("attention", "attention_overhead", "attention_narrow"),
             "bwd": ("attention_backward", "attention_overhead_backward",
                     "attention_narrow_backward")}
    for part in a.part or sorted(PARTS):
        rows = timings(os.path.join(DATA, PARTS[part]), LLAMA_SHAPE)
        out, times = fit(a.llmsys, part, rows)
        for side, ((eff0, mean0), c, eff, mean, ratio, mean8) in out.items():
            frac, over, narrow = names[side]
            print("%s %s: BF16 without the overhead: %s %.3f, mean |error| "
                  "%.1f%%; fit: %s %.1f, %s %.3f, mean |error| %.1f%% (10 "
                  "timings); %s %.3f, mean |error| %.1f%% (20 FP8 and MXFP8)"
                  % (part, side, frac, eff0, 100 * mean0, over, c, frac, eff,
                     100 * mean, narrow, ratio, 100 * mean8))
        for i, r in enumerate(rows):
            _, _, eff, _, ratio, _ = out[r[2]]
            t = predict(r, times[i], eff * (ratio if r[0] in NARROW else 1))
            print("  %-8s %-6s %-3s %5d tokens %9.3f ms %9.3f ms %+6.1f%%" % (
                r[0], "causal" if r[1] else "full", r[2], r[4], r[5] * 1e3,
                t * 1e3, 100 * (t / r[5] - 1)))


if __name__ == "__main__":
    main()
