#!/usr/bin/env python3
"""Writes docs/diagnostics.md from lib/Basic/DiagnosticKinds.def.

Run from the repository root: python3 tools/gen-diagnostics-doc.py
test/Diagnostics/doc.test checks that the committed page is up to date.
"""
import re
import sys

HEADER = """# Diagnostics

Every diagnostic llmsys emits is registered in
`lib/Basic/DiagnosticKinds.def`; each has a lit test that checks its message
and location (the tests claim kinds with `// diag:` comments, and
`test/Diagnostics/coverage.test` fails if a kind has none). This page is
generated from the registry by `tools/gen-diagnostics-doc.py`.

## Format

Clang style, through `llvm::SourceMgr`:

```
model.llmsys:4:9: error: field 'X.tdp' expects power (W); a bare number has no unit (write e.g. '700 W')
  tdp = 700
        ^~~
```

- `file:line:col` (1-based; columns count bytes), the source line, a caret
  under the start and `~` under the rest of the range. Lines longer than 160
  bytes are shown as a window around the caret, with `...`.
- Notes follow their error (`note: previous definition is here`); notes
  without a place start with `llmsys: note:`.
- All errors of a run are collected and printed in source order (files in
  load order, then position). After `--error-limit` errors (default 20; 0 for
  none) the tool prints `error: too many errors emitted, stopping now
  [--error-limit]`. The last line is `N errors generated.`, counting every
  error found.
- Severity `error`: the input is wrong; exit status 2. Severity `finding`:
  printed as `error:`, but it reports that what the input predicts fails a
  check the user wrote (an `expect`, `--strict`); exit status 1 when no
  input error came with it. Warnings and notes leave the status at 0; `-q`
  hides warnings. See [cli.md](cli.md#exit-status).
- Problems in the bytes or brackets of a file stop that file before
  parsing; syntax errors stop the run before names are resolved.

`{}` in a message below stands for a name, a value or a dimension.
"""


def render(defs):
    out = [HEADER]
    for line in defs.splitlines():
        m = re.match(r"^// ([A-Z][^.]*)\.$", line)
        if m:
            out.append("\n## %s\n\n| kind | severity | message |\n| --- | --- | --- |" % m.group(1))
            continue
        m = re.match(r'^DIAG\((\w+),\s*(\w+),\s*"(.*)"\)$', line)
        if m:
            msg = m.group(3).replace('\\"', '"').replace("{{", "{").replace("}}", "}")
            msg = msg.replace("|", "\\|")
            out.append("| `%s` | %s | %s |" % (m.group(1), m.group(2).lower(), msg))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    text = render(open(root + "/lib/Basic/DiagnosticKinds.def").read())
    if len(sys.argv) > 2 and sys.argv[2] == "--stdout":
        sys.stdout.write(text)
    else:
        open(root + "/docs/diagnostics.md", "w").write(text)
