#!/usr/bin/env python3
"""Fits an accelerator's `efficiency.narrow` (8-bit), `narrow_block` (8-bit
with block scales) or `efficiency.fp4` (4-bit) to a published kernel-only speed-up of a low-precision GEMM set
over BF16, or its `efficiency.compute` to the set's published BF16 time.

The reference is Transformer Engine's GEMM-profiling example
(NVIDIA/TransformerEngine @ 8f2e63578e103ce1d41503102f47504c129b94d2,
docs/examples/gemm_profiling/gemm_profiling.rst, "Worked Example: 5B Model"):
one transformer layer of hidden 4096, 32 heads, FFN 16384 (not gated),
15,872 tokens, its 12 linear-layer GEMMs (QKV, projection, FC1, FC2; forward,
input gradient, weight gradient) timed pre-quantized, i.e. without the casts.
The script builds that layer as a training scenario on the accelerator
(from a copy of the stdlib with the knob set to 1), sums the time llmsys
gives those 12 GEMMs in BF16 and in the format, and returns the knob that
makes the ratio the published one: the GEMMs are compute-bound, so their
time is inversely proportional to the knob.

    python3 tools/calibration/narrow.py H100_SXM fp8 1.904
    python3 tools/calibration/narrow.py B300 fp4 3.484 --field fp4
    python3 tools/calibration/narrow.py B300 fp8 1.830 --field narrow_block --block 32
    python3 tools/calibration/narrow.py B300 bf16 13.10 --field compute
    python3 tools/calibration/narrow.py B200 bf16 1419.75 --field compute --square 8192

With --block N the format's GEMMs carry one scale per N elements (the
recipe's `block`: MXFP8 is 32), and --field narrow_block fits the
fraction of `narrow` such GEMMs keep (the profile's MXFP8 column).
With --field compute the third argument is the BF16 time of the 12 GEMMs
in milliseconds; the copy has compute and sustained set to 1 (a kernel
profile is a short run), and the fit is the time llmsys gives over it.
With --square N it is instead the published rate, in TFLOP/s, of one
N x N x N BF16 GEMM (the forward up-projection of a one-layer model of
width N over N tokens).

The result is written by hand into stdlib/hardware/nvidia.llmsys with its
source; re-run it when the GEMM model (lib/Cost/OpCost.cpp) changes.
"""
import argparse
import json
import os
import re
import sys
import tempfile

import llmsys_run

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
LINEARS = {"attn.qkv", "attn.out", "mlp.up", "mlp.down"}

SPEC = """import std.hardware.nvidia
network cal_link {{ bandwidth = 450 GB/s; latency = 1 us }}
system cal_one {{ node {{ accelerator = {accel}; devices = 1; fabric = cal_link }} }}
model cal_5b {{ layers = 1; hidden = 4096; heads = 32; ffn = 16384; vocab = 32000; max_seq = 15872; bias = false }}
recipe cal_narrow {{ forward = {fmt}{block} }}
train wide {{ model = cal_5b; system = cal_one; mapping {{ fusion = [flash_attention] }} }}
train narrow {{ model = cal_5b; system = cal_one; mapping {{ fusion = [flash_attention]; recipe = cal_narrow }} }}
"""


def with_field(text, accelerator, field, value, unit=""):
    """stdlib text with `field = ...` in the accelerator's efficiency block
    set to value (added when the block does not write it, with `unit`
    after the number; a written value keeps its own)."""
    start = re.search(r"^accelerator\s+%s\b" % re.escape(accelerator), text,
                      re.M)
    if not start:
        return None
    end = re.compile(r"^accelerator\s", re.M).search(text, start.end())
    stop = end.start() if end else len(text)
    eff = re.compile(r"efficiency\s*\{").search(text, start.end(), stop)
    if not eff:
        sys.exit("accelerator %s has no efficiency block" % accelerator)
    known = re.compile(r"(\b%s\s*=\s*)([0-9.]+)" % field)
    m = known.search(text, eff.end(), stop)
    if m:
        return text[:m.start(2)] + repr(value) + text[m.end(2):]
    at = eff.end()
    return (text[:at] + "\n    %s = %r%s" % (field, value,
                                              " " + unit if unit else "") +
            text[at:])


