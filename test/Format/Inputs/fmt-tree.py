#!/usr/bin/env python3
"""llmsys fmt over every .llmsys file under the folders given.

    fmt-tree.py check LLMSYS DIR...       llmsys fmt --check over them all;
                                          exits with its status
    fmt-tree.py idempotent LLMSYS DIR...  fmt(fmt(x)) == fmt(x) for each file
                                          that parses; exits 1 on the first
                                          that is not
"""
import os
import subprocess
import sys
import tempfile


def files(dirs):
    found = []
    for d in dirs:
        for root, _, names in os.walk(d):
            found += [os.path.join(root, n) for n in names if n.endswith(".llmsys")]
    return sorted(found)


def main():
    mode, llmsys, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    paths = files(dirs)
    if mode == "check":
        r = subprocess.run([llmsys, "fmt", "--check"] + paths)
        print(f"{len(paths)} files checked")
        return r.returncode
    formatted = 0
    with tempfile.TemporaryDirectory() as tmp:
        once = os.path.join(tmp, "once.llmsys")
        for p in paths:
            r = subprocess.run([llmsys, "fmt", p], capture_output=True, text=True)
            if r.returncode == 2 and "internal formatter error" not in r.stderr:
                continue  # a negative test's input: it does not parse
            if r.returncode != 0:
                print(f"{p}: llmsys fmt failed:\n{r.stderr}")
                return 1
            with open(once, "w") as f:
                f.write(r.stdout)
            r2 = subprocess.run([llmsys, "fmt", once], capture_output=True, text=True)
            if r2.returncode != 0 or r2.stdout != r.stdout:
                print(f"{p}: formatting twice differs from once")
                return 1
            formatted += 1
    print(f"{formatted} files formatted twice, the same as once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
