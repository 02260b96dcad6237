#!/usr/bin/env python3
"""What a decode step misses: the in-flight-batched serving cases of a file,
each as the time per decode step llmsys predicts at the batch its
simulation ran, split by kind of work, beside the time the measured
throughput implies.

For each `serve` scenario of FILE that has `traffic` and a throughput
`measurement` whose output is at least --min-ratio times its prompt
(decode-heavy: the prompts' prefill is a small part of the run), the script
takes the simulation's mean batch and time per output token (`llmsys eval
--format=json`), writes the scenario again as a static batch of that size
(its `traffic` block removed, `batch = N` added, the engine's
step_overhead and sequence_overhead set to 0: the devices' step alone) and
reads that batch's
decode operators and collectives (one step at the mean context). The
measured step is the predicted one times (1 + error) (`llmsys validate
--format=csv`): the throughput is the batch over the step time when the
batch is the same. "missing" is their difference: the time per step that
llmsys does not cost. It is a diagnostic, not a fit: docs/validation.md
quotes what it shows for trtllm015.

    python3 tools/calibration/step_residuals.py \\
        test/validation/inference/trtllm015/h100_a100.llmsys

Expects the case file's layout (test/validation/README.md): each `serve NAME {`
block closed by a `}` alone on its line, with a `traffic { ... }` block.
"""
import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile


def run(llmsys, args):
    out = subprocess.run([llmsys] + args, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(out.stderr)
    return out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    ap.add_argument("--llmsys",
                    default=os.path.join(root, "build", "bin", "llmsys"))
    ap.add_argument("--min-ratio", type=float, default=4.0,
                    help="least output/prompt ratio of a case (default 4)")
    a = ap.parse_args()
    path = os.path.abspath(a.file)
    src = open(path).read()
    errors = {}
    for row in csv.DictReader(io.StringIO(
            run(a.llmsys, ["validate", "--format=csv", path]))):
        errors[row["case"]] = float(row["error"])
    cases = dict(re.findall(
        r"measurement \S+ \{\s*scenario = (\S+).*?case = \"([^\"]+)\"",
        src, re.S))
    blocks = dict(re.findall(r"^serve (\S+) \{\n(.*?)^\}", src, re.S | re.M))
    evaluated = json.loads(run(a.llmsys, ["eval", "-q", "--format=json", path]))
    static = ['import "%s"' % path]
    meta = {}
    for s in evaluated["scenarios"]:
        name = s["name"]
        case = cases.get(name)
        if (case is None or case not in errors or name not in blocks or
                s.get("mean_batch") is None):
            continue
        body = blocks[name]
        prompt = re.search(r"prompt = (\d+)", body)
        output = re.search(r"output = (\d+)", body)
        if not prompt or not output or \
                int(output.group(1)) < a.min_ratio * int(prompt.group(1)):
            continue
        batch = max(1, round(s["mean_batch"]))
        body = re.sub(r"  traffic \{.*?\n  \}\n", "", body, flags=re.S)
        # (The engine's host time between steps is not the devices' step:
        # a static batch has none.)
        body = re.sub(r"(  mapping = \S+ \{)", r"\1 step_overhead = 0 s; "
                      r"sequence_overhead = 0 s;", body)
        static.append("serve step_%s {\n%s  batch = %d\n}" % (name, body, batch))
        meta["step_" + name] = (case, batch, s["tpot_s"], errors[case])
    if not meta:
        sys.exit("no decode-heavy in-flight-batched case with a measurement")
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, "steps.llmsys")
        open(f, "w").write("\n".join(static) + "\n")
        steps = json.loads(run(a.llmsys, ["eval", "-q", "--format=json", f]))
    print("%-48s %6s %8s %8s | %7s %7s %7s %7s | %9s" % (
        "case", "batch", "step", "measured", "GEMMs", "attn", "colls",
        "other", "missing"))
    for s in steps["scenarios"]:
        case, batch, tpot, err = meta[s["name"]]
        parts = {"gemm": 0.0, "attn": 0.0, "coll": 0.0, "other": 0.0}
        for o in s["operators"]:
            if o["phase"] != "decode":
                continue
            if o["name"] in ("attn.score", "attn.context"):
                parts["attn"] += o["time_s"]
            elif o["category"] == "contraction":
                parts["gemm"] += o["time_s"]
            else:
                parts["other"] += o["time_s"]
        for o in s["collectives"]:
            if o["phase"] == "decode":
                parts["coll"] += o["time_s"]
        ms = lambda x: "%7.1f" % (x * 1e3)
        print("%-48s %6d %8s %8s | %7s %7s %7s %7s | %+8.1f" % (
            case, batch, ms(tpot), ms(tpot * (1 + err)), ms(parts["gemm"]),
            ms(parts["attn"]), ms(parts["coll"]), ms(parts["other"]),
            tpot * err * 1e3))
    print("ms a decode step. step: the simulation's mean time per output "
          "token; measured: step x (1 + error); GEMMs .. other: one decode "
          "step of a static batch of that size at the mean context; "
          "missing: measured - step")


if __name__ == "__main__":
    main()
