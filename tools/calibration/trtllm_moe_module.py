#!/usr/bin/env python3
"""Compares the time llmsys gives a serving engine's routed MoE module with
TensorRT-LLM's measured one, on H200, H100 and B200.

The reference is NVIDIA's aiconfigurator database of TensorRT-LLM 1.3.0rc20
MoE-module latencies on one H200, one H100 and one B200 (reference/kernels/
aiconfigurator-moe-2026-08/moe_module.csv; its README gives the source and
what one timing covers: routing, input quantization, FC1, the activation,
FC2 and the finalize, no all-to-all), for five models' expert shapes under
tensor parallelism and, at the sizes the data's DEP serving rows use,
expert parallelism, 1 to 16384 tokens entering the module.

For each model, device and token count the script writes the model on the
part at the timing's TP size as a decode step of that many sequences (an
expert-parallel timing of n tokens: dp = ep = EP replicas of n / EP
sequences each, the tokens of the EP group reaching a rank's E / EP
experts; the counts EP does not divide are left out), in the timing's
weight format (fp8: FP8 weights and activations; fp8_block: the same with
128-element scale blocks, scale_block = 128; nvfp4: NVFP4 weights and
activations; w4a16_mxfp4 and w4a8_mxfp4_mxfp8: MXFP4 expert weights, BF16
or FP8 activations, the rest BF16), sums the time llmsys gives the routed MoE operators of one decode
layer (as tools/calibration/moe_kernels.py does) and prints both and the
error. Nothing is fitted here: the stdlib's `expert_memory` and
`expert_overhead` come from this project's H200 grouped-GEMM timings
(tools/calibration/h200_moe.py) and, for the B200, TensorRT-LLM's tech
blog 24 up to 384 tokens (moe_kernels.py); this prints how far the
engine's whole module is from them, by token count.

    python3 tools/calibration/trtllm_moe_module.py
    python3 tools/calibration/trtllm_moe_module.py --device H200 \\
        --model deepseek_v3 --tokens 1,128,4096

With --fit-fp4 the script fits the part's `efficiency.expert_fp4` (the
fraction of the tiled GEMM model's rate a serving engine's expert GEMMs
at the 4-bit rate reach) to the device's NVFP4 timings, 0.05 to 1 by
0.01 (--low and --high narrow it), for the least mean |error| over them,
and prints the fit (over the rows at expert parallelism 1 only):

    python3 tools/calibration/trtllm_moe_module.py --device B200 --fit-fp4

With --block the script reads the same database's modules in per-tensor
FP8 and in block-scaled FP8 (DeepSeek's 128 x 128 blocks) of every expert
shape timed both ways at expert and tensor parallelism 1
(moe_block_fp8.csv beside moe_module.csv: 4096, 8192 and 16384 tokens),
and prints, for the device, the per-tensor module's time over the
block-scaled one's where the GEMMs are compute-bound (at least 512 tokens
an expert: what the block scales cost is the tensor cores' time, not the
weights' bytes) and their median, the part's `efficiency.expert_block`
(the block-scaled expert GEMMs' rate relative to per-tensor ones'):

    python3 tools/calibration/trtllm_moe_module.py --device H200 --block
"""
import argparse
import csv
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from llmsys_run import copy_stdlib  # noqa: E402
from moe_kernels import module_times  # noqa: E402
from narrow import with_field  # noqa: E402

DATA = os.path.join(ROOT, "reference", "kernels",
                    "aiconfigurator-moe-2026-08", "moe_module.csv")
BLOCK_DATA = os.path.join(os.path.dirname(DATA), "moe_block_fp8.csv")
# The formats whose module runs the experts' activation inside the first
# expert GEMM (the mapping's expert_act): GPT-OSS's, Triton's matmul_ogs on
# Hopper (fused_activation) and TRTLLM-Gen on the B200. CUTLASS, the rest,
# runs it as a kernel of its own after that GEMM (moe_kernels.cu, gemm1's
# doActivation). The engine takes GPT-OSS's clamp inside the activation's
# kernel on every path (glu_clamp, as the stdlib's tensorrt_llm_pytorch).
FOLDED_ACTIVATION = {"w4a16_mxfp4", "w4a8_mxfp4_mxfp8"}
# Tokens an expert from which a module's GEMMs are compute-bound (--block).
COMPUTE_BOUND = 512
# The data's device names -> stdlib accelerators and their NVLink.
DEVICES = {"NVIDIA H200": ("H200", "nvlink4"),
           "NVIDIA H100 80GB HBM3": ("H100_SXM", "nvlink4"),
           "NVIDIA B200": ("B200", "nvlink5")}
