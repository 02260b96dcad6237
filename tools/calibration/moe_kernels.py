#!/usr/bin/env python3
"""Fits an accelerator's `efficiency.expert_memory` and
`efficiency.expert_overhead` (a serving engine's MoE expert GEMMs) to a
published MoE-module latency table.

The reference is TensorRT-LLM's tech blog 24, "MoE as Dense GEMM"
(NVIDIA/TensorRT-LLM @ 2226a86553b666009aff1655788ba20b6f50075a,
docs/source/blogs/tech_blog/blog24_MoE_as_Dense_GEMM.md, "Per-Rank MoE
Module Latency"): on one B200, the per-rank latency of a DeepSeek-V3-style
routed MoE module (hidden 7168, 256 experts, top 8, SwiGLU, NVFP4) under
TP 8, "including Router GEMM, TopK, alpha generation, FC1, FC2, and
necessary quantization", shared expert and all-reduces excluded, for 1 to
384 tokens entering the module, with three kernel paths. CUTLASS is the
default MoE backend of TensorRT-LLM's PyTorch flow and the one the
perf-overview page's MoE rows name; TRTLLM-Gen is its newer grouped-GEMM
path.

The script writes DeepSeek-V3 (stdlib deepseek_v3) at TP 8 in NVFP4 on the
accelerator as a decode step of each token count, sums the time llmsys
gives the routed MoE operators of one layer's decode (router, top-k,
dispatch, the expert GEMMs and their activation, combine; not the shared
expert), and searches `expert_memory` (0.100 to 1.000 by 0.005) and
`expert_overhead` (0 to 100 us by 0.1 us) for the least mean relative
error over the table:

    python3 tools/calibration/moe_kernels.py B200
    python3 tools/calibration/moe_kernels.py B200 --path trtllm_gen
    python3 tools/calibration/moe_kernels.py B200 --low 0.33 --high 0.36

(--low and --high narrow the fraction searched; test/Validation's
moe-kernels.test checks the stdlib's values that way.)

The result is written by hand into stdlib/hardware/nvidia.llmsys with its
source; re-run it when the operator model (lib/Cost/OpCost.cpp) or the
MoE layer (lib/Passes/ExpandLayers.cpp) changes.
"""
import argparse
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import llmsys_run  # noqa: E402
from narrow import with_field  # noqa: E402

# num_tokens -> microseconds (blog 24's table; the DENSEGEMM column is a
# dense backend and is not fitted).
TABLE = {
    "cutlass": {1: 96.77, 8: 150.55, 16: 200.05, 32: 262.73, 48: 290.50,
                64: 308.44, 128: 335.65, 192: 350.68, 208: 354.73,
                224: 354.01, 256: 351.98, 272: 357.90, 336: 363.58,
                384: 368.12},
    "trtllm_gen": {1: 26.78, 8: 57.68, 16: 86.55, 32: 117.20, 48: 133.54,
                   64: 141.68, 128: 161.87, 192: 168.23, 208: 169.34,
                   224: 169.24, 256: 172.17, 272: 176.10, 336: 184.32,
                   384: 186.92},
}
ROUTED = {"moe.router", "moe.topk", "moe.dispatch", "moe.expert_up",
          "moe.expert_act", "moe.expert_down", "moe.combine"}
GEMMS = {"moe.expert_up", "moe.expert_down"}

SPEC = """import std.models.deepseek
import std.systems.nvidia
system cal_node {{ node {{ accelerator = {accel}; devices = 8; fabric = nvlink5 }} }}
mapping cal_tp8 {{ fusion = [flash_attention, swiglu, rmsnorm, rope{expert_act}]; precision = bf16; weights = fp4; activations = fp4; kv_cache = fp8; tp = 8 }}
"""
SCENARIO = ("serve n{n} {{ model = deepseek_v3; system = cal_node; "
            "mapping = cal_tp8; devices = 8; prompt = 1024 tokens; "
            "output = 2 tokens; batch = {n} }}\n")


