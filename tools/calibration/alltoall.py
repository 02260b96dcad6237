#!/usr/bin/env python3
"""Expert-parallel all-to-all against TensorRT-LLM's measured one-sided
kernel: the dispatch and combine latencies of tech blog 18 (NVIDIA/
TensorRT-LLM @ 22de8b34df71bb6653612c1f3de00c7288482eb4,
docs/source/blogs/tech_blog/blog18_Optimizing_MoE_Communication_with_
One_Sided_AlltoAll_Over_NVLink.md, "Scaling With Batch Size and EP Size"):
GB200 NVL72, DeepSeek-V3's hidden size 7168 and top 8, BF16 dispatch and
combine, EP 8 to 64, 1 to 2048 tokens a rank (the blog's bandwidth,
batch x min(ep, top_k) x bytes a token over the latency, counts top_k
copies of each token, as llmsys does).

Each point is a decode step of stdlib DeepSeek-V3 on stdlib gb200_nvl72 at
`dp = ep` with that batch a rank (`llmsys-opt --emit=costs`, the decode's
ep.dispatch and ep.combine); the script prints llmsys's time beside the
measured ones and the mean |error| by EP size.

    python3 tools/calibration/alltoall.py [--llmsys build/bin/llmsys-opt]
        [--check PCT]

--check exits 1 when the mean |error| over the EP 8 points with 64 or more
tokens a rank (the bandwidth-bound ones) passes PCT.

--fit searches (0 to 60 us by 0.1 us) the fabric's `alltoall_latency` (the
one-sided kernel's fixed time beside its bytes) that gives the least mean
|error| over all 96 points, and prints it with the errors by EP size; the
stdlib's nvlink5 writes the result by hand with its source.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import llmsys_run  # noqa: E402

# tokens a rank -> {ep: (dispatch us, combine us)} (blog 18's tables).
TABLE = {
    1: {8: (18.9, 31.0), 16: (18.8, 30.8), 32: (19.8, 31.4), 64: (27.8, 32.6)},
    2: {8: (18.4, 31.1), 16: (19.1, 31.4), 32: (19.7, 31.3), 64: (24.8, 32.2)},
    4: {8: (18.1, 31.4), 16: (18.5, 31.6), 32: (19.6, 31.4), 64: (29.1, 33.0)},
    8: {8: (17.6, 31.4), 16: (18.9, 31.8), 32: (19.4, 32.2), 64: (20.4, 33.3)},
    16: {8: (18.5, 32.6), 16: (18.4, 33.0), 32: (18.9, 33.4), 64: (20.6, 35.0)},
    32: {8: (18.2, 32.7), 16: (20.2, 34.2), 32: (21.1, 34.6), 64: (23.1, 36.1)},
    64: {8: (22.3, 34.1), 16: (24.1, 35.6), 32: (26.2, 36.4), 64: (28.8, 37.7)},
    128: {8: (31.7, 38.1), 16: (34.6, 39.9), 32: (37.8, 41.1), 64: (41.6, 44.5)},
    256: {8: (50.8, 53.0), 16: (54.8, 57.0), 32: (61.5, 59.7), 64: (65.3, 62.9)},
    512: {8: (89.5, 91.7), 16: (97.1, 98.2), 32: (109.6, 102.5), 64: (115.7, 106.7)},
    1024: {8: (166.3, 175.6), 16: (181.2, 188.2), 32: (197.5, 197.5), 64: (209.4, 199.2)},
    2048: {8: (311.8, 322.6), 16: (343.3, 348.4), 32: (373.7, 369.5), 64: (399.2, 372.1)},
}
EPS = (8, 16, 32, 64)


def spec(probe):
    """The scenarios on stdlib gb200_nvl72, or (probe) on a copy whose
    fabric's alltoall_latency is 1 us: every time is then its bytes, the
    kernel's launch and 1 us, and a constant c gives time - 1 us + c."""
    text = ["import std.systems.nvidia", "import std.models.deepseek"]
    system = "gb200_nvl72"
    if probe:
        text += ["network a2a_probe extends nvlink5_nvl72 { alltoall_latency = 1 us }",
                 "system a2a_nvl72 extends gb200_nvl72 { node { fabric = a2a_probe } }"]
        system = "a2a_nvl72"
    for bs in TABLE:
        for ep in EPS:
            text.append(
                f"serve e{ep}_b{bs} {{ model = deepseek_v3; system = {system}; "
                f"mapping {{ dp = {ep}; ep = {ep} }}; devices = {ep}; "
                f"prompt = 16 tokens; output = 2 tokens; batch = {bs} }}")
    return "\n".join(text) + "\n"


