"""The findings of study 9 (see accelerator-codesign.test): the slice's
CSV and the whole grid's recorded front, whose every point is costed
again here and must give the figures recorded (a change of the model
makes the recorded front stale: run the page's MPI command again).

    accelerator-codesign.test.py BASE PAGE.md LLMSYS SPEC FRONT.csv FRONT.txt

BASE.codesign_slice.csv is the slice's CSV; FRONT.txt the whole grid's
report as the page's command wrote it, FRONT.csv its CSV.
"""
import csv
import math
import os
import subprocess
import sys

from prose import column as col, study_checker

base, prose, rows = study_checker(sys.argv[:3])
quoted, check = prose.quoted, prose.check
llmsys, spec, front_csv, front_txt = sys.argv[3:7]

FIGURES = ("ttft_s", "tpot_s", "e2e_s", "throughput_tokens_per_s",
           "peak_memory_bytes", "fits", "cost_per_token_usd")

front = list(csv.DictReader(open(front_csv)))
axes = [k for k in front[0] if "." in k or k == "batch"]
check("the recorded front has points", len(front) > 0)

# Each recorded point again, as a sweep of one value per axis.
point_spec = f"{base}.points.llmsys"
with open(point_spec, "w") as f:
    f.write(f'import "{os.path.abspath(spec)}"\n')
    for i, r in enumerate(front):
        f.write(f"sweep point_{i} over codesign_serve {{\n")
        for a in axes:
            f.write(f"  {a} in [{r[a]}]\n")
        f.write("  pareto tpot, cost_per_token\n}\n")
differs = []
for i, r in enumerate(front):
    out = subprocess.run([llmsys, "sweep", point_spec, f"--sweep=point_{i}",
                          "--format=csv"], capture_output=True, text=True)
    got = list(csv.DictReader(out.stdout.splitlines()))
    if out.returncode != 0 or len(got) != 1:
        differs.append(f"point {i + 1}: {out.stderr.strip()[:200]}")
        continue
    for k in FIGURES:
        a, b = got[0][k], r[k]
        same = a == b or (a not in ("true", "false") and
                          math.isclose(float(a), float(b), rel_tol=1e-9))
        if not same:
            differs.append(f"point {i + 1} {k}: now {a}, recorded {b}")
check("every recorded front point costs what was recorded "
      "(else rerun the page's MPI command): " + "; ".join(differs[:5]),
      not differs)

# The page shows the report as the run wrote it; the CSV is its points.
report = open(front_txt).read().rstrip("\n")
quoted(" ".join(report.split()))
table = [l.split() for l in report.splitlines()[2:-1]]
check("the CSV holds the report's points",
      [t[:len(axes) + 1] for t in table] ==
      [[r["rank"]] + [r[a] for a in axes] for r in front])
check("the grid is over 10^8 points",
      int(report.splitlines()[0].split(": ")[1].split()[0]) > 1e8)

tpot, cost = col(front, "tpot_s"), col(front, "cost_per_token_usd")
check("the front trades latency for cost",
      all(a < b for a, b in zip(tpot, tpot[1:])) and
      all(a > b for a, b in zip(cost, cost[1:])))
check("every point meets the SLO",
      all(t <= 0.05 for t in tpot) and
      all(float(r["ttft_s"]) <= 2 for r in front))

first, last = front[0], front[-1]
quoted(f"The front holds {len(front)} designs, from {tpot[0] * 1e3:.1f} ms to "
       f"{tpot[-1] * 1e3:.1f} ms a token, and from {cost[0] * 1e6:.2f} to "
       f"{cost[-1] * 1e6:.2f} USD per million output tokens")
check("the fastest is TP 16 at batch 8 on a 16-device domain",
      (first["mapping.tp"], first["mapping.ep"], first["batch"],
       first["system.node.devices"]) == ("16", "1", "8", "16"))
check("the cheapest is TP 1, EP 64, DP 64 at batch 16 on a 64-device domain",
      (last["mapping.tp"], last["mapping.ep"], last["mapping.dp"],
       last["batch"], last["system.node.devices"]) ==
      ("1", "64", "64", "16", "64"))
def every(axis, values):
    return all(r[axis] in values for r in front)
check("fp4 weights and an fp8 KV cache throughout",
      every("mapping.weights", {"fp4"}) and every("mapping.kv_cache", {"fp8"}))
hbm3e = [r for r in front
         if r["system.node.accelerator.hbm.technology"] == "HBM3e"]
check("HBM4 but for the HBM3e designs, and no HBM3",
      every("system.node.accelerator.hbm.technology", {"HBM4", "HBM3e"}))
quoted(f"all but {len(hbm3e)} have HBM4")
quoted(f"The {len(hbm3e)} with HBM3e")
nodes = ["N5", "N4", "N3E", "N3P", "N2P", "A16", "A14", "A10"]
check("the HBM3e designs: TP 8 on 8-device domains with 11 or 12 stacks, "
      "one or two at each node from N5 to A10",
      all(r["mapping.tp"] == "8" and
          r["system.node.devices"] == "8" and
          r["system.node.accelerator.hbm.stacks"] in ("11", "12")
          for r in hbm3e) and
      all(1 <= sum(r["system.node.accelerator.technology"] == n
                   for r in hbm3e) <= 2 for n in nodes))
check("every node from N5 to A10 on the front, and not N7, N3 or N2",
      {r["system.node.accelerator.technology"] for r in front} == set(nodes))
quoted(f"no design on the front runs a batch above "
       f"{max(int(r['batch']) for r in front)}")
quoted(f"the slowest is at {tpot[-1] * 1e3:.1f} ms a token, far inside 50 ms")
check("the TTFT target binds: every point's TTFT is within 2 s, and the "
      "largest batch's is near it",
      max(float(r["ttft_s"]) for r in front) > 1.5)
check("no pipeline and no XDR",
      every("mapping.pp", {"1"}) and every("system.fabric", {"ib_ndr"}))
sixteen = [r for r in front if r["system.node.devices"] == "16"]
quoted(f"{len(sixteen)} of the {len(front)} use a 16-device domain, each as "
       f"one TP 16 replica")
check("the 16-device domains hold one TP 16 replica",
      {(r["mapping.tp"], r["mapping.ep"], r["mapping.dp"]) for r in sixteen}
      == {("16", "1", "1")})
big = [r for r in front if r["system.node.devices"] not in ("8", "16")]
quoted(f"and {len(big)} a 64-device domain, each as EP 64 over 64 replicas")
check("the larger domains are 64 devices of EP 64 over 64 replicas",
      {(r["system.node.devices"], r["mapping.tp"], r["mapping.ep"],
        r["mapping.dp"]) for r in big} == {("64", "1", "64", "64")})

slice_rows = rows("codesign_slice")
check("the slice has a front", len(slice_rows) > 0)

prose.report("accelerator-codesign")
