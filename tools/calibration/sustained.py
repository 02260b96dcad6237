#!/usr/bin/env python3
"""Fits an accelerator's `efficiency.sustained` on the training runs of the
validation suite that ran on it.

`sustained` is the one end-to-end calibration (docs/validation.md,
Calibration): the fraction of the short-run rate a device keeps up through
a training run. For each value of a grid this script copies stdlib/ to a
temporary folder with the value written into the accelerator's
`efficiency` block, runs `llmsys validate --format=csv` on the training
cases, keeps the cases whose scenario runs on one of the fitted devices,
and takes their mean |error| (leaving out the cases written
`calibrates = false`); the least is the fit. Ties (a flat least
|error|) go to the middle of the tied values, as in `llmsys validate
--cross-validate`. It prints every grid point and, at the fit, the mean |error| of
each source group.

    python3 tools/calibration/sustained.py A100_SXM_40GB \\
        --devices A100_SXM_40GB,A100_SXM_80GB
    python3 tools/calibration/sustained.py H100_SXM

The result is written by hand into stdlib/hardware/*.llmsys with this
script's name; re-run it when the cost model changes.
"""
import argparse
import csv
import io
import os
import re
import sys
import tempfile

import llmsys_run

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def with_sustained(text, accelerator, value):
    """text with `sustained = ...` of the accelerator's block set to value."""
    start = re.search(r"^accelerator\s+%s\b" % re.escape(accelerator), text,
                      re.M)
    if not start:
        sys.exit("no accelerator %s in stdlib/hardware" % accelerator)
    end = re.compile(r"^accelerator\s", re.M).search(text, start.end())
    stop = end.start() if end else len(text)
    field = re.compile(r"(\bsustained\s*=\s*)([0-9.]+)")
    m = field.search(text, start.end(), stop)
    if not m:
        sys.exit("accelerator %s sets no efficiency.sustained" % accelerator)
    return text[:m.start(2)] + repr(value) + text[m.end(2):]


def cases(llmsys, stdlib, folder):
    out = llmsys_run.run(llmsys, stdlib, ["validate", "--format=csv", folder])
    return list(csv.DictReader(io.StringIO(out)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("accelerator", help="the stdlib accelerator holding sustained")
    p.add_argument("--devices", help="devices whose cases are fitted "
                   "(comma-separated; default: the accelerator)")
    p.add_argument("--low", type=float, default=0.70)
    p.add_argument("--high", type=float, default=0.95)
    p.add_argument("--step", type=float, default=0.001)
    p.add_argument("--cases", default=os.path.join(ROOT, "test", "validation",
                                                   "training"))
    p.add_argument("--llmsys", default=os.path.join(ROOT, "build", "bin",
                                                    "llmsys"))
    a = p.parse_args()
    devices = set((a.devices or a.accelerator).split(","))
    hardware = os.path.join(ROOT, "stdlib", "hardware")
    files = {f: open(os.path.join(hardware, f)).read()
             for f in os.listdir(hardware) if f.endswith(".llmsys")}
    owner = [f for f, t in files.items()
             if re.search(r"^accelerator\s+%s\b" % re.escape(a.accelerator), t,
                          re.M)]
    if not owner:
        sys.exit("no accelerator %s in stdlib/hardware" % a.accelerator)
    n = int(round((a.high - a.low) / a.step))
    grid = [round(a.low + i * a.step, 6) for i in range(n + 1)]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        stdlib, _ = llmsys_run.copy_stdlib(tmp, ROOT)
        target = os.path.join(stdlib, "hardware", owner[0])
        for v in grid:
            with open(target, "w") as f:
                f.write(with_sustained(files[owner[0]], a.accelerator, v))
            # Cases written `calibrates = false` are not fitted on.
            rows = [r for r in cases(a.llmsys, stdlib, a.cases)
                    if r["kind"] == "train" and r["accelerator"] in devices
                    and r["calibrates"] == "true"]
            if not rows:
                sys.exit("no training case runs on %s" % ", ".join(devices))
            err = sum(abs(float(r["error"])) for r in rows) / len(rows)
            results.append((err, v, rows))
            print("sustained %.3f: %d cases, mean |error| %.3f%%"
                  % (v, len(rows), 100 * err))
    least = min(r[0] for r in results)
    tied = sorted((r for r in results if r[0] <= least * (1 + 1e-12)),
                  key=lambda r: r[1])
    err, best, rows = tied[(len(tied) - 1) // 2]
    print("fit: sustained %.3f, mean |error| %.3f%% over %d cases"
          % (best, 100 * err, len(rows)))
    groups = {}
    for r in rows:
        groups.setdefault(r["source"], []).append(abs(float(r["error"])))
    for g, e in sorted(groups.items()):
        print("  %s: %d cases, mean |error| %.2f%%"
              % (g, len(e), 100 * sum(e) / len(e)))


if __name__ == "__main__":
    main()
