#!/usr/bin/env python3
"""Instructions per training evaluation, counted by valgrind's callgrind.

Wall-clock benchmarks on the small, shared development machines move by
1.5x from run to run; an instruction count does not. For each llmsys-bench
binary given (this build and, say, a build of the previous main) and each
of the training-evaluation benchmarks, runs the benchmark under callgrind,
collecting only inside the two functions an evaluation calls
(driver::buildProgram into a reused program, and cost::costTraining), and
prints the instructions per evaluation. The benchmark's set-up builds the
program through the same function (a warm-up that allocates what later
evaluations reuse), once per round in which Google Benchmark sizes the
run; that set-up (the inclusive cost of the two-argument buildProgram,
which calls the collected one) is taken out of the total before it is
divided by the evaluations (the calls of costTraining, which the set-up
does not make), so the figure does not depend on how many evaluations or
rounds a run took.

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

BENCHES = ["BM_TrainingEval", "BM_TrainingEvalAllPasses",
           "BM_TrainingEvalFull"]
# The functions one evaluation runs (llmsys-bench.cpp, trainingEval). The
# set-up's buildProgram, the two-argument overload (SETUP), calls the
# collected one: its inclusive cost is subtracted. (buildProgram lived in
# lib/Passes before lib/Driver: both names, for older builds.)
COLLECT = [
    "llmsys::driver::buildProgram(llmsys::ir::ScenarioConfig const&, "
    "llmsys::passes::PassContext&, llmsys::ir::Program&)",
    "llmsys::passes::buildProgram(llmsys::ir::ScenarioConfig const&, "
    "llmsys::passes::PassContext&, llmsys::ir::Program&)",
    "llmsys::cost::costTraining(llmsys::ir::Program const&, bool, "
    "llmsys::cost::TrainingReport&)",
]
COUNTED = COLLECT[2]
SETUP = [
    "llmsys::driver::buildProgram(llmsys::ir::ScenarioConfig const&, "
    "llmsys::passes::PassContext&)",
    "llmsys::passes::buildProgram(llmsys::ir::ScenarioConfig const&, "
    "llmsys::passes::PassContext&)",
]


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
        # "N (x%)  file:function [object]": the set-up's inclusive cost.
        setup = 0
        inclusive = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100",
             out], capture_output=True, text=True, check=True).stdout
        for line in inclusive.splitlines():
            m = re.match(r"\s*([\d,]+) .*?:(llmsys::\S.*?\))(?: \[|$)", line)
            if m and m.group(2) in SETUP:
                setup += int(m.group(1).replace(",", ""))
        if not setup:
            raise RuntimeError(f"{binary} {bench}: the set-up was not found")
        return (total - setup) / calls, calls


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("binaries", nargs="+", help="llmsys-bench binaries")
    p.add_argument("--bench", action="append", choices=BENCHES,
                   help="benchmarks (default: all three)")
    p.add_argument("--min-time", default="0.5",
                   help="--benchmark_min_time under valgrind (default 0.5)")
    a = p.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("bench-instructions: valgrind is not installed")
    for bench in a.bench or BENCHES:
        for binary in a.binaries:
            per, calls = count(binary, bench, a.min_time)
            print(f"{bench:26s} {per / 1000:8.1f}k instructions an evaluation"
                  f" ({calls} evaluations)  {binary}")


if __name__ == "__main__":
    main()
