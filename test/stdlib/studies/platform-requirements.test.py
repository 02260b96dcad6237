#!/usr/bin/env python3
"""Study 4's findings that the page's generated numbers alone do not
carry, recomputed from `llmsys require` and `llmsys eval` (JSON), and the
audit of docs/studies/platform-requirements.md: every figure of its prose
generated, shown in a generated block, or declared given.

    platform-requirements.test.py REQUIRE.json EVAL.json PAGE.md
"""
import json
import sys

from prose import Prose

req = {r["scenario"]: {x["resource"]: x.get("ratio") for x in r["resources"]}
       for r in json.load(open(sys.argv[1]))["requirements"]}
ev = {s["name"]: s for s in json.load(open(sys.argv[2]))["scenarios"]}
prose = Prose(sys.argv[3])
check = prose.check


def prefill(s, **want):
    """The prefill time of S's operators (or collectives) matching WANT."""
    return sum(o["time_s"] for o in ev[s]["operators"] + ev[s]["collectives"]
               if o["phase"] == "prefill" and all(o.get(k) == v for k, v in want.items()))


# Summarization and code generation: "neither needing half of any resource".
check("summarization and code generation need under half of every resource",
      all(r is not None and r < 0.5 for s in ("uc_summarization", "uc_code_generation")
          for r in req[s].values()))
# RAG: "of the N ms, the TP all-reduces take ..., the memory-bound operators
# ... and the compute-bound operators ...": the three make the prefill.
parts = (prefill("uc_rag", kind="all-reduce") + prefill("uc_rag", bound="memory")
         + prefill("uc_rag", bound="compute"))
check("RAG: all-reduces, memory- and compute-bound operators make the prefill",
      abs(parts / ev["uc_rag"]["ttft_s"] - 1) < 0.01)
# Long context: "Attention is about two fifths of the prefill", the two
# products equal.
lc = "uc_long_context"
attn = prefill(lc, name="attn.score") + prefill(lc, name="attn.context")
check("long context: attention is about two fifths of the prefill",
      0.36 < attn / ev[lc]["ttft_s"] < 0.44)
check("long context: the score and context products take the same time",
      abs(prefill(lc, name="attn.score") / prefill(lc, name="attn.context") - 1) < 0.005)
# Capacity "about a quarter (QA's - code generation's)": the page quotes the
# least and the most of GenZ's five use cases.
genz = ["uc_chat", "uc_question_answering", "uc_rag", "uc_summarization",
        "uc_code_generation"]
cap = {s: req[s]["memory capacity"] for s in genz}
check("capacity: question answering takes the least, code generation the most",
      min(cap, key=cap.get) == "uc_question_answering"
      and max(cap, key=cap.get) == "uc_code_generation")
check("capacity: about a quarter for GenZ's use cases",
      all(0.2 < c < 0.3 for c in cap.values()))
check("capacity is never the constraint", all(r["memory capacity"] < 0.5 for r in req.values()))

prose.report("prose and findings")
