#!/usr/bin/env python3
"""The all-reduce inside a node against NCCL's measured times: LLMCompass's
23 all-reduce latencies on four A100s over NVLink 3, 4 kB to 16 GB
(reference/validation/measured_dev.csv rows LLMC-ALLREDUCE-4xA100-*, the
rows the stdlib's `nvlink3` efficiency and latency were calibrated on:
tools/calibration/README.md).

Each size is a training step's tensor-parallel all-reduce (NCCL's, as a
training framework calls it) on the stdlib's DGX A100 cut to four
devices: a one-layer model of hidden size 2048 at TP 4, micro-batch and
sequence chosen so that the forward's all-reduce moves the row's bytes.
The script prints llmsys's time beside the measured one, and beside it
the tree form `2 log2(n) a + 2 S / B` (NCCL's double binary tree, which
runs between nodes; llmsys used it inside a node too before 2026-12-04),
with `a` and `B` read back from llmsys's own ring time and bandwidth.

    python3 tools/calibration/allreduce.py [--llmsys build/bin/llmsys-opt]
        [--check PCT]

--check exits 1 when llmsys's mean |error| over the rows passes PCT.

With --engine, a serving engine's own all-reduce instead: vLLM's one-shot
and two-stage custom all-reduces on four and six H100s, 0.5 to 4 MiB
(reference/validation/measured_added.csv rows VLLM-CA1-* and VLLM-CA2-*,
published timings no stdlib value was set from: nvlink4's efficiency is
NVLink 3's and its latency ASTRA-sim's). Each size is a decode step's
tensor-parallel all-reduce on the stdlib's DGX H100 at TP 4 or 6: a
one-layer model of hidden size 8192, a batch of size / (2 x 8192)
requests. On four devices the error is against the one-shot kernel (what
--check bounds), on six against the faster of the two kernels. The
measured time is one operation as the benchmark times it; llmsys's
includes the kernel's fixed time (kernel_overhead: the benchmark replays
CUDA graphs).

With --trtllm, TensorRT-LLM's own all-reduce (its AllReduce at strategy
AUTO, in CUDA graphs) on 2, 4 and 8 H100s and H200s, 0.5 to 16 MiB
(reference/kernels/aiconfigurator-allreduce-2026-08, NVIDIA
aiconfigurator's timings of TensorRT-LLM 1.3.0rc20; --version picks
another release the file holds): each size a decode step's all-reduce on
the stdlib's DGX H100 or HGX H200, as with --engine. A record, not a fit:
the script prints the error per size, per group size and overall.
"""
import argparse
import csv
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import llmsys_run  # noqa: E402
HIDDEN = 2048
TRTLLM_DATA = os.path.join(ROOT, "reference", "kernels",
                           "aiconfigurator-allreduce-2026-08",
                           "trtllm_allreduce.csv")
# The data's device names -> the stdlib system a decode step runs on.
TRTLLM_SYSTEMS = {"NVIDIA H100 80GB HBM3": ("H100", "dgx_h100"),
                  "NVIDIA H200": ("H200", "hgx_h200")}
# The sizes of a decode or prefill step's all-reduce (bytes).
TRTLLM_SIZES = [2 ** k for k in range(19, 25)]
MAX_SEQ = 65536
ENGINE_HIDDEN = 8192


def measured(table, pattern):
    """(bytes, seconds) of the rows of reference/validation/TABLE whose id
    matches PATTERN (its group: the size in bytes), smallest first."""
    path = os.path.join(ROOT, "reference", "validation", table)
    out = []
    for r in csv.DictReader(open(path)):
        m = re.match(pattern, r["id"])
        if m:
            out.append((int(m.group(1)), float(r["measured_value"]) * 1e-6))
    return sorted(out)


