#!/usr/bin/env python3
"""The engine settings `trtllm-bench build --dataset` chose for TensorRT-LLM's
perf-overview of version 0.15.0, recomputed for every case of
test/validation/inference/trtllm015/h100_a100.llmsys.

That page's engines were built with `trtllm-bench build ... --dataset`,
which "uses high-level statistics of the dataset (average ISL/OSL, max
sequence length) and tuning heuristics to optimize engine build settings"
(the page). The heuristic (NVIDIA/TensorRT-LLM
tensorrt_llm/bench/build/tuning.py, calc_engine_setting and
finetune_setting, the earliest stored revision; the FP8 and unquantized
engines take it, build.py get_benchmark_engine_settings) sizes the KV cache
from the GPUs' total memory (NVML, in GiB: bench/build/utils.py
get_device_memory) less the parameters (the Hugging Face safetensors count,
in units of 1e9, at 1 byte for FP8 and 2 otherwise), at the fraction 0.95,
with at least one KV head a GPU, and derives

  requests = KV memory / bytes a token / (ISL + OSL)
  raw_bs   = min(requests, 4096) / pp
  raw_tok  = min(raw_bs x (1 + ISL / OSL), 32768)
  max_batch  = max(64, 32 ceil(raw_bs / 32)) below 256, 128 ceil(raw_bs / 128)
               below 1024, else 256 ceil(raw_bs / 256)
  max_tokens = max(2048, 256 ceil(raw_tok / 256)) below 4096, 512 ceil(raw_tok
               / 512) below 8192, else 1024 ceil(raw_tok / 1024)

The same formula reproduces, to the printed digit, the estimates the
heuristic logs in two published trtllm-bench runs (version 0.16.0, Llama
3.1 405B FP8 on 8 H200 of 143771 MiB: 717.36 GB available, 681.49 GB of
KV cache, 11076.91 requests; version 0.17.0, Llama 3.1 8B FP8 on one H200:
132.37, 125.75 GB, 8048.16 requests).

Inputs, from their sources: NVML totals as nvidia-smi prints them
(H100 80GB HBM3 81559 MiB, A100-SXM4-80GB 81920 MiB); parameter counts
summed over each checkpoint's safetensors (model.safetensors.index.json
total_size / 2 for the BF16 ones); layers, KV heads and head size from
each config.json.

    python3 tools/calibration/trtllm_bench_settings.py [FILE]
        [--check]

Prints each case's settings beside the file's; --check exits 1 when a
case's max_batch or max_tokens differs from the heuristic's.
"""

import argparse
import math
import os
import re
import sys

# name in the case file: (checkpoint, parameters, layers, KV heads, head size)
MODELS = {
    "llama3_1_8b": ("meta-llama/Llama-3.1-8B", 8_030_261_248, 32, 8, 128),
    "llama3_1_70b": ("meta-llama/Llama-3.1-70B", 70_553_706_496, 80, 8, 128),
    "trt015_mistral_7b": ("mistralai/Mistral-7B-v0.1", 7_241_732_096, 32, 8,
                          128),
    "mixtral_8x7b": ("mistralai/Mixtral-8x7B-v0.1", 46_702_792_704, 32, 8,
                     128),
    "mixtral_8x22b": ("mistralai/Mixtral-8x22B-v0.1", 140_620_634_112, 56, 8,
                      128),
}
# NVML total memory in GiB (nvidia-smi's MiB / 1024), by the case's system.
NVML_GIB = {
    "dgx_h100": 81559 / 1024,  # NVIDIA H100 80GB HBM3: 81559 MiB
    "dgx_a100": 81920 / 1024,  # NVIDIA A100-SXM4-80GB: 81920 MiB
}
FRACTION = 0.95  # calc_engine_setting's kv_cache_gpu_mem_fraction


def round_up(x, floor, small, mid, large):
    """finetune_setting's rounding: below `small` limit up to a multiple of
    its step (at least `floor`), below `mid` to a multiple of its step, else
    of `large`'s step. Each of small and mid is (limit, step)."""
    (small_limit, small_step), (mid_limit, mid_step) = small, mid
    if x < small_limit:
        return max(floor, small_step * math.ceil(x / small_step))
    step = mid_step if x < mid_limit else large
    return step * math.ceil(x / step)


def finetune(requests, isl, osl, pp):
    raw_bs = min(requests, 4096) / pp
    raw_tok = min(raw_bs * (1 + isl / osl), 32768)
    return (round_up(raw_bs, 64, (256, 32), (1024, 128), 256),
            round_up(raw_tok, 2048, (4096, 256), (8192, 512), 1024))


def engine_settings(model, fp8, tp, pp, isl, osl, gib):
    _, params, layers, kv_heads, head = MODELS[model]
    weight_bytes = 1 if fp8 else 2
    kv_bytes = 1 if fp8 else 2  # FP8 engines keep an FP8 KV cache
    token_gib = 2 * layers * max(tp, kv_heads) * head * kv_bytes / 1024**3
    total = gib * tp * pp
    engine = params / 1000**3 * weight_bytes
    requests = (total - engine) * FRACTION / token_gib / (isl + osl)
    if total < engine or requests < 1:
        raise ValueError(f"{model} does not fit on {tp * pp} GPUs")
    bs, tok = finetune(requests, isl, osl, pp)
    return bs, tok, requests


SERVE = re.compile(r"^serve (\S+) \{(.*?)^\}", re.S | re.M)


def field(body, pattern):
    m = re.search(pattern, body, re.M)
    if not m:
        raise ValueError(f"no match for {pattern!r}")
    return m.group(1)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "test", "validation", "inference",
                           "trtllm015", "h100_a100.llmsys")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file", nargs="?", default=default)
    p.add_argument("--check", action="store_true",
                   help="exit 1 when a case's settings differ")
    a = p.parse_args()
    text = open(a.file).read()
    differ = 0
    cases = 0
    print(f"{'case':44s} {'requests':>9s} {'max_batch':>9s} "
          f"{'max_tokens':>10s}  file")
    for m in SERVE.finditer(text):
        name, body = m.group(1), m.group(2)
        mapping = field(body, r"^\s*mapping = (\S+) \{")
        tp = int(field(body, r"^\s*mapping = \S+ \{ tp = (\d+)"))
        bs, tok, req = engine_settings(
            field(body, r"^\s*model = (\S+)"), mapping.endswith("fp8"), tp, 1,
            int(field(body, r"^\s*prompt = (\d+) tokens")),
            int(field(body, r"^\s*output = (\d+) tokens")),
            NVML_GIB[field(body, r"^\s*system = (\S+)")])
        have = (int(field(body, r"^\s*max_batch = (\d+)")),
                int(field(body, r"^\s*max_tokens = (\d+)")))
        mark = "" if have == (bs, tok) else f"  {have[0]}/{have[1]} DIFFERS"
        differ += bool(mark)
        cases += 1
        print(f"{name:44s} {req:9.1f} {bs:9d} {tok:10d}{mark}")
    print(f"{cases} cases, {differ} differ")
    if a.check and (differ or not cases):
        sys.exit(1)


if __name__ == "__main__":
    main()
