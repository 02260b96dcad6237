#!/usr/bin/env python3
"""The findings of docs/studies/serving-load.md from the five rate sweeps'
CSV files (in the folder given): one line per finding, 'ok' or 'FAILED';
then the audit of the page (PAGE.md): every figure of its prose
generated, shown in a generated block, or declared given.

    serving-load.test.py FOLDER PAGE.md
"""
import csv
import os
import sys

from prose import Prose

RATES = [0.1, 0.2, 0.5, 1.0, 2.0, 4.0]
T = {}
order = {}
for u in ("chat", "question_answering", "rag", "summarization", "code_generation"):
    rows = list(csv.DictReader(open(os.path.join(sys.argv[1], u + ".csv"))))
    order[u] = [float(r["traffic.arrival.rate"]) for r in rows]
    T[u] = {float(r["traffic.arrival.rate"]): {k: float(v) for k, v in r.items()
                                               if k not in ("traffic.arrival.rate", "fits")}
            for r in rows}


def check(label, ok, *values):
    print(f"{label}: {'ok' if ok else 'FAILED ' + repr(values)}")


check("chat: p99 TPOT over 10 ms at every rate; QA: within it at 0.1 and 0.2/s, over it from 0.5/s",
      all(r["tpot_p99_s"] > 0.010 for r in T["chat"].values())
      and all(T["question_answering"][x]["tpot_p99_s"] <= 0.010 for x in (0.1, 0.2))
      and all(T["question_answering"][x]["tpot_p99_s"] > 0.010 for x in (0.5, 1.0, 2.0, 4.0)))
chat = T["chat"]
check("chat: mean TTFT within 200 ms up to 1/s, p99 over it at 0.1/s",
      all(chat[x]["ttft_s"] <= 0.2 for x in (0.1, 0.2, 0.5, 1.0))
      and chat[2.0]["ttft_s"] > 0.2
      and chat[0.1]["ttft_p99_s"] > 0.2)
qa = T["question_answering"]
check("QA: p99 TTFT within 200 ms up to 2/s",
      all(qa[x]["ttft_p99_s"] <= 0.2 for x in (0.1, 0.2, 0.5, 1.0, 2.0)) and qa[4.0]["ttft_p99_s"] > 0.2)


def saturated(u, From):
    # Throughput stops growing: the next doubling adds under 5%.
    t = [T[u][x]["throughput_tokens_per_s"] for x in sorted(T[u])]
    rates = sorted(T[u])
    i = rates.index(From)
    grows_before = all(t[k + 1] > 1.5 * t[k] for k in range(i - 1))
    return grows_before and t[-1] < 1.05 * t[i]


check("rag: saturated from 2/s", saturated("rag", 2.0))
check("summarization and code generation: saturated from 1/s",
      saturated("summarization", 1.0) and saturated("code_generation", 1.0))
rag = T["rag"]
check("rag: p99 TPOT grows with the rate below saturation",
      rag[0.1]["tpot_p99_s"] < rag[0.5]["tpot_p99_s"] < rag[1.0]["tpot_p99_s"])


# The page's generated numbers pick sweep points by position (results[0]
# at 0.1 requests a second, results[3] at 1, results[4] at 2): the points
# are the rates in this order.
check("every sweep's points are the rates 0.1 to 4 in order",
      all(o == RATES for o in order.values()))
prose = Prose(sys.argv[2])
prose.report("prose")
