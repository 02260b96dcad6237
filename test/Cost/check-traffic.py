#!/usr/bin/env python3
"""Checks in-flight batching (serve's `traffic`) in traffic.test's JSON
report against what must hold whatever the step costs are: one line per
check, 'ok' or 'FAILED'."""
import json
import sys

S = {s["name"]: s for s in json.load(open(sys.argv[1]))["scenarios"]}


def close(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b))


def check(label, ok, *values):
    print(f"{label}: {'ok' if ok else 'FAILED ' + repr(values)}")


one, client = S["one"], S["client"]
# One client, one request at a time: the static batch of one, except that
# a step prices its prompt tokens through the decode program's GEMMs at
# interpolated batches: within 1%. (The LM head projects the prompt's last
# token only, as the static prefill does; over every prompt token it was
# 2.8% slower here.)
check("one client: ttft as a static batch of one",
      close(client["ttft_s"], one["ttft_s"], 0.01), client["ttft_s"], one["ttft_s"])
check("one client: tpot as a static batch of one",
      close(client["tpot_s"], one["tpot_s"], 1e-9), client["tpot_s"], one["tpot_s"])
check("one client: no queueing (p99 ttft = mean)",
      close(client["ttft_p99_s"], client["ttft_s"], 1e-9))
# max_batch 1, all 20 at once: served one after another; the k-th waits
# k - 1 services, so the mean end to end is (20 + 1) / 2 services.
serial = S["serial"]
service = client["e2e_s"]
check("serial: mean e2e = 10.5 services", close(serial["e2e_s"], 10.5 * service, 1e-6),
      serial["e2e_s"], service)
check("serial: same throughput as one client",
      close(serial["throughput_tokens_per_s"], client["throughput_tokens_per_s"], 1e-6))
# Little's law: a closed loop of 8 clients completes 8 / e2e requests a second.
c8 = S["clients8"]
check("8 clients: requests/s = 8 / mean e2e",
      close(c8["request_throughput_per_s"], 8 / c8["e2e_s"], 0.01),
      c8["request_throughput_per_s"], 8 / c8["e2e_s"])
check("8 clients: 8 sequences a step", close(c8["mean_batch"], 8, 0.01), c8["mean_batch"])
check("8 clients: faster than one, slower steps",
      c8["throughput_tokens_per_s"] > 5 * client["throughput_tokens_per_s"]
      and c8["tpot_s"] > client["tpot_s"])
# Poisson far below capacity: throughput is the arrival rate, the median
# request waits for nothing; another seed draws other times.
slow, slow2 = S["slow"], S["slow2"]
check("slow poisson: median ttft unqueued", close(slow["ttft_p50_s"], client["ttft_s"], 1e-6))
check("slow poisson: about 0.5 requests/s", 0.4 < slow["request_throughput_per_s"] < 0.65,
      slow["request_throughput_per_s"])
check("slow poisson: seed changes the draw", slow["e2e_p99_s"] != slow2["e2e_p99_s"])
# Offline, 2000 at once: max_batch (256) binds, the queue sets the ttft.
full = S["full"]
check("offline: the step holds max_batch", full["traffic"]["peak_batch"] == 256,
      full["traffic"]["peak_batch"])
check("offline: queueing ttft", full["ttft_p99_s"] > 100 * client["ttft_s"])
check("percentiles ordered", all(
    s["ttft_p50_s"] <= s["ttft_p90_s"] <= s["ttft_p99_s"] and
    s["e2e_p50_s"] <= s["e2e_p90_s"] <= s["e2e_p99_s"] for s in S.values() if s["traffic"]))
# The KV cache binds before max_batch: each request reserves its prompt
# and output; the peak batch is what the cache holds.
kv = S["kvbound"]
per = 512 + 64
check("kv-bound: peak batch = cache / (prompt + output)",
      kv["traffic"]["peak_batch"] == kv["traffic"]["kv_cache_tokens"] // per,
      kv["traffic"]["peak_batch"], kv["traffic"]["kv_cache_tokens"])