def module_times(opt, stdlib, spec, counts):
    """Per token count: (routed MoE time of one decode layer, the number of
    expert GEMMs in it), at the stdlib's expert fields."""
    out = llmsys_run.run(opt, stdlib, ["--emit=costs", spec])
    times, scenario, in_moe = {}, None, False
    for line in out.splitlines():
        m = re.match(r"^costs n(\d+)", line)
        if m:
            scenario = int(m.group(1))
            times[scenario] = [0.0, 0]
            continue
        m = re.match(r"^\s*block (\S+)", line)
        if m:
            in_moe = m.group(1) == "moe-layer"
            continue
        m = re.match(r"^\s*decode\s+(\S+)\s+time\s+(\S+) s", line)
        if in_moe and m and m.group(1) in ROUTED and scenario is not None:
            times[scenario][0] += float(m.group(2)) * 1e6
            times[scenario][1] += m.group(1) in GEMMS
    missing = [n for n in counts if n not in times]
    if missing:
        sys.exit("no decode MoE layer for %s tokens" % missing)
    return times


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("accelerator")
    p.add_argument("--path", default="cutlass", choices=sorted(TABLE))
    p.add_argument("--low", type=float, default=0.10)
    p.add_argument("--high", type=float, default=1.00)
    p.add_argument("--llmsys-opt", default=os.path.join(
        ROOT, "build", "bin", "llmsys-opt"))
    a = p.parse_args()
    if not 0 < a.low <= a.high <= 1:
        sys.exit("--low and --high: 0 < low <= high <= 1")
    table = TABLE[a.path]
    counts = sorted(table)
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        stdlib, path = llmsys_run.copy_stdlib(tmp, ROOT)
        original = open(path).read()
        spec = os.path.join(tmp, "moe.llmsys")
        with open(spec, "w") as f:
            # TRTLLM-Gen runs the experts' activation inside the first
            # expert GEMM (expert_act); CUTLASS runs it as a kernel of its
            # own after it (moe_kernels.cu, gemm1's doActivation).
            f.write(SPEC.format(accel=a.accelerator,
                                expert_act=(", expert_act"
                                            if a.path == "trtllm_gen"
                                            else "")))
            for n in counts:
                f.write(SCENARIO.format(n=n))
        # The overhead adds the same time to each expert GEMM: one run per
        # bandwidth fraction, the overhead searched on its result.
        steps = int(round((a.high - a.low) / 0.005))
        for step in range(steps + 1):
            fraction = round(a.low + 0.005 * step, 3)
            text = with_field(original, a.accelerator, "expert_memory",
                              fraction)
            if text is None:
                sys.exit("no accelerator %s in stdlib/hardware/nvidia.llmsys"
                         % a.accelerator)
            text = with_field(text, a.accelerator, "expert_overhead", 0,
                              unit="us")
            open(path, "w").write(text)
            times = module_times(a.llmsys_opt, stdlib, spec, counts)
            for tenth in range(1001):
                overhead = tenth / 10.0
                errors = [(times[n][0] + times[n][1] * overhead) / table[n]
                          - 1 for n in counts]
                mean = sum(abs(e) for e in errors) / len(errors)
                if best is None or mean < best[0]:
                    best = (mean, fraction, overhead, errors, times)
    mean, fraction, overhead, errors, times = best
    print("%s MoE module (blog 24, %s path), llmsys at expert_memory %.3f, "
          "expert_overhead %.1f us:" % (a.accelerator, a.path, fraction,
                                        overhead))
    for n, e in zip(counts, errors):
        print("  %4d tokens  measured %7.2f us  llmsys %7.2f us  %+.1f%%" %
              (n, table[n], times[n][0] + times[n][1] * overhead, 100 * e))
    print("fit: expert_memory %.3f, expert_overhead %.1f us (mean |error| "
          "%.1f%% over %d token counts)" % (fraction, overhead, 100 * mean,
                                              len(counts)))


if __name__ == "__main__":
    main()
