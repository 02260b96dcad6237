"""Runs the llmsys binary against a given stdlib folder (the calibration
scripts fit a value by writing it into a copy of the stdlib)."""
import os
import subprocess
import sys


def run(llmsys, stdlib, args):
    """stdout of `llmsys ARGS` with LLMSYS_STDLIB=stdlib; exits on failure."""
    env = dict(os.environ, LLMSYS_STDLIB=stdlib)
    out = subprocess.run([llmsys] + list(args), capture_output=True,
                         text=True, env=env)
    if out.returncode != 0:
        sys.exit(out.stderr)
    return out.stdout
