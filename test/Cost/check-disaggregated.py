#!/usr/bin/env python3
"""Checks disaggregated.test's figures (and, given the rate sweep's CSV,
the goodput against it) from `llmsys eval --format=json`:
the KV transfer by hand, one request against the aggregated engine, the
tokens served, the devices counted, and the decode free of prompts."""
import json
import sys

d = {s["name"]: s for s in json.load(open(sys.argv[1]))["scenarios"]}


def say(what, ok, detail=""):
    print(f"{what}: {'ok' if ok else 'FAILED ' + str(detail)}")


one, agg = d["one_dis"], d["one_agg"]
t = one["traffic"]["kv_transfer_mean_s"]
# Over one lane (tp 1) and two (tp 2 in both pools).
t2 = d["load_dis"]["traffic"]["kv_transfer_mean_s"]
say("transfer", abs(t / (1000 * 2048 / (100e9 * 0.5) + 5e-6) - 1) < 1e-9
    and abs(t2 / (1000 * 2048 / (2 * 100e9 * 0.5) + 5e-6) - 1) < 1e-9, (t, t2))
# One request: the prefill engine gives its first token as the aggregated
# engine would; the rest comes later by the transfer (and the decode
# pool's first step reading the first token against the cache, priced as
# a one-token chunk of a prompt: within 1% of a decode step).
say("one request",
    abs(one["ttft_s"] / agg["ttft_s"] - 1) < 1e-9
    and abs((one["e2e_s"] - t) / agg["e2e_s"] - 1) < 0.01,
    (one["ttft_s"], agg["ttft_s"], one["e2e_s"], agg["e2e_s"]))
ld, la = d["load_dis"], d["load_agg"]
tr = ld["traffic"]
say("tokens",
    abs(ld["throughput_tokens_per_s"] * tr["duration_s"] / (400 * 64) - 1) < 1e-9
    and tr["requests"] == 400,
    (ld["throughput_tokens_per_s"], tr["duration_s"]))
say("devices",
    ld["inputs"]["devices_used"] == 4 and ld["inputs"]["idle_devices"] == 0
    and abs(ld["throughput_per_device_tokens_per_s"] * 4
            / ld["throughput_tokens_per_s"] - 1) < 1e-9
    and one["inputs"]["devices_used"] == 3,
    ld["inputs"])
# Aggregated, a step that admits a prompt holds up every generating
# sequence; split, the decode steps carry one token a sequence.
say("interference",
    ld["tpot_p99_s"] < la["tpot_p99_s"] and ld["tpot_s"] < la["tpot_s"],
    (ld["tpot_p99_s"], la["tpot_p99_s"]))
# Energy: the identity of power, devices and throughput (PUE 1); the
# wire's share by hand; the same work as aggregated within 10%.
e, h, a = d["energy_dis"], d["energy_hot"], d["energy_agg"]
say("energy",
    abs(e["power_per_device_w"] * 4 / e["throughput_tokens_per_s"]
        / e["energy_per_token_j"] - 1) < 1e-9
    and abs((h["data_energy_per_token_j"] - e["data_energy_per_token_j"])
            / (1000 * 2048 * 8 * 990e-12 / 64) - 1) < 1e-9
    and abs(e["energy_per_token_j"] / a["energy_per_token_j"] - 1) < 0.1,
    (e["energy_per_token_j"], a["energy_per_token_j"],
     h["data_energy_per_token_j"], e["data_energy_per_token_j"]))
o, w = d["odd_dis"], d["one_dis"]
say("regressions",
    abs(o["throughput_tokens_per_s"] * o["traffic"]["duration_s"] / (5 * 64) - 1) < 1e-9
    and abs(w["throughput_tokens_per_s"] * w["traffic"]["duration_s"] / 32 - 1) < 1e-9
    and d["one_dis"]["decode_crossover_batch"] == d["one_agg"]["decode_crossover_batch"]
    and d["one_agg"]["decode_crossover_batch"] is not None
    and d["short_agg"]["goodput_per_s"] and d["short_dis"]["goodput_per_s"],
    (o["throughput_tokens_per_s"] * o["traffic"]["duration_s"],
     w["throughput_tokens_per_s"] * w["traffic"]["duration_s"],
     d["one_dis"]["decode_crossover_batch"], d["one_agg"]["decode_crossover_batch"],
     d["short_agg"]["goodput_per_s"], d["short_dis"]["goodput_per_s"]))
if len(sys.argv) > 2:
    import csv
    g = d["slo_dis"]["goodput_per_s"]
    rows = list(csv.DictReader(open(sys.argv[2])))
    below = [r for r in rows if float(r["traffic.arrival.rate"]) < 0.99 * g]
    above = [r for r in rows if float(r["traffic.arrival.rate"]) > 1.01 * g]
    meets = lambda r: float(r["tpot_p99_s"]) <= 17.5e-6
    say("goodput", g is not None and g > 0 and below and above
        and all(meets(r) for r in below) and not meets(min(
            above, key=lambda r: float(r["traffic.arrival.rate"]))),
        (g, [(r["traffic.arrival.rate"], r["tpot_p99_s"]) for r in rows]))
