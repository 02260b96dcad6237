#!/usr/bin/env python3
"""Points per second of `llmsys sweep` on 1 and 2 MPI ranks (one thread
each), for a mapping sweep and a hardware x mapping sweep of the same size
with its hardware axes varying fastest and slowest
(tools/bench/mpi-sweeps.llmsys; docs/cli.md, "Sweeps over MPI"):

    python3 tools/bench-mpi.py [build/bin/llmsys] [--repeat N]

Prints a table; the outputs of every run are compared with the one-rank
run (they must be the same, byte for byte)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "tools", "bench", "mpi-sweeps.llmsys")


def run(cmd):
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("llmsys", nargs="?", default=os.path.join(ROOT, "build/bin/llmsys"))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    mpirun = shutil.which("mpirun")
    if not mpirun:
        sys.exit("bench-mpi: mpirun not found (tools/install-deps.sh installs openmpi-bin)")
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    print("%-18s %6s %12s %12s" % ("sweep", "ranks", "points", "points/s"))
    rates = {}
    for sweep in ("mapping_only", "hardware_mapping", "mapping_hardware"):
        base = None
        for ranks in (1, 2):
            cmd = [a.llmsys, "sweep", SPEC, "--sweep=" + sweep, "--threads=1", "-q"]
            if ranks > 1:
                cmd = [mpirun, "--oversubscribe", *root, "-np", str(ranks)] + cmd
            best = None
            for _ in range(a.repeat):
                secs, out = run(cmd)
                best = secs if best is None else min(best, secs)
                if base is None:
                    base = out
                elif out != base:
                    sys.exit("bench-mpi: %s on %d ranks printed another result" % (sweep, ranks))
            points = int(re.search(r"^(\d+) points:", base, re.M).group(1))
            rates[(sweep, ranks)] = points / best
            print("%-18s %6d %12d %12.0f" % (sweep, ranks, points, points / best))
    print("speed-up on 2 ranks: mapping %.2fx, hardware x mapping %.2fx" % (
        rates[("mapping_only", 2)] / rates[("mapping_only", 1)],
        rates[("hardware_mapping", 2)] / rates[("hardware_mapping", 1)]))
    print("hardware x mapping rate / mapping rate, 1 rank: %.2f (hardware "
          "axes fastest), %.2f (slowest)" % (
              rates[("hardware_mapping", 1)] / rates[("mapping_only", 1)],
              rates[("mapping_hardware", 1)] / rates[("mapping_only", 1)]))
    print("axis order, slowest / fastest hardware axes, 1 rank: %.2f" % (
        rates[("mapping_hardware", 1)] / rates[("hardware_mapping", 1)]))


if __name__ == "__main__":
    main()
