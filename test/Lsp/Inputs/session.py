"""A whole session: diagnostics on open and change, hover, definition,
completion, shutdown (test/Lsp/session.test)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lspclient import at, notification, request, run, show

llmsys, work = sys.argv[1], sys.argv[2]
path = os.path.join(work, "doc.llmsys")
uri = "file://" + path

BAD = """import std.systems.nvidia
import std.models.gpt

mapping m { tp = 8; pp = 8; dp = 16; micro_batch = 1; global_batch = 1536; recompte = full }
"""
GOOD = """import std.systems.nvidia
import std.models.gpt

mapping m {
  tp = 8; pp = 8; dp = 16
  micro_batch = 1
  global_batch = 1536
  recompute = full
}

mapping m2 extends m { dp = 32 }

train t {
  model = gpt3_175b
  system = dgx_a100_pod128
  mapping = m
}
system s2 extends dgx_a100 { node { devices = 4 } }
"""
# The same with a half-written line for completion (does not resolve; the
# names come from the last text that did).
EDIT = GOOD.replace("  recompute = full\n", "  recompute = \n  \n")

msgs = [
    request(1, "initialize", {"capabilities": {}}),
    notification("initialized", {}),
    notification("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "llmsys", "version": 1, "text": BAD}}),
    notification("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": GOOD}]}),
    request(2, "textDocument/hover", at(uri, 4, 3)),     # tp = 8
    request(3, "textDocument/hover", at(uri, 13, 12)),   # gpt3_175b
    request(4, "textDocument/hover", at(uri, 3, 2)),     # mapping (a kind)
    request(5, "textDocument/hover", at(uri, 7, 16)),    # full (an enum word)
    request(6, "textDocument/hover", at(uri, 10, 25)),   # dp = 32 in m2
    request(15, "textDocument/hover", at(uri, 17, 37)),  # devices (nested)
    request(7, "textDocument/definition", at(uri, 13, 12)),  # gpt3_175b
    request(8, "textDocument/definition", at(uri, 15, 13)),  # m
    request(9, "textDocument/definition", at(uri, 1, 15)),   # import line
    notification("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 3},
        "contentChanges": [{"text": EDIT}]}),
    request(10, "textDocument/completion", at(uri, 7, 14)),  # recompute = |
    request(11, "textDocument/completion", at(uri, 8, 2)),   # in mapping m
    request(12, "textDocument/completion", at(uri, 14, 10)), # model = |gpt3
    request(13, "textDocument/completion", at(uri, 10, 0)),  # top level
    request(14, "shutdown"),
    notification("exit"),
]
replies, status = run(llmsys, msgs)
for r in replies:
    if r.get("id") in (10, 11, 12, 13):
        labels = [i["label"] for i in r["result"]]
        print("completion", r["id"], len(labels), " ".join(labels))
    else:
        show(r)
print("exit", status)
