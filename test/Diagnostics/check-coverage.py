#!/usr/bin/env python3
"""Every diagnostic kind in lib/Basic/DiagnosticKinds.def has a lit test.

A test claims the kinds it checks (message and location) with comment lines
`// diag: err_x note_y`. Kinds that cannot be produced from input (internal
errors) are listed in INTERNAL with the reason.
"""
import os
import re
import sys

INTERNAL = {
    # Raised only if the ANTLR runtime throws past the parser's own error
    # recovery: a bug, not an input the user can write.
    "err_parser_internal",
    # The last check on figures (finite, not negative): no input known
    # reaches it, each one found became a limit on a field;
    # unittests/FigureCheckTest.cpp tests it.
    "err_figure_out_of_model",
    # The formatter's check that it changed whitespace alone: a bug in
    # llmsys fmt, not an input; unittests/FormatTest.cpp tests it.
    "err_format_internal",
}

root = sys.argv[1]
kinds = re.findall(r"^DIAG\((\w+),",
                   open(os.path.join(root, "lib/Basic/DiagnosticKinds.def")).read(),
                   re.M)
claimed = set()
for dirpath, _, files in os.walk(os.path.join(root, "test")):
    for f in files:
        if f.endswith((".test", ".llmsys")):
            for line in open(os.path.join(dirpath, f), encoding="utf-8"):
                m = re.match(r"\s*//\s*diag:(.*)", line)
                if m:
                    claimed.update(m.group(1).split())
missing = [k for k in kinds if k not in claimed and k not in INTERNAL]
unknown = sorted(claimed - set(kinds))
for k in missing:
    print("no test claims diagnostic", k)
for k in unknown:
    print("a test claims unknown diagnostic", k)
print(f"{len(kinds)} diagnostic kinds, {len(missing)} without a test")
sys.exit(1 if missing or unknown else 0)
