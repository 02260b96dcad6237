#!/usr/bin/env python3
"""Checks the code blocks of Markdown pages against the tool (docs are
tested; test/Driver/docs.test runs it over README.md and docs/).

    python3 tools/check-docs.py [--llmsys BIN] [--update] PAGE...

Each page runs in a fresh folder holding links to the repository's
stdlib/, test/ and docs/, with LLMSYS_STDLIB set to the source stdlib.

- A ```llmsys block is written to a file and checked with `llmsys check`:
  it must be clean, and its `expect` lines must hold.
- A ```console block is a session: each line starting with `$ ` is run by
  bash in the folder, and the lines up to the next `$ ` must be what it
  prints (stdout and stderr together; trailing spaces ignored). A line
  `...` stands for any number of lines. With --update a stale output
  without `...` is rewritten in the page.

An HTML comment on the line before a block's fence says more:

    <!-- doc-test: file NAME -->        the block is also saved as NAME, for
                                        the sessions and blocks after it
    <!-- doc-test: after NAME... -->    the block is checked after the named
                                        blocks (imported, in that order; a
                                        name std.X imports the stdlib's X)
    <!-- doc-test: with NAME -->        an empty file NAME exists (for a
                                        block that imports a user's file)
    <!-- doc-test: copy SRC DEST -->    the repository's file SRC is copied
                                        to DEST first
    <!-- doc-test: error TEXT -->       `llmsys check` must fail (exit 2)
                                        with a diagnostic containing TEXT
    <!-- doc-test: excerpt -->          the block shows part of a file with
                                        `...` elisions: not run
    <!-- doc-test: requires python-module -->
                                        the block needs the Python module:
                                        checked when --python-module gives
                                        its folder (then `python3` in a
                                        session is --python, the interpreter
                                        it was built for), else skipped

A ```python block is not run by itself; save it with `file` and run it
from a session.

Exits 1 and lists the failing blocks (PAGE:LINE) when any fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^```(\w*)\s*$")
DIRECTIVE = re.compile(r"^<!-- doc-test: (\w+)\s*(.*?)\s*-->$")


class Block:
    def __init__(self, lang, start, end, lines, directives):
        self.lang = lang
        self.start = start  # index of the opening fence
        self.end = end  # index of the closing fence
        self.lines = lines
        self.directives = directives


def blocks(lines):
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        directives = []
        k = i - 1
        while k >= 0 and DIRECTIVE.match(lines[k].strip()):
            d = DIRECTIVE.match(lines[k].strip())
            directives.insert(0, (d.group(1), d.group(2)))
            k -= 1
        for name, _ in directives:
            if name not in ("file", "after", "with", "copy", "error",
                            "excerpt", "requires"):
                sys.exit("check-docs: line %d: unknown directive '%s'"
                         % (k + 2, name))
        yield Block(m.group(1), i, j, lines[i + 1:j], directives)
        i = j + 1


def matches(shown, got):
    """The shown lines against the output: a line '...' stands for any
    number of lines (the page elides them)."""
    i = 0  # position in got
    k = 0
    while k < len(shown):
        if shown[k] == "...":
            k += 1
            if k == len(shown):
                return True
            while i < len(got) and got[i] != shown[k]:
                i += 1
            if i == len(got):
                return False
        elif i >= len(got) or got[i] != shown[k]:
            return False
        i += 1
        k += 1
    return i == len(got)


def run(cmd, cwd, env):
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return p.returncode, p.stdout


def check_page(page, llmsys, update, pymodule=None, python=None):
    text = open(page, encoding="utf-8").read()
    lines = text.split("\n")
    failures = []
    replacements = []  # (start, end, new lines) of console outputs
    work = tempfile.mkdtemp(prefix="llmsys-docs-")
    env = dict(os.environ, LLMSYS_STDLIB=os.path.join(ROOT, "stdlib"),
               PATH=os.path.dirname(os.path.abspath(llmsys)) + os.pathsep +
               os.environ.get("PATH", ""), NO_COLOR="1")
    for d in ("stdlib", "test", "docs", "tools"):
        os.symlink(os.path.join(ROOT, d), os.path.join(work, d))
    if pymodule:
        # `python3` in a session is the interpreter the module was built
        # for, with the module on its path.
        shim = os.path.join(work, ".python-bin")
        os.mkdir(shim)
        os.symlink(python or sys.executable, os.path.join(shim, "python3"))
        env["PATH"] = shim + os.pathsep + env["PATH"]
        env["PYTHONPATH"] = os.path.abspath(pymodule)
    rel = os.path.relpath(page, ROOT)
    checked = 0
    try:
        for n, b in enumerate(blocks(lines)):
            where = "%s:%d" % (rel, b.start + 1)
            opts = dict(b.directives)
            if "requires" in opts and opts["requires"] == "python-module" \
                    and not pymodule:
                continue
            if b.lang == "python" and "file" in opts:
                with open(os.path.join(work, opts["file"]), "w") as f:
                    f.write("\n".join(b.lines) + "\n")
                continue
            if "excerpt" in opts or b.lang not in ("llmsys", "console"):
                continue
            checked += 1
            for name, arg in b.directives:
                if name == "with":
                    path = os.path.join(work, arg)
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    open(path, "a").close()
                elif name == "copy":
                    src, dest = arg.split()
                    path = os.path.join(work, dest)
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    shutil.copyfile(os.path.join(ROOT, src), path)
            if b.lang == "llmsys":
                name = opts.get("file", "block%d.llmsys" % n)
                body = "\n".join(b.lines) + "\n"
                after = opts.get("after", "").split()
                prefix = "".join(
                    ("import %s\n" if a.startswith("std.") else
                     'import "%s"\n') % a for a in after)
                path = os.path.join(work, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(body)
                checkfile = path
                if prefix:
                    checkfile = os.path.join(work, "check%d.llmsys" % n)
                    with open(checkfile, "w") as f:
                        f.write(prefix + body)
                status, out = run("llmsys check '%s'" % checkfile, work, env)
                want = opts.get("error")
                if want is None and status != 0:
                    failures.append("%s: the llmsys block does not check "
                                    "clean:\n%s" % (where, out))
                elif want is not None and (status != 2 or want not in out):
                    failures.append("%s: expected 'llmsys check' to fail "
                                    "with '%s'; it printed (exit %d):\n%s"
                                    % (where, want, status, out))
                continue
            # A console session.
            new = []
            i = 0
            while i < len(b.lines):
                line = b.lines[i]
                if not line.startswith("$ "):
                    failures.append("%s: console line %d is not a command "
                                    "('$ ...')" % (where, i + 1))
                    break
                j = i + 1
                while j < len(b.lines) and not b.lines[j].startswith("$ "):
                    j += 1
                shown = [l.rstrip() for l in b.lines[i + 1:j]]
                _, out = run(line[2:], work, env)
                got = [l.rstrip() for l in out.split("\n")]
                while got and got[-1] == "":
                    got.pop()
                if not matches(shown, got):
                    failures.append(
                        "%s: '%s' prints\n%s\n(the page shows\n%s)"
                        % (where, line[2:], "\n".join(got),
                           "\n".join(shown)))
                new.append(line)
                new.extend(got)
                i = j
            # A session with elisions is kept as written.
            if new != [l.rstrip() for l in b.lines] and \
                    "..." not in b.lines:
                replacements.append((b.start + 1, b.end, new))
    finally:
        shutil.rmtree(work)
    if update and replacements:
        for start, end, new in reversed(replacements):
            lines[start:end] = new
        open(page, "w", encoding="utf-8").write("\n".join(lines))
        print("updated: %s" % rel)
    return checked, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llmsys", default=os.path.join(ROOT, "build/bin/llmsys"))
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--python-module", default="",
                    help="the Python module's folder: check the blocks "
                    "that need it")
    ap.add_argument("--python", default="",
                    help="the interpreter the module was built for")
    ap.add_argument("pages", nargs="+")
    a = ap.parse_args()
    total, failures = 0, []
    for page in a.pages:
        checked, f = check_page(page, a.llmsys, a.update,
                                a.python_module or None, a.python or None)
        total += checked
        failures += f
    for f in failures:
        print("check-docs: " + f)
    print("%d block(s) checked, %d failed" % (total, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
