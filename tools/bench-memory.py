#!/usr/bin/env python3
"""Peak memory of `llmsys check` per byte of spec (issue 21's target: at most
40 bytes of RSS a byte for a file of many small entities).

Writes three generated specs of about SIZE megabytes each -- many small
entities, comment lines, whitespace -- checks each with every binary named,
and prints the peak RSS above an empty file's, per input byte. Name the
previous main's build too, to compare in one run on a noisy machine:

  python3 tools/bench-memory.py build/bin/llmsys /tmp/main-build/bin/llmsys

--max NAME=BYTES (entities, comments, whitespace) makes it a check: it
exits 1 when a spec takes more bytes a byte than that (test/Driver/memory.test).
"""
import argparse
import os
import subprocess
import sys
import tempfile


def peak_rss(binary, path):
    """Peak resident set of one `llmsys check PATH`, in bytes."""
    proc = subprocess.Popen([binary, "check", "-q", path],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench-memory: {binary} check {path} failed")
    return usage.ru_maxrss * 1024  # kilobytes on Linux


def write_specs(folder, size):
    specs = {}
    path = os.path.join(folder, "entities.llmsys")
    with open(path, "w") as f:
        i = 0
        while f.tell() < size:
            f.write(f"network n{i} {{ bandwidth = {i + 1} GB/s; "
                    "latency = 1 us }\n")
            i += 1
    specs["entities"] = path
    path = os.path.join(folder, "comments.llmsys")
    with open(path, "w") as f:
        f.write(("// " + "x" * 96 + "\n") * (size // 100))
    specs["comments"] = path
    path = os.path.join(folder, "whitespace.llmsys")
    with open(path, "w") as f:
        f.write((" " * 99 + "\n") * (size // 100))
    specs["whitespace"] = path
    empty = os.path.join(folder, "empty.llmsys")
    open(empty, "w").close()
    return specs, empty


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binaries", nargs="+", help="llmsys binaries to compare")
    ap.add_argument("--size", type=float, default=4,
                    help="megabytes of each generated spec (default 4)")
    ap.add_argument("--max", action="append", default=[],
                    metavar="NAME=BYTES",
                    help="fail when spec NAME takes more bytes a byte")
    args = ap.parse_args()
    limits = {k: float(v) for k, v in (m.split("=") for m in args.max)}
    over = []
    with tempfile.TemporaryDirectory() as folder:
        specs, empty = write_specs(folder, int(args.size * 1e6))
        print(f"{'spec':<22}" + "".join(f"{b:>32}" for b in args.binaries))
        base = {b: peak_rss(b, empty) for b in args.binaries}
        for name, path in specs.items():
            size = os.path.getsize(path)
            cells = []
            for b in args.binaries:
                per_byte = max(0, peak_rss(b, path) - base[b]) / size
                cells.append(f"{per_byte:>22.1f} bytes/byte")
                if name in limits and per_byte > limits[name]:
                    over.append(f"{b}: {name} {per_byte:.1f} bytes a byte, "
                                f"more than {limits[name]:g}")
            print(f"{name:<22}" + "".join(f"{c:>32}" for c in cells))
    for line in over:
        print("bench-memory: " + line, file=sys.stderr)
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
