#!/usr/bin/env python3
"""`%status N CMD...`: runs CMD with its output passed through and exits 0
when CMD exits with status N, 1 otherwise (lit's `not` accepts any non-zero
status; the tools' exit statuses are documented in docs/cli.md)."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    sys.stderr.write("status.py: %s exited %d, expected %d\n"
                     % (sys.argv[2], got, want))
    sys.exit(1)
