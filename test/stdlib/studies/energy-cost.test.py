#!/usr/bin/env python3
"""Study 6's prose numbers, recomputed from the tool's CSV: each must
appear in docs/studies/energy-cost.md as the page quotes it, and the
findings must hold.

    energy-cost.test.py TCO.csv PAGE.md
"""
import csv
import sys

from prose import Prose

rows = {r["scenario"]: r for r in csv.DictReader(open(sys.argv[1]))}
prose = Prose(sys.argv[2])
quoted, check = prose.quoted, prose.check


def f(scenario, key):
    return float(rows[scenario][key])


MWH, GWH = 3.6e9, 3.6e12
train = ["tco_train_a100", "tco_train_h100", "tco_train_b200", "tco_train_b200_fp8"]
energy = [f(s, "energy_j") for s in train]
bound = [f(s, "tdp_energy_j") for s in train]
cost = [f(s, "cost_usd") for s in train]
check("energy falls", all(a > b for a, b in zip(energy, energy[1:])))
check("owned cost falls", all(a > b for a, b in zip(cost, cost[1:])))
mwh = [round(e / MWH) for e in energy]
quoted(f"{mwh[0]} MWh (A100), {mwh[1]} MWh (H100), {mwh[2]} MWh (B200) and "
       f"{mwh[3]} MWh (B200 in fp8)")
quoted(", ".join(f"{e / b:.2f}" for e, b in zip(energy[:3], bound[:3]))
       + f" and {energy[3] / bound[3]:.2f} of their TDP bounds")
quoted(f"({round(bound[0] / MWH)}, {round(bound[1] / MWH)}, "
       f"{round(bound[2] / MWH)} and {round(bound[3] / MWH)} MWh)")
power = [round(f(s, "power_per_device_w")) for s in train[:3]]
quoted(f"{power[0]} W (A100), {power[1]} W (H100) and {power[2]} W (B200)")
k = [f"{round(c, -3):,.0f}" for c in cost]
quoted(f"the runs cost {k[0]}, {k[1]} and {k[2]} USD ({k[3]} in fp8)")
rented = [f(s, "cost_usd") for s in
          ("tco_rent_train_a100", "tco_rent_train_h100", "tco_rent_train_b200")]
r = [f"{round(c, -3):,.0f}" for c in rented]
quoted(f"rented, {r[0]}, {r[1]} and {r[2]} USD")
check("H100 cheapest to rent", rented[1] < min(rented[0], rented[2]))
check("B200 dearer to rent than H100", rented[2] > rented[1])
electricity = [f(s, "energy_j") * 0.0806 / 3.6e6 for s in train]
check("electricity under a tenth", all(e / c < 0.1 for e, c in zip(electricity, cost)))

# Against public estimates.
hours = f("tco_train_a100", "time_to_train_s") * 1024 / 3600
quoted(f"takes {round(hours, -3):,.0f} device-hours and costs "
       f"{rented[0] / 1e6:.2f} M USD")
rate = f("tco_train_a100", "model_flops_rate_flops_per_s") / 1e12
quoted(f"an A100 here does {rate:.0f} TFLOP/s of the model's FLOPs, "
       f"{rate / 28:.1f} times the 28 TFLOP/s")
quoted(f"Owning gives {cost[0] / 1e6:.2f} M USD")
quoted(f"this study's A100 run takes {round(energy[0] / MWH)} MWh from activity")
L = "tco_train_llama70b"
quoted(f"1024 H100, {100 * f(L, 'mfu'):.1f}% MFU")
lh = f(L, "time_to_train_s") * 1024 / 3600 / 1e6
quoted(f"takes {lh:.2f} M device-hours, {lh / 7.0:.2f} of Meta's")
quoted(f"this study's rented run {f('tco_rent_train_llama70b', 'cost_usd') / 1e6:.1f} M USD; "
       f"owned, {f(L, 'cost_usd') / 1e6:.2f} M USD")
quoted(f"this study's run takes {f(L, 'tdp_energy_j') / GWH:.2f} GWh at TDP x PUE "
       f"and {f(L, 'energy_j') / GWH:.2f} GWh from activity")

# Serving.
serve = ["tco_serve_a100", "tco_serve_h100", "tco_serve_b200"]
e = [f(s, "energy_per_token_j") for s in serve]
t = [f(s, "tdp_energy_per_token_j") for s in serve]
check("serving energy falls", e[0] > e[1] > e[2])
quoted(f"{e[0]:.2f} J (A100), {e[1]:.2f} J (H100) and {e[2]:.2f} J (B200) from "
       f"activity, against {t[0]:.2f}, {t[1]:.2f} and {t[2]:.2f} J at TDP")
p = [round(f(s, "power_per_device_w")) for s in serve]
quoted(f"{p[0]} W (A100), {p[1]} W (H100) and {p[2]} W (B200)")
check("the bound overstates serving more than training",
      min(b / a for a, b in zip(e, t)) > max(b / a for a, b in zip(energy[:3], bound[:3])))
a, h = "tco_serve_a100", "tco_serve_h100"
quoted(f"takes {100 * f(a, 'ttft_s') / f(a, 'e2e_s'):.0f}% of an A100 request and "
       f"{100 * f(h, 'ttft_s') / f(h, 'e2e_s'):.0f}% of an H100 one")
quoted(f"the H100 shortens it {f(a, 'ttft_s') / f(h, 'ttft_s'):.1f}x and the "
       f"memory-bound decode only "
       f"{(f(a, 'e2e_s') - f(a, 'ttft_s')) / (f(h, 'e2e_s') - f(h, 'ttft_s')):.1f}x")
quoted(f"the H100 serves {f(h, 'throughput_tokens_per_s') / f(a, 'throughput_tokens_per_s'):.2f}x")
c = [f(s, "cost_per_token_usd") * 1e6 for s in serve]
quoted(f"its token costs {c[1] / c[0]:.2f}x the A100's ({c[1]:.2f} against "
       f"{c[0]:.2f} USD per million), and the B200's {c[2] / c[0]:.2f}x "
       f"({c[2]:.2f} USD per million)")

prose.report("prose and findings")
