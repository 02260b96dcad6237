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


def costs(llmsys_opt, text):
    """stdout of `llmsys-opt --emit=costs` on the spec TEXT (written to a
    temporary file); exits on failure."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "spec.llmsys")
        with open(path, "w") as f:
            f.write(text)
        out = subprocess.run([llmsys_opt, "--emit=costs", path],
                             capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    return out.stdout


def opt_arguments(parser, root):
    """The --llmsys option of the scripts that run llmsys-opt."""
    parser.add_argument("--llmsys",
                        default=os.path.join(root, "build", "bin", "llmsys-opt"),
                        help="the llmsys-opt binary")
