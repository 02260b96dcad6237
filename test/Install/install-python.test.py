import os
import sys

import llmsys

prefix, spec = sys.argv[1], sys.argv[2]
print("module from the prefix:", os.path.realpath(llmsys.__file__).startswith(os.path.realpath(prefix)))
figs = llmsys.load(spec).evaluate("chat")
print("chat throughput_tokens_per_s", figs["throughput_tokens_per_s"])
llama = os.path.join(prefix, "share", "llmsys", "stdlib", "models", "llama.llmsys")
os.rename(llama, llama + ".away")
try:
    llmsys.load(spec)
except llmsys.DiagnosticError as e:
    print("without the prefix's llama.llmsys: DiagnosticError", e.diagnostics[0]["message"])
finally:
    os.rename(llama + ".away", llama)