def engine_spec(sizes, n, system="dgx_h100", kv_heads=12):
    # Heads, K/V heads and FFN divisible by 4 and 6 (K/V heads 24 for 8
    # too); the all-reduce moves the hidden size's activations whatever
    # they are.
    text = ["import std.systems.nvidia",
            f"model arm {{ layers = 1; hidden = {ENGINE_HIDDEN}; heads = 48; "
            f"kv_heads = {kv_heads}; head_dim = 128; vocab = 256; max_seq = 4096; "
            f"ffn = 12288 }}"]
    for s in sizes:
        batch = s // (2 * ENGINE_HIDDEN)  # bf16 activations, one token each
        assert batch * 2 * ENGINE_HIDDEN == s, s
        text.append(f"serve s{s} {{ model = arm; system = {system}; "
                    f"mapping {{ tp = {n}; precision = bf16 }}; "
                    f"devices = {n}; batch = {batch}; prompt = 16 tokens; "
                    f"output = 2 tokens }}")
    return "\n".join(text) + "\n"


def spec(sizes):
    text = ["import std.systems.nvidia",
            f"model arm {{ layers = 1; hidden = {HIDDEN}; heads = 16; "
            f"vocab = 256; max_seq = {MAX_SEQ}; ffn = {HIDDEN} }}",
            "system a4 extends dgx_a100 { node { devices = 4 } }"]
    for s in sizes:
        tokens = s // (2 * HIDDEN)  # bf16 activations
        seq = min(tokens, MAX_SEQ)
        batch = tokens // seq
        assert seq * batch * 2 * HIDDEN == s, s
        text.append(f"train s{s} {{ model = arm; system = a4; mapping {{ "
                    f"tp = 4; micro_batch = {batch}; global_batch = {batch} "
                    f"}}; seq_len = {seq} }}")
    return "\n".join(text) + "\n"


def first_collectives(stdout, phase):
    """{size: (form, bytes, time, bandwidth)}: each scenario's first
    tensor-parallel all-reduce of PHASE in `llmsys-opt --emit=costs`."""
    got = {}
    current = None
    for line in stdout.splitlines():
        m = re.match(r"costs s(\d+) ", line)
        if m:
            current = int(m.group(1))
            continue
        m = re.match(r"\s+" + phase + r"\s+tp\.allreduce\s+all-reduce (\S+) "
                     r"bytes (\S+) time (\S+) s bandwidth (\S+) B/s", line)
        if m and current is not None and current not in got:
            got[current] = (m.group(1), float(m.group(2)), float(m.group(3)),
                            float(m.group(4)))
    return got


def summary(errs):
    """Prints the mean and the largest |error| over the sizes; returns the
    mean in percent."""
    mean = 100 * sum(errs) / len(errs)
    print("llmsys: %d sizes, mean |error| %.1f%%, max %.1f%%" % (
        len(errs), mean, 100 * max(errs)))
    return mean


def fail_past(mean, check):
    """Exits 1 when the mean |error| MEAN passes CHECK percent."""
    if check is not None and mean > check:
        print("FAILED: mean |error| %.1f%% over %.1f%%" % (mean, check))
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    llmsys_run.opt_arguments(ap, ROOT)
    ap.add_argument("--check", type=float, default=None,
                    help="fail when the mean |error| passes PCT")
    ap.add_argument("--engine", action="store_true",
                    help="a serving engine's all-reduce on 4 and 6 H100s")
    ap.add_argument("--trtllm", action="store_true",
                    help="TensorRT-LLM's all-reduce on 2, 4 and 8 H100s "
                    "and H200s")
    ap.add_argument("--version", default="1.3.0rc20",
                    help="with --trtllm, the TensorRT-LLM release's timings")
    a = ap.parse_args()
    if a.engine:
        return engine(a)
    if a.trtllm:
        return trtllm(a)
    data = measured("measured_dev.csv", r"LLMC-ALLREDUCE-4xA100-(\d+)B$")
    got = first_collectives(
        llmsys_run.costs(a.llmsys, spec([s for s, _ in data])), "fwd")
    n = 4
    errs, tree_errs = [], []
    print("%12s %12s %12s %8s %9s %12s %8s" % (
        "bytes", "measured", "llmsys", "error", "form", "tree form", "error"))
    for s, t in data:
        form, _, mine, bw = got[s]
        # a from the ring: t = 2 (n-1) a + 2 (n-1)/n S / B.
        a_step = (mine - 2 * (n - 1) / n * s / bw) / (2 * (n - 1))
        tree = 2 * math.log2(n) * a_step + 2 * s / bw
        e, te = mine / t - 1, tree / t - 1
        errs.append(abs(e))
        tree_errs.append(abs(te))
        print("%12d %10.2f us %10.2f us %+7.1f%% %9s %10.2f us %+7.1f%%" % (
            s, t * 1e6, mine * 1e6, 100 * e, form, tree * 1e6, 100 * te))
    mean = summary(errs)
    print("tree form: mean |error| %.1f%%, max %.1f%%" % (
        100 * sum(tree_errs) / len(tree_errs), 100 * max(tree_errs)))
    fail_past(mean, a.check)


