#!/usr/bin/env python3
"""Instructions per training evaluation, counted by valgrind's callgrind.

Wall-clock benchmarks on the small, shared development machines move by
1.5x from run to run; an instruction count does not. For each llmsys-bench
binary given (this build and, say, a build of the previous main) and each
of the training-evaluation benchmarks, runs the benchmark under callgrind,
collecting only inside the two functions an evaluation calls
(driver::buildProgram into a reused program, and cost::costTraining), and
prints the instructions per evaluation. The benchmark's set-up builds the
program once through the same function (a warm-up that allocates what
later evaluations reuse), so the total over the calls would depend on how
many evaluations the run happened to take; each benchmark is run twice,
for --min-time and for four times as long, and the figure is the
difference of the two totals over the difference of their calls: the
same for any two runs of one build.

  python3 tools/bench-instructions.py build/bin/llmsys-bench \\
      ../old/build/bin/llmsys-bench [--bench BM_TrainingEvalFull ...]

Needs valgrind (`tools/install-deps.sh --optional`; callgrind_annotate
comes with it). Not a test: a figure to quote beside the wall-clock ones
(docs/building.md).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCHES = ["BM_TrainingEval", "BM_TrainingEvalAllPasses", "BM_TrainingEvalFull"]
# The functions one evaluation runs (llmsys-bench.cpp, trainingEval); the
# setup's buildProgram is the two-argument overload, not collected. (It
# lived in lib/Passes before lib/Driver: both names, for older builds.)
COLLECT = [
    "llmsys::driver::buildProgram(llmsys::ir::ScenarioConfig const&, "
    "llmsys::passes::PassContext&, llmsys::ir::Program&)",
    "llmsys::passes::buildProgram(llmsys::ir::ScenarioConfig const&, "
    "llmsys::passes::PassContext&, llmsys::ir::Program&)",
    "llmsys::cost::costTraining(llmsys::ir::Program const&, bool, "
    "llmsys::cost::TrainingReport&)",
]
COUNTED = COLLECT[2]


def count(binary, bench, min_time):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
               f"--callgrind-out-file={out}"]
        cmd += [f"--toggle-collect={f}" for f in COLLECT]
        cmd += [binary, f"--benchmark_filter=^{bench}$",
                f"--benchmark_min_time={min_time}"]
        subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        total = None
        with open(out) as f:
            for line in f:
                if line.startswith("totals:") or line.startswith("summary:"):
                    total = int(line.split()[1])
        calls = 0
        tree = subprocess.run(["callgrind_annotate", "--tree=caller", out],
                              capture_output=True, text=True,
                              check=True).stdout
        # "N (x%)  *  file:function" heads a function's block; the calls
        # are on its callers' lines: "< caller (Kx)".
        block = []
        for line in tree.splitlines():
            if not line.strip():
                block = []
                continue
            block.append(line)
            if "*  " in line and COUNTED.split("(")[0] in line and \
                    COUNTED.split("(", 1)[1] in line:
                for caller in block[:-1]:
                    m = re.search(r"\((\d[\d,]*)x\)", caller)
                    if m:
                        calls += int(m.group(1).replace(",", ""))
        if not total or not calls:
            raise RuntimeError(f"{binary} {bench}: nothing counted")
        return total, calls


def per_evaluation(binary, bench, min_time):
    """Instructions of one evaluation, set-up excluded, and the calls of
    the longer run."""
    short_total, short_calls = count(binary, bench, min_time)
    long_total, long_calls = count(binary, bench, str(4 * float(min_time)))
    if long_calls <= short_calls:
        raise RuntimeError(f"{binary} {bench}: the longer run made no more "
                           "evaluations (raise --min-time)")
    return (long_total - short_total) / (long_calls - short_calls), long_calls


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("binaries", nargs="+", help="llmsys-bench binaries")
    p.add_argument("--bench", action="append", choices=BENCHES,
                   help="benchmarks (default: all three)")
    p.add_argument("--min-time", default="0.15",
                   help="--benchmark_min_time under valgrind of the shorter "
                   "of the two runs (default 0.15; the longer runs 4x)")
    a = p.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("bench-instructions: valgrind is not installed")
    for bench in a.bench or BENCHES:
        for binary in a.binaries:
            per, calls = per_evaluation(binary, bench, a.min_time)
            print(f"{bench:26s} {per / 1000:8.1f}k instructions an evaluation"
                  f" ({calls} evaluations)  {binary}")


if __name__ == "__main__":
    main()
