#!/usr/bin/env python3
"""Regenerates the tool outputs embedded in Markdown pages (the studies).

A page marks each output with the llmsys command that produces it:

    <!-- llmsys: sweep stdlib/studies/x.llmsys --sweep best -->
    ...replaced by the command's stdout...
    <!-- end -->

Text output is put in a ```text fence unless the command asks for
`--format=md`. Figures are written by

    <!-- llmsys-plot docs/studies/figures/x: eval stdlib/studies/x.llmsys -->

which runs the command with `--plot DIR` (stdout discarded). A number in
prose is generated in place, between

    <!--= eval stdlib/studies/x.llmsys | a.cost_per_token_usd * 1e6 | .3g -->23.1<!--=-->

: the JSON of `llmsys ARGS --format=json` (ARGS an eval command), an
expression over SCENARIO.KEY terms (the figure keys of the scenarios of
that document, its `inputs` keys, or BLOCK.KEY of a block such as
`breakdown`) with + - * / and numbers, and a
Python format spec (`.3g`, `,.0f`, `.1%`). Commands run from the
repository root with the source tree's stdlib.

    python3 tools/gen-doc-outputs.py [--llmsys BIN] [--check] PAGE...

--check rewrites nothing and exits 1 if a block or a figure is stale (lit:
test/stdlib/studies/*.test).
"""
import argparse
import filecmp
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"(<!-- llmsys: (.*?) -->\n)(.*?)(<!-- end -->)", re.S)
PLOT = re.compile(r"<!-- llmsys-plot (\S+): (.*?) -->")
VALUE = re.compile(r"(<!--= (.*?) \| (.*?) \| (\S+) -->)(.*?)(<!--=-->)", re.S)
TERM = re.compile(r"\b([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)\b")


def run(llmsys, args, extra=()):
    env = dict(os.environ, LLMSYS_STDLIB=os.path.join(ROOT, "stdlib"))
    out = subprocess.run([llmsys] + shlex.split(args) + list(extra), cwd=ROOT,
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"gen-doc-outputs: 'llmsys {args}' failed:\n{out.stderr}")
    return out.stdout


def value(llmsys, cache, args, expr, spec):
    """One generated number: EXPR over SCENARIO.KEY terms of the JSON of
    `llmsys ARGS --format=json`, formatted by SPEC."""
    if args not in cache:
        doc = json.loads(run(llmsys, args, ["--format=json"]))
        cache[args] = {s["name"]: s for s in doc["scenarios"]}
    scenarios = cache[args]

    def term(m):
        name, path = m.group(1), m.group(2)[1:].split(".")
        if name not in scenarios:
            sys.exit(f"gen-doc-outputs: no scenario '{name}' in 'llmsys {args}'")
        # A figure, an input, or a key of one of the report's blocks
        # (breakdown.compute_bound_s).
        v = scenarios[name]
        if len(path) == 1 and path[0] not in v:
            v = v.get("inputs", {})
        for key in path:
            v = v.get(key) if isinstance(v, dict) else None
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            sys.exit(f"gen-doc-outputs: '{m.group(0)}' is not a number in "
                     f"'llmsys {args}'")
        return repr(float(v))

    code = TERM.sub(term, expr)
    if not re.fullmatch(r"[0-9eE.+\-*/() ]+", code):
        sys.exit(f"gen-doc-outputs: '{expr}' is not an expression of figures")
    return format(eval(code, {"__builtins__": {}}), spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llmsys", default=os.path.join(ROOT, "build/bin/llmsys"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("pages", nargs="+")
    a = ap.parse_args()
    stale = []
    for page in a.pages:
        text = open(page, encoding="utf-8").read()

        def fill(m):
            out = run(a.llmsys, m.group(2))
            if "--format=md" not in m.group(2):
                out = "```text\n" + out + "```\n"
            return m.group(1) + out + m.group(4)

        new = BLOCK.sub(fill, text)
        cache = {}
        new = VALUE.sub(lambda m: m.group(1) + value(a.llmsys, cache, m.group(2),
                                                     m.group(3), m.group(4))
                        + m.group(6), new)
        if new != text:
            stale.append(page)
            if not a.check:
                open(page, "w", encoding="utf-8").write(new)
        for m in PLOT.finditer(text):
            target = os.path.join(ROOT, m.group(1))
            with tempfile.TemporaryDirectory() as tmp:
                run(a.llmsys, m.group(2), ["--plot", tmp])
                names = sorted(os.listdir(tmp))
                have = sorted(os.listdir(target)) if os.path.isdir(target) else []
                same = names == have and all(
                    filecmp.cmp(os.path.join(tmp, n), os.path.join(target, n),
                                shallow=False) for n in names)
                if not same:
                    stale.append(target)
                    if not a.check:
                        os.makedirs(target, exist_ok=True)
                        for n in have:
                            os.remove(os.path.join(target, n))
                        for n in names:
                            with open(os.path.join(tmp, n), "rb") as f:
                                open(os.path.join(target, n), "wb").write(f.read())
    for s in stale:
        print(("stale: " if a.check else "updated: ") + os.path.relpath(s, ROOT))
    if a.check and stale:
        print("run: python3 tools/gen-doc-outputs.py " + " ".join(a.pages))
        return 1
    print(f"{len(a.pages)} page(s), {'up to date' if not stale else 'regenerated'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