def times(llmsys, probe):
    """(ep, tokens) -> {dispatch, combine: llmsys's decode time in us}."""
    stdout = llmsys_run.costs(llmsys, spec(probe))
    got, current = {}, None
    for line in stdout.splitlines():
        m = re.match(r"costs e(\d+)_b(\d+) ", line)
        if m:
            current = (int(m.group(1)), int(m.group(2)))
            continue
        m = re.match(r"\s+decode\s+ep\.(dispatch|combine)\s+all-to-all \S+ "
                     r"bytes \S+ time (\S+) s", line)
        if m and current is not None:
            got.setdefault(current, {})[m.group(1)] = float(m.group(2)) * 1e6
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    llmsys_run.opt_arguments(ap, ROOT)
    ap.add_argument("--check", type=float, default=None,
                    help="fail when the EP 8 bandwidth-bound mean passes PCT")
    ap.add_argument("--fit", action="store_true",
                    help="fit the fabric's alltoall_latency to the table")
    a = ap.parse_args()
    got = times(a.llmsys, probe=False)
    errs = {ep: [] for ep in EPS}
    bound = []
    print("%4s %6s %18s %18s %16s" % ("ep", "tokens", "dispatch meas/llm",
                                       "combine meas/llm", "errors"))
    for bs in TABLE:
        for ep in EPS:
            d, c = TABLE[bs][ep]
            ld, lc = got[(ep, bs)]["dispatch"], got[(ep, bs)]["combine"]
            ed, ec = ld / d - 1, lc / c - 1
            errs[ep] += [abs(ed), abs(ec)]
            if ep == 8 and bs >= 64:
                bound += [abs(ed), abs(ec)]
            print("%4d %6d %8.1f %8.1f us %8.1f %8.1f us %+7.1f%% %+7.1f%%" % (
                ep, bs, d, ld, c, lc, 100 * ed, 100 * ec))
    for ep in EPS:
        print("ep %d: mean |error| %.1f%% over %d" % (
            ep, 100 * sum(errs[ep]) / len(errs[ep]), len(errs[ep])))
    mean = 100 * sum(bound) / len(bound)
    print("ep 8, 64 tokens or more: mean |error| %.1f%% over %d" % (
        mean, len(bound)))
    if a.fit:
        probe = times(a.llmsys, probe=True)

        def errors(c):
            by = {ep: [] for ep in EPS}
            for bs in TABLE:
                for ep in EPS:
                    for k, meas in zip(("dispatch", "combine"), TABLE[bs][ep]):
                        t = probe[(ep, bs)][k] - 1 + c
                        by[ep].append(abs(t / meas - 1))
            return by
        best = min((i / 10 for i in range(0, 601)),
                   key=lambda c: sum(sum(v) for v in errors(c).values()))
        by = errors(best)
        n = sum(len(v) for v in by.values())
        print("fit: alltoall_latency %.1f us: mean |error| %.1f%% "
              "over %d (%s)" % (
                  best, 100 * sum(sum(v) for v in by.values()) / n, n,
                  ", ".join("ep %d %.1f%%" % (ep, 100 * sum(v) / len(v))
                            for ep, v in by.items())))
    if a.check is not None and mean > a.check:
        print("FAILED: mean |error| %.1f%% over %.1f%%" % (mean, a.check))
        sys.exit(1)


if __name__ == "__main__":
    main()
