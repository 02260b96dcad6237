#!/usr/bin/env python3
"""Checks energy-cost.test's figures against the formulas of
docs/cost-model.md ("Energy and cost"), from `llmsys eval --format=json`."""
import json
import sys

d = {s["name"]: s for s in json.load(open(sys.argv[1]))["scenarios"]}
PUE, N, STATIC, TDP = 1.25, 4, 100.0, 700.0
YEAR = 365.25 * 86400
PRICE_J = 0.1 / 3.6e6  # USD per joule


def close(a, b, rel=1e-9):
    return abs(a / b - 1) < rel


def say(what, ok, detail=""):
    print(f"{what}: {'ok' if ok else 'FAILED ' + str(detail)}")


t = d["t"]
thr = t["throughput_tokens_per_s"]
e = t["energy_per_token_j"]
# Average power x devices over throughput, at the wall, is the energy.
say("identity", close(t["power_per_device_w"] * N / thr * PUE, e)
    and close(t["energy_j"], e * 1e9), (t["power_per_device_w"], e))
# What is left after static power and moving data is the FLOPs' energy:
# at least the contraction FLOPs at 1 pJ (bf16), at most 15% more
# (element-wise work; the fp32 optimizer at 10 pJ).
flops = t["hardware_flops_rate_flops_per_s"] * N / thr
compute = e / PUE - STATIC * N / thr - t["data_energy_per_token_j"]
say("compute part", 1.0 <= compute / (flops * 1e-12) <= 1.15,
    compute / (flops * 1e-12))
say("fp8 cheaper", d["t8"]["energy_per_token_j"] < 0.8 * e,
    d["t8"]["energy_per_token_j"] / e)
# Owned: capital over lifetime, facility on TDP, electricity of the run
# and of the idle half of the time at static power.
paid = N / thr / 0.5
rate = (20000 + 40000 / N) / (4 * YEAR) + 10000 / 1000 * TDP / (10 * YEAR)
idle = STATIC * (paid - N / thr)
own = rate * paid + PRICE_J * PUE * (e / PUE + idle)
say("own cost", close(t["cost_per_token_usd"], own), (t["cost_per_token_usd"], own))
tr = d["tr"]
rent = 3 / 3600 * N / tr["throughput_tokens_per_s"] / 0.5
say("rent cost", close(tr["cost_per_token_usd"], rent), (tr["cost_per_token_usd"], rent))
tb = d["tb"]
tthr = tb["throughput_tokens_per_s"]
bare = rate * N / tthr / 0.5 + PRICE_J * PUE * TDP * N / tthr / 0.5
say("at TDP", tb["energy_per_token_j"] is None and tb["power_per_device_w"] is None
    and close(tb["tdp_energy_per_token_j"], TDP * PUE * N / tthr)
    and close(tb["cost_per_token_usd"], bare), (tb["cost_per_token_usd"], bare))
# A bigger batch shares the weights' reads and static power over more
# tokens: less energy per token, more power per device.
s, s64 = d["s"], d["s64"]
say("batch", s64["energy_per_token_j"] < s["energy_per_token_j"] / 4
    and s64["power_per_device_w"] > s["power_per_device_w"]
    and s["energy_per_token_j"] < s["tdp_energy_per_token_j"],
    (s["energy_per_token_j"], s64["energy_per_token_j"]))
sf = d["sf"]
say("in-flight", sf["energy_per_token_j"] is not None
    and close(sf["power_per_device_w"] * N / sf["throughput_tokens_per_s"] * PUE,
              sf["energy_per_token_j"])
    and 0.95 < sf["energy_per_token_j"] / s64["energy_per_token_j"] < 1.05,
    (sf["energy_per_token_j"], s64["energy_per_token_j"]))
# In-flight steps against the static batch, where the head or the prompt's
# attention dominates: the same energy per token within 10%.
for what, a, b in (("head", "head_st", "head_fl"), ("attention", "attn_st", "attn_fl")):
    r = d[b]["energy_per_token_j"] / d[a]["energy_per_token_j"]
    say(f"in-flight {what}", 0.9 < r < 1.1, r)
# Pipelined serving: each of 4 micro-batches reads the weights again.
p1, p4 = d["p1"], d["p4"]
say("pipelined serving", p4["data_energy_per_token_j"] > 2.5 * p1["data_energy_per_token_j"],
    (p1["data_energy_per_token_j"], p4["data_energy_per_token_j"]))
# Training's send/recv: pp - 1 boundaries per micro-batch and direction.
tp2, tp4 = d["tp2"], d["tp4"]
say("pipeline boundaries",
    2.7 < tp4["data_energy_per_token_j"] / tp2["data_energy_per_token_j"] < 3.1,
    (tp2["data_energy_per_token_j"], tp4["data_energy_per_token_j"]))
# charge_idle: two idle devices add their static power to the energy; the
# power of a working device is the same.
for what, a, b in (("train", "half", "half_idle"), ("serve", "shalf", "shalf_idle")):
    x, y = d[a], d[b]
    thr = x["throughput_tokens_per_s"]
    say(f"idle devices {what}",
        close(x["power_per_device_w"], y["power_per_device_w"])
        and close(y["energy_per_token_j"] - x["energy_per_token_j"],
                  PUE * STATIC * 2 / thr)
        and close(x["power_per_device_w"] * 2 / thr * PUE, x["energy_per_token_j"]),
        (x["power_per_device_w"], y["power_per_device_w"]))