def engine(a):
    """On 4 devices, llmsys against the one-shot kernel (--check bounds
    that mean); on 6, beside both kernels, against the faster of them."""
    for n in (4, 6):
        one = dict(measured("measured_added.csv",
                            r"VLLM-CA1-%dxH100-(\d+)B$" % n))
        two = dict(measured("measured_added.csv",
                            r"VLLM-CA2-%dxH100-(\d+)B$" % n))
        sizes = sorted(one)
        got = first_collectives(
            llmsys_run.costs(a.llmsys, engine_spec(sizes, n)), "decode")
        print("%d devices:" % n)
        print("%12s %12s %12s %12s %8s %9s" % (
            "bytes", "one-shot", "two-stage", "llmsys", "error", "form"))
        errs = []
        for s in sizes:
            form, size, mine, _ = got[s]
            assert abs(size / s - 1) < 1e-3, (size, s)
            t = one[s] if n == 4 else min(one[s], two.get(s, one[s]))
            e = mine / t - 1
            errs.append(abs(e))
            print("%12d %10.2f us %10.2f us %10.2f us %+7.1f%% %9s" % (
                s, one[s] * 1e6, two[s] * 1e6 if s in two else float("nan"),
                mine * 1e6, 100 * e, form))
        mean = summary(errs)
        if n == 4:
            check = mean
    fail_past(check, a.check)


def trtllm(a):
    """llmsys beside TensorRT-LLM's measured all-reduce, per part and group
    size; --check bounds the mean over them all."""
    table = {}
    for r in csv.DictReader(open(TRTLLM_DATA)):
        if r["version"] == a.version:
            table[(r["device"], int(r["num_gpus"]),
                   int(r["message_bytes"]))] = float(r["latency_us"]) * 1e-6
    if not table:
        sys.exit("no timings of TensorRT-LLM %s" % a.version)
    everything = []
    for device, (part, system) in TRTLLM_SYSTEMS.items():
        for n in (2, 4, 8):
            sizes = [s for s in TRTLLM_SIZES if (device, n, s) in table]
            if not sizes:
                continue
            got = first_collectives(
                llmsys_run.costs(a.llmsys,
                                 engine_spec(sizes, n, system, kv_heads=24)),
                "decode")
            print("%s, %d devices (TensorRT-LLM %s):" % (part, n, a.version))
            print("%12s %12s %12s %8s %9s" % (
                "bytes", "measured", "llmsys", "error", "form"))
            errs = []
            for s in sizes:
                form, size, mine, _ = got[s]
                assert abs(size / s - 1) < 1e-3, (size, s)
                t = table[(device, n, s)]
                e = mine / t - 1
                errs.append(abs(e))
                print("%12d %10.2f us %10.2f us %+7.1f%% %9s" % (
                    s, t * 1e6, mine * 1e6, 100 * e, form))
            summary(errs)
            everything += errs
    print("all:", end=" ")
    mean = summary(everything)
    fail_past(mean, a.check)


if __name__ == "__main__":
    main()