SQUARE_SPEC = """import std.hardware.nvidia
network cal_link {{ bandwidth = 450 GB/s; latency = 1 us }}
system cal_one {{ node {{ accelerator = {accel}; devices = 1; fabric = cal_link }} }}
model cal_square {{ layers = 1; hidden = {n}; heads = {heads}; ffn = {n}; vocab = 32000; max_seq = {n}; bias = false }}
train wide {{ model = cal_square; system = cal_one; seq_len = {n}; mapping {{ fusion = [flash_attention] }} }}
"""


def square_time(llmsys, stdlib, spec):
    """The time llmsys gives the square GEMM: the forward mlp.up."""
    out = llmsys_run.run(llmsys, stdlib, ["eval", "--format=json", "--ops=0",
                                          spec])
    for s in json.loads(out)["scenarios"]:
        for o in s["operators"]:
            if o["name"] == "mlp.up" and o["phase"] == "fwd":
                return o["time_s"]
    sys.exit("no forward mlp.up in the square-GEMM scenario")


def gemm_times(llmsys, stdlib, spec):
    out = llmsys_run.run(llmsys, stdlib, ["eval", "--format=json", spec])
    times = {}
    for s in json.loads(out)["scenarios"]:
        times[s["name"]] = sum(o["time_s"] for o in s["operators"]
                               if o["name"] in LINEARS and
                               o["category"] == "contraction")
    return times


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("accelerator")
    p.add_argument("format", choices=["fp8", "fp4", "bf16"])
    p.add_argument("speedup", type=float,
                   help="published BF16 time over the format's time (with "
                   "--field compute: the BF16 time in ms)")
    p.add_argument("--field", default="narrow",
                   choices=["narrow", "narrow_block", "fp4", "compute"])
    p.add_argument("--block", type=int, default=0,
                   help="the recipe's block: one scale per N elements")
    p.add_argument("--square", type=int, default=0,
                   help="with --field compute: fit to one N^3 GEMM's "
                   "published TFLOP/s instead")
    p.add_argument("--llmsys", default=os.path.join(ROOT, "build", "bin",
                                                    "llmsys"))
    a = p.parse_args()
    if a.field == "narrow_block" and not a.block:
        p.error("--field narrow_block fits block-scaled GEMMs: give --block")
    with tempfile.TemporaryDirectory() as tmp:
        stdlib, path = llmsys_run.copy_stdlib(tmp, ROOT)
        text = with_field(open(path).read(), a.accelerator, a.field, 1.0)
        if text is not None and a.field == "compute":
            text = with_field(text, a.accelerator, "sustained", 1.0)
        if text is None:
            sys.exit("no accelerator %s in stdlib/hardware/nvidia.llmsys" %
                     a.accelerator)
        open(path, "w").write(text)
        spec = os.path.join(tmp, "layer.llmsys")
        if a.square:
            n = a.square
            open(spec, "w").write(SQUARE_SPEC.format(accel=a.accelerator, n=n,
                                                     heads=max(1, n // 128)))
            t = square_time(a.llmsys, stdlib, spec)
            measured = 2.0 * n ** 3 / (a.speedup * 1e12)
            print("bf16 %d^3 GEMM %.4g s at compute = 1, sustained = 1" % (n, t))
            print("fit: compute %.3f (published %.1f TFLOP/s)" %
                  (t / measured, a.speedup))
            return
        fmt = "fp8" if a.format == "bf16" else a.format
        block = "; block = %d" % a.block if a.block else ""
        open(spec, "w").write(SPEC.format(accel=a.accelerator, fmt=fmt,
                                          block=block))
        t = gemm_times(a.llmsys, stdlib, spec)
    if a.field == "compute":
        fit = t["wide"] / (a.speedup * 1e-3)
        print("bf16 GEMMs %.4g s at compute = 1, sustained = 1" % t["wide"])
        print("fit: compute %.3f (published %.2f ms)" % (fit, a.speedup))
        return
    ratio = t["wide"] / t["narrow"]
    fit = a.speedup / ratio
    print("bf16 GEMMs %.4g s, %s GEMMs %.4g s at %s = 1: %.3fx" %
          (t["wide"], a.format, t["narrow"], a.field, ratio))
    print("fit: %s %.3f (published %.3fx)" % (a.field, fit, a.speedup))


if __name__ == "__main__":
    main()