# stdlib model -> the module it imports from.
MODELS = {"deepseek_v3": "std.models.deepseek",
          "qwen3_235b_a22b": "std.models.qwen",
          "qwen3_30b_a3b": "std.models.qwen",
          "gpt_oss_120b": "std.models.gpt_oss",
          "llama4_maverick": "std.models.llama"}
# The timing's format -> the mapping's formats.
FORMATS = {
    "fp8": "weights = fp8; activations = fp8",
    "fp8_block": "weights = fp8; activations = fp8; scale_block = 128",
    "nvfp4": "weights = fp4; activations = fp4",
    "w4a16_mxfp4": ("weights = fp4; activations = bf16; "
                    "quantized = [experts]"),
    "w4a8_mxfp4_mxfp8": ("weights = fp4; activations = fp8; "
                         "quantized = [experts]"),
}

SPEC = """import {module}
import std.systems.nvidia
system cal_node {{ node {{ accelerator = {accel}; devices = 8; fabric = {fabric} }} }}
mapping cal {{ fusion = [flash_attention, swiglu, glu_clamp, rmsnorm, rope{expert_act}]; precision = bf16; {formats}; kv_cache = bf16; tp = {tp}; dp = {ep}; ep = {ep} }}
"""
SCENARIO = ("serve n{n} {{ model = {model}; system = cal_node; "
            "mapping = cal; devices = {devices}; prompt = 1024 tokens; "
            "output = 2 tokens; batch = {batch} }}\n")


def load(path):
    groups = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["device"], r["model"], r["moe_dtype"],
                   int(r["moe_tp_size"]), int(r["moe_ep_size"]))
            groups.setdefault(key, {})[int(r["num_tokens"])] = float(
                r["latency_us"])
    return groups


def representable(n, ep):
    """A timing of n tokens over ep ranks is written as ep replicas of n / ep
    sequences each: the counts ep divides."""
    return n % ep == 0


