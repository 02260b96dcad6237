"""Runs the llmsys binary against a given stdlib folder (the calibration
scripts fit a value by writing it into a copy of the stdlib)."""
import os
import subprocess
import sys


def copy_stdlib(tmp, root):
    """A copy of ROOT's stdlib under TMP for a fit to write into: its folder
    and the path of its NVIDIA hardware file."""
    import shutil
    stdlib = os.path.join(tmp, "stdlib")
    shutil.copytree(os.path.join(root, "stdlib"), stdlib)
    return stdlib, os.path.join(stdlib, "hardware", "nvidia.llmsys")


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


# One H200 alone, the system the kernel calibrations cost their shapes on.
ONE_H200 = ["import std.hardware.nvidia",
            "network cal_link { bandwidth = 450 GB/s; latency = 1 us }",
            "system cal_one { node { accelerator = H200; devices = 1; "
            "fabric = cal_link } }"]


def eval_with(llmsys, root, accelerator, fields, spec_text):
    """`llmsys eval --format=json --ops=0` of SPEC_TEXT, parsed, on a copy of
    ROOT's stdlib whose ACCELERATOR writes FIELDS ({field: value} in its
    efficiency block, narrow.with_field)."""
    import json
    import tempfile
    from narrow import with_field
    with tempfile.TemporaryDirectory() as tmp:
        stdlib, path = copy_stdlib(tmp, root)
        text = open(path).read()
        for field, value in fields.items():
            text = with_field(text, accelerator, field, value)
        open(path, "w").write(text)
        path = os.path.join(tmp, "shapes.llmsys")
        open(path, "w").write(spec_text)
        return json.loads(run(llmsys, stdlib, ["eval", "--format=json", "--ops=0",
                                               path]))


def attention_pass_times(out):
    """{n: (forward seconds, backward seconds)} of the fused attention
    products of each scenario `sN` of an `llmsys eval --format=json`
    report OUT: its forward score and context products, and the backward's
    gradient products and recomputed scores."""
    times = {}
    for s in out["scenarios"]:
        fwd = bwd = 0.0
        for o in s["operators"]:
            if o["name"] in ("attn.score", "attn.context") and o["phase"] == "fwd":
                fwd += o["time_s"] * o.get("count", 1)
            elif o["name"].startswith(("attn.score.", "attn.context.",
                                       "attn.flash.rescore")):
                bwd += o["time_s"] * o.get("count", 1)
        times[int(s["name"][1:])] = (fwd, bwd)
    return times
