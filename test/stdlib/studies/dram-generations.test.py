"""The findings of study 3, from the tool's JSON and the sweeps' CSV (see
dram-generations.test): they must hold, the page's texts recomputed here
must appear in docs/studies/dram-generations.md as it quotes them, and no
figure of its prose is typed by hand.

    dram-generations.test.py BASE PAGE.md

BASE.eval.json is `llmsys eval --format=json`, BASE.SWEEP.csv each sweep's
CSV.
"""
import sys

from prose import column as col, scenarios as read_scenarios, study_checker

base, prose, rows = study_checker(sys.argv)
quoted, check = prose.quoted, prose.check

S = read_scenarios(f"{base}.eval.json")
b1, h3, h3e, h4, b64 = (S[n] for n in ("dram_b1", "dram_b1_hbm3", "dram_b1_hbm3e",
                                       "dram_b1_hbm4", "dram_b64"))


def bandwidth(s):
    """The node's HBM bandwidth: the decode's bytes over its time and the
    fraction of the bandwidth it achieved."""
    d = s["decode"]
    return d["bytes"] / d["time_s"] / d["achieved_bandwidth_fraction"]


# Speed per generation: the time per output token follows the bandwidth
# less and less.
gens = [b1, h3, h3e, h4]
bw = [bandwidth(s) for s in gens]
check("each generation has more bandwidth", all(a < b for a, b in zip(bw, bw[1:])))
tpot = col(rows("dram_latency"), "tpot_s")
check("the batch-1 scenarios are the dram_latency sweep's points",
      all(abs(s["tpot_s"] / t - 1) < 1e-6 for s, t in zip(gens, tpot)))
check("TPOT falls at every generation", all(a > b for a, b in zip(tpot, tpot[1:])))
check("each generation gains less than its bandwidth step",
      all(tpot[i] / tpot[i + 1] < bw[i + 1] / bw[i] for i in range(3)))
LO, HI = 2, 3
gain = b1["tpot_s"] / h4["tpot_s"]
check(f"HBM2e -> HBM4 buys {LO}-{HI}x at batch 1", LO < gain < HI)
quoted(f"checked: {LO}-{HI}x)")

# The time to first token moves little; the prefill's GEMMs stay
# compute-bound, its all-reduces do not move.
UNDER = 0.25
check(f"TTFT under {UNDER:.0%} shorter", 1 - h4["ttft_s"] / b1["ttft_s"] < UNDER)
quoted(f"checked: under {UNDER:.0%})")
gemms = ("attn.qkv", "attn.out", "mlp.up", "mlp.down")
for s in (b1, h4):
    bound = {o["name"]: o["bound"] for o in s["operators"] if o["phase"] == "prefill"}
    check(f"{s['name']}: the prefill's GEMMs are compute-bound",
          all(bound[g] == "compute" for g in gemms))
allreduce = [[c["time_s"] for c in s["collectives"] if c["phase"] == "prefill"] for s in (b1, h4)]
check("the prefill's TP all-reduces stay", allreduce[0] == allreduce[1])
check("the weights stay", b1["memory"]["weights_bytes"] == h4["memory"]["weights_bytes"])

# What limits the decode then.
check("HBM2e: the decode uses over half the bandwidth",
      b1["decode"]["achieved_bandwidth_fraction"] > 0.5)
check("HBM4: under two fifths", h4["decode"]["achieved_bandwidth_fraction"] < 2 / 5)
check("HBM2e: no decode crossover", b1["decode_crossover_batch"] == 0)
check("HBM4: a decode crossover", h4["decode_crossover_batch"] > 1)
# The balance point the page computes (the achievable peak, 0.8 x 0.791 of
# the peak, over the achievable bandwidth, 0.85 of the HBM's) is the
# tool's: the decode's intensity, linear in the batch between batch 1 and
# 64, reaches it, scaled to HBM4's bandwidth, at HBM4's crossover.
d1, d64 = b1["decode"], b64["decode"]
peak = d1["flops"] / d1["time_s"] / d1["achieved_compute_fraction"]
balance = peak * 0.8 * 0.791 / (bw[0] * 0.85)
x = h4["decode_crossover_batch"]
at_x = ((d1["flops"] + (x - 1) * (d64["flops"] - d1["flops"]) / 63)
        / (d1["bytes"] + (x - 1) * (d64["bytes"] - d1["bytes"]) / 63))
check("the balance point is the tool's", abs(at_x / (balance * bw[0] / bw[3]) - 1) < 0.03)
added = (d64["flops"] - d1["flops"]) / (d64["bytes"] - d1["bytes"])
check("an added sequence's intensity is below the balance point", added < balance)

# Re-planned per generation, within a 30 ms TPOT.
LIMIT = 0.030
a, b = rows("plan_hbm2e")[0], rows("plan_hbm4")[0]
check("HBM2e: TP 8 at batch 256", (a["mapping.tp"], a["batch"]) == ("8", "256"))
check("HBM2e: its TPOT within 5% of the limit", float(a["tpot_s"]) > 0.95 * LIMIT)
check("HBM2e: batch 256 is the largest the sweep tries",
      max(int(r["batch"]) for r in rows("plan_hbm2e")) == 256)
check("HBM4: TP 2 at batch 128", (b["mapping.tp"], b["batch"]) == ("2", "128"))
tp2 = rows("plan_hbm2e_tp2")
check("HBM2e: TP 2 misses the TPOT limit at every batch",
      all(float(r["tpot_s"]) > LIMIT for r in tp2))
check("HBM2e: TP 2 fits a batch of at most 32",
      max(int(r["batch"]) for r in tp2 if r["fits"] == "true") == 32)
tp8 = rows("plan_hbm4_tp8")[0]
check("HBM4: TP 8's best at batch 256", tp8["batch"] == "256")
per = "throughput_per_device_tokens_per_s"
quoted(f"{float(b[per]) / float(a[per]):.1f}x the HBM2e plan, and "
       f"{float(b[per]) / float(tp8[per]):.1f}x TP 8 with HBM4")

prose.report("dram-generations")