def write_spec(path, device, model, dtype, tp, ep, counts):
    accel, fabric = DEVICES[device]
    with open(path, "w") as f:
        f.write(SPEC.format(module=MODELS[model], accel=accel, fabric=fabric,
                            formats=FORMATS[dtype], tp=tp, ep=ep,
                            expert_act=(", expert_act"
                                        if dtype in FOLDED_ACTIVATION
                                        else "")))
        for n in counts:
            f.write(SCENARIO.format(n=n, model=model, devices=tp * ep,
                                    batch=n // ep))


def fit_fp4(a, groups):
    """Grid over the part's expert_fp4 against its NVFP4 timings."""
    accel = a.device
    chosen = {k: v for k, v in groups.items()
              if DEVICES[k[0]][0] == accel and k[2] == "nvfp4" and k[4] == 1}
    if not chosen:
        sys.exit("no NVFP4 timings for %s" % accel)
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        stdlib, path = copy_stdlib(tmp, ROOT)
        original = open(path).read()
        specs = []
        for (device, model, dtype, tp, ep), table in sorted(chosen.items()):
            spec = os.path.join(tmp, "%s.llmsys" % model)
            write_spec(spec, device, model, dtype, tp, ep, sorted(table))
            specs.append((model, spec, table))
        for step in range(int(round(100 * a.low)),
                          int(round(100 * a.high)) + 1):
            fraction = step / 100.0
            text = with_field(original, accel, "expert_fp4", fraction)
            if text is None:
                sys.exit("no accelerator %s in stdlib/hardware/nvidia.llmsys"
                         % accel)
            open(path, "w").write(text)
            errors, per = [], {}
            for model, spec, table in specs:
                counts = sorted(table)
                times = module_times(a.llmsys_opt, stdlib, spec, counts)
                e = [times[n][0] / table[n] - 1 for n in counts]
                errors += e
                per[model] = sum(abs(x) for x in e) / len(e)
            mean = sum(abs(x) for x in errors) / len(errors)
            if best is None or mean < best[0]:
                best = (mean, fraction, per, len(errors))
    mean, fraction, per, n = best
    for model in sorted(per):
        print("  %-16s mean |error| %.1f%%" % (model, 100 * per[model]))
    print("fit: %s expert_fp4 %.2f (mean |error| %.1f%% over %d NVFP4 "
          "timings)" % (accel, fraction, 100 * mean, n))


def block_ratio(a):
    """Per-tensor over block-scaled FP8 module time, compute-bound rows."""
    times = {}
    with open(a.block_data) as f:
        for r in csv.DictReader(f):
            if DEVICES[r["device"]][0] != a.device:
                continue
            shape = (int(r["hidden_size"]), int(r["inter_size"]),
                     int(r["topk"]), int(r["num_experts"]),
                     int(r["num_tokens"]))
            times.setdefault(shape, {})[r["moe_dtype"]] = (
                float(r["latency_us"]), r["kernel_source"])
    ratios = []
    print("%s: per-tensor FP8 over block-scaled FP8 module time "
          "(TensorRT-LLM 1.3.0rc20, balanced, TP 1, EP 1)" % a.device)
    for (h, i, k, e, n), t in sorted(times.items()):
        if "fp8" not in t or "fp8_block" not in t:
            continue
        per_expert = n * k / e
        bound = per_expert >= COMPUTE_BOUND
        ratio = t["fp8"][0] / t["fp8_block"][0]
        if bound:
            ratios.append(ratio)
        print("  %5d / %5d, %3d experts, top %2d, %5d tokens (%5.0f an "
              "expert)  %8.1f us  %8.1f us (%s)  %.3f%s"
              % (h, i, e, k, n, per_expert, t["fp8"][0], t["fp8_block"][0],
                 t["fp8_block"][1], ratio, "" if bound else "  (not counted)"))
    if not ratios:
        sys.exit("no compute-bound pairs for %s" % a.device)
    print("expert_block %.3f: the median of %d compute-bound pairs "
          "(%.3f to %.3f)" % (statistics.median(ratios), len(ratios),
                              min(ratios), max(ratios)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=sorted(v[0] for v in DEVICES.values()))
    p.add_argument("--model", choices=sorted(MODELS))
    p.add_argument("--tokens", help="comma-separated token counts (default: "
                   "every count the data has)")
    p.add_argument("--data", default=DATA)
    p.add_argument("--llmsys-opt", default=os.path.join(
        ROOT, "build", "bin", "llmsys-opt"))
    p.add_argument("--block", action="store_true",
                   help="--device's block-scaled FP8 expert rate relative "
                   "to per-tensor FP8's (efficiency.expert_block)")
    p.add_argument("--block-data", default=BLOCK_DATA)
    p.add_argument("--fit-fp4", action="store_true",
                   help="fit --device's expert_fp4 to its NVFP4 timings")
    p.add_argument("--low", type=float, default=0.05,
                   help="--fit-fp4's smallest fraction")
    p.add_argument("--high", type=float, default=1.0,
                   help="--fit-fp4's largest fraction")
    a = p.parse_args()
    if a.block:
        if not a.device:
            sys.exit("--block needs --device")
        block_ratio(a)
        return
    if a.fit_fp4:
        if not a.device:
            sys.exit("--fit-fp4 needs --device")
        if not 0 < a.low <= a.high <= 1:
            sys.exit("--low and --high: 0 < low <= high <= 1")
        fit_fp4(a, load(a.data))
        return
    wanted = ({int(t) for t in a.tokens.split(",")} if a.tokens else None)
    stdlib = os.path.join(ROOT, "stdlib")
    everything = []
    for (device, model, dtype, tp, ep), table in sorted(
            load(a.data).items()):
        accel = DEVICES[device][0]
        if (a.device and accel != a.device) or (a.model and model != a.model):
            continue
        counts = sorted(n for n in table if (wanted is None or n in wanted)
                        and representable(n, ep))
        if not counts:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            spec = os.path.join(tmp, "moe.llmsys")
            write_spec(spec, device, model, dtype, tp, ep, counts)
            times = module_times(a.llmsys_opt, stdlib, spec, counts)
        where = "TP %d" % tp if ep == 1 else "EP %d" % ep
        skipped = sum(1 for n in table if not representable(n, ep))
        print("%s %s %s %s: routed MoE module of one layer%s" %
              (accel, model, dtype, where,
               " (%d counts below %d tokens not written)" % (skipped, ep)
               if skipped else ""))
        errors = []
        for n in counts:
            ours = times[n][0]
            errors.append(ours / table[n] - 1)
            print("  %5d tokens  measured %8.1f us  llmsys %8.1f us  %+5.0f%%"
                  % (n, table[n], ours, 100 * errors[-1]))
        print("  mean |error| %.1f%% over %d token counts" %
              (100 * sum(abs(e) for e in errors) / len(errors), len(errors)))
        everything += errors
    if everything:
        print("all: mean |error| %.1f%% over %d timings (mean %+.1f%%)" %
              (100 * sum(abs(e) for e in everything) / len(everything),
               len(everything), 100 * sum(everything) / len(everything)))


if __name__ == "__main__":
    main()