check("kv-bound: the static max_batch figure agrees",
      kv["max_batch"] == kv["traffic"]["kv_cache_tokens"] // per)
# Paged: whole blocks of 100 tokens, 6 a request.
kb = S["kvbound_blocks"]["traffic"]
check("kv blocks: peak batch = blocks / blocks a request",
      kb["peak_batch"] == (kb["kv_cache_tokens"] // 100) // 6 ==
      S["kvbound_blocks"]["max_batch"],
      kb["peak_batch"], kb["kv_cache_tokens"])
# On demand: a request takes the blocks of its prompt and first token (33
# of 16 tokens) and one more every 16 tokens it generates (36 at the end).
kd = S["kvbound_demand"]
k16 = S["kvbound16"]["traffic"]
check("on demand: more requests at once than reserved",
      kd["traffic"]["peak_batch"] > k16["peak_batch"],
      kd["traffic"]["peak_batch"], k16["peak_batch"])
check("on demand: preempted when the cache fills",
      kd["traffic"]["preemptions"] > 0 and k16["preemptions"] == 0,
      kd["traffic"]["preemptions"])
check("on demand: every output token served",
      close(kd["throughput_tokens_per_s"] * kd["traffic"]["duration_s"], 500 * 64, 1e-9),
      kd["throughput_tokens_per_s"] * kd["traffic"]["duration_s"])
# (Faster or not depends on the load: here all 500 arrive at once, the
# extra requests admitted are preempted again and recompute, and the run
# ends 5% slower than reserving.)
cd8 = S["clients8_demand"]
check("on demand with room: the same run as reserving",
      cd8["traffic"]["preemptions"] == 0 and
      all(close(cd8[k], S["clients8"][k], 1e-12)
          for k in ("ttft_s", "tpot_s", "e2e_s", "throughput_tokens_per_s")))
# SLOs apply to the 99th percentiles.
slo = {x["name"]: x for x in S["client"]["slo"]}
check("slo on p99 ttft", close(slo["ttft"]["value"], client["ttft_p99_s"], 1e-12))
# Lengths drawn around the scenario's: the sample means stay near the
# prompt and output (4000 draws); spread lengths spread the latencies.
for name, label in (("spread", "lognormal"), ("spread_uniform", "uniform")):
    t = S[name]["traffic"]
    check(f"{label}: drawn means near 512 and 64",
          close(t["mean_prompt_tokens"], 512, 0.02) and close(t["mean_output_tokens"], 64, 0.02),
          t["mean_prompt_tokens"], t["mean_output_tokens"])
sp = S["spread"]
check("spread lengths spread the latencies",
      sp["e2e_p99_s"] > 1.3 * sp["e2e_p50_s"] and c8["e2e_p99_s"] < 1.1 * c8["e2e_p50_s"],
      sp["e2e_p50_s"], sp["e2e_p99_s"])
check("the seed draws other lengths",
      S["spread_seed"]["traffic"]["mean_prompt_tokens"] != sp["traffic"]["mean_prompt_tokens"])
# Throughput counts each request's own output: the drawn mean x requests/s.
check("output tokens over the run",
      close(sp["throughput_tokens_per_s"],
            sp["request_throughput_per_s"] * sp["traffic"]["mean_output_tokens"], 1e-9),
      sp["throughput_tokens_per_s"])
# Chunked prefill changes nothing when every prompt fits one step; a
# 2048-token prompt with a 512-token budget is read over four steps: the
# same prompt work in four forwards, so its first token comes later than
# with the whole prompt in one step, by at most three steps' weights.
cc = S["client_chunked"]
check("chunked prefill: the same run when prompts fit a step",
      close(cc["e2e_s"], client["e2e_s"], 1e-12) and close(cc["ttft_s"], client["ttft_s"], 1e-12))
lc, lw = S["long_chunked"], S["long_whole"]
check("chunked prefill: a long prompt over four steps",
      lc["ttft_s"] > lw["ttft_s"] and lc["ttft_s"] < lw["ttft_s"] + 3 * client["tpot_s"] * 1.5
      and close(lc["tpot_s"], lw["tpot_s"], 1e-9),
      lc["ttft_s"], lw["ttft_s"], client["tpot_s"])
# A larger vocabulary adds one head projection to the first token, chunked
# or not: the three steps that read the prompt's first chunks project
# nothing.
dc = S["long_chunked_vocab"]["ttft_s"] - lc["ttft_s"]
dw = S["long_whole_vocab"]["ttft_s"] - lw["ttft_s"]
check("chunked prefill: the head runs once a prompt",
      dw > 0 and close(dc, dw, 1e-6), dc, dw)
# Half of each prompt from the prefix cache: the step reads 256 of 512
# tokens (they still attend over all 512); the decode is the same.
pc = S["client_cached"]
check("prefix cache: a faster first token, the same decode",
      pc["ttft_s"] < 0.75 * client["ttft_s"] and close(pc["tpot_s"], client["tpot_s"], 1e-9),
      pc["ttft_s"], client["ttft_s"])
# Prefill first: a new prompt does not share its step with 7 decodes (a
# sooner first token), and each prompt step stalls the decodes (a slower
# TPOT than mixed steps).
pf, mx = S["clients8_prefill_first"], S["clients8_mixed"]
check("prefill first: a faster first token, a slower decode",
      pf["ttft_s"] < mx["ttft_s"] and pf["tpot_s"] > mx["tpot_s"],
      pf["ttft_s"], mx["ttft_s"], pf["tpot_s"], mx["tpot_s"])
# Pipeline parallelism, pp 2 on two devices against pp 1 on one: two
# micro-batches of 64 in flight, each passing both stages (the layers'
# weights once, half on each device), a token a pass. Throughput: each
# micro-batch's pass takes about one device's full step of 64, and two are
# under way, so twice pp 1's, less the activations' send between the
# stages and the lanes' uneven prompts (within 10%). TPOT: a pass, about
# pp 1's step (within 10%).
p1, p2 = S["pp_one"], S["pp_two"]
ratio = p2["throughput_tokens_per_s"] / p1["throughput_tokens_per_s"]
check("pipeline: two micro-batches, twice one stage's throughput",
      1.8 <= ratio <= 2.0, ratio)
check("pipeline: a token a pass, the TPOT of the whole model",
      close(p2["tpot_s"], p1["tpot_s"], 0.10), p2["tpot_s"], p1["tpot_s"])
check("pipeline: each micro-batch up to max_batch",
      p2["traffic"]["peak_batch"] <= 64 and p2["mean_batch"] > 60,
      p2["traffic"]["peak_batch"], p2["mean_batch"])
# One request at a time: each token waits for its pass through both
# stages, the second idle meanwhile; a pass is pp 1's step plus the send
# (within 5%), so no faster than pp 1.
c1, c2 = S["pp_one_client"], S["pp_two_client"]
check("pipeline: one request alone passes both stages in turn",
      c2["tpot_s"] >= c1["tpot_s"] and close(c2["tpot_s"], c1["tpot_s"], 0.05),
      c2["tpot_s"], c1["tpot_s"])
# One client at pp 2: its micro-batch passes both stages while the other
# slot is empty; the empty slot runs nothing and costs no energy, so the
# data energy a token is pp 1's, to 1% (the activations' send between the
# stages, a few kB a token, beside the weights read).
e1, e2 = S["pp_one_client_e"], S["pp_two_client_e"]
check("pipeline: an empty micro-batch slot costs no energy",
      e1["data_energy_per_token_j"] > 0 and
      close(e2["data_energy_per_token_j"], e1["data_energy_per_token_j"], 0.01),
      e2["data_energy_per_token_j"], e1["data_energy_per_token_j"])
kp = S["kvbound_demand_pp"]["traffic"]
check("pipeline, on demand: the cache never overcommitted",
      kp["preemptions"] > 0 and kp["peak_kv_cache_tokens"] <= kp["kv_cache_tokens"],
      kp["preemptions"], kp["peak_kv_cache_tokens"], kp["kv_cache_tokens"])
# Attention DP beside EP: the ranks of an expert-parallel group step
# together. Rank 0 reads 20-token prompts and rank 1 2000-token ones, one
# a step: each step lasts the long prompt's time, so the pair completes
# requests at the rate of two ranks of long prompts (to 1%), well below
# two ranks of short ones (the rate replicas apart would report, from the
# first rank's share).
alt, longs, shorts = (S[n]["request_throughput_per_s"]
                      for n in ("dep_alternate", "dep_longs", "dep_shorts"))
check("attention DP with EP: a step waits for the slowest rank",
      close(alt, longs, 0.01) and alt < 0.5 * shorts, alt, longs, shorts)
