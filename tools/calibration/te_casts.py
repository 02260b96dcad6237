#!/usr/bin/env python3
"""Reads the cast kernels' rate of Transformer Engine's MXFP8 recipe
(`cast_efficiency` of `te_mxfp8`, stdlib/recipes/transformer_engine.llmsys)
off a B200 timing of its quantize kernel; a derivation, not a fit.

reference/kernels/te-mxfp8-quantize-b200-2026-05/quantize.csv holds three
timings of Transformer Engine's MXFP8 quantize kernel on a B200 (8192 x
8192 BF16; the row-scaled copy, the column-scaled one, and both from one
kernel, which is how the recipe casts). The `both` row moves a BF16 read
(2 bytes an element) and two MXFP8 copies with their E8M0 scales (2 x (1 +
1/32) bytes); its bytes over its time, over the B200's memory-bound rate
in llmsys (hbm.bandwidth x efficiency.memory, as the stdlib resolves
them), is the recipe's rate.

    python3 tools/calibration/te_casts.py
"""
import argparse
import csv
import os

from torchao_casts import memory_rate, written

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "reference", "kernels",
                    "te-mxfp8-quantize-b200-2026-05", "quantize.csv")
RECIPE_FILE = os.path.join(ROOT, "stdlib", "recipes",
                           "transformer_engine.llmsys")
BLOCK = 32   # MXFP8: one 1-byte E8M0 scale per 32 elements
BYTES = {"rowwise": 2 + (1 + 1 / BLOCK), "colwise": 2 + (1 + 1 / BLOCK),
         "both": 2 + 2 * (1 + 1 / BLOCK)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llmsys",
                   default=os.path.join(ROOT, "build", "bin", "llmsys-opt"),
                   help="the llmsys-opt binary")
    a = p.parse_args()
    rate = memory_rate(a.llmsys, "B200")
    print("B200 memory-bound rate in llmsys: %.2f TB/s" % (rate / 1e12))
    for r in csv.DictReader(open(DATA)):
        elements = int(r["rows"]) * int(r["cols"])
        moved = elements * BYTES[r["scaling"]]
        bandwidth = moved / (float(r["b200_us"]) * 1e-6)
        print("%-4s %-7s %5s x %-5s %7.2f us  %6.1f MB  %.2f TB/s  %.3f"
              % (r["itype"], r["scaling"], r["rows"], r["cols"],
                 float(r["b200_us"]), moved / 1e6, bandwidth / 1e12,
                 bandwidth / rate))
    print("te_mxfp8 writes cast_efficiency %.2f (the 'both' row)"
          % written("te_mxfp8", RECIPE_FILE))


if __name__ == "__main__":
    main()
