#!/usr/bin/env python3
"""Checks the speculative-decoding arithmetic of speculative.test's JSON
report (llmsys eval --format=json): one line per check, 'ok' or 'FAILED'."""
import json
import sys

doc = json.load(open(sys.argv[1]))
S = {s["name"]: s for s in doc["scenarios"]}


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-300)


def check(label, ok):
    print(f"{label}: {'ok' if ok else 'FAILED'}")


spec = S["spec"]["speculative"]
check("tokens per step (1 - 0.8^5) / 0.2 = 3.3616",
      close(spec["tokens_per_step"], (1 - 0.8 ** 5) / 0.2))
for name, e, label in (("spec", (1 - 0.8 ** 5) / 0.2, "(4 draft steps + verification) / 3.3616"),
                       ("never", 1.0, "4 draft steps + verification"),
                       ("always", 5.0, "(4 draft steps + verification) / 5")):
    sp = S[name]["speculative"]
    check(f"{name} tpot = {label}",
          close(S[name]["tpot_s"], (4 * sp["draft_step_s"] + sp["verify_step_s"]) / e))
check("spec ttft = plain ttft + draft prefill",
      close(S["spec"]["ttft_s"], S["plain"]["ttft_s"] + S["draft_alone"]["ttft_s"]))
verify = spec["verify_step_s"]
check("verification between one decode step and 5x one",
      S["plain"]["tpot_s"] < verify < 5 * S["plain"]["tpot_s"])
check("weights = target's + draft's",
      close(S["spec"]["memory"]["weights_bytes"],
            S["plain"]["memory"]["weights_bytes"] + S["draft_alone"]["memory"]["weights_bytes"]))
check("long generation faster with speculation",
      S["long_spec"]["e2e_s"] < S["long"]["e2e_s"])
check("never accepting is slower than plain decoding",
      S["never"]["tpot_s"] > S["plain"]["tpot_s"])
