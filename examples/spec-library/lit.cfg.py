# lit configuration of a spec library, written by `llmsys init-lit`
# (docs/spec-testing.md). Every .llmsys file with a RUN: line is a test;
# files without one (shared definitions that tests import) are not.
# Run the suite with `lit -sv DIR`.
#
# Environment: LLMSYS_BIN, a folder holding llmsys (default: PATH);
# LLMSYS_STDLIB, a standard library (default: the installed one's).
import os
import shutil
import subprocess

import lit.formats

config.name = os.path.basename(os.path.dirname(os.path.abspath(__file__)))
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".llmsys"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))


def has_run_line(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return "RUN:" in f.read()


# lit matches excludes by file name, in any folder.
config.excludes = ["Output"] + sorted({
    name
    for folder, _, names in os.walk(config.test_source_root)
    for name in names
    if name.endswith(".llmsys") and
    not has_run_line(os.path.join(folder, name))})


def llvm_bindir():
    """The folder of FileCheck and count: beside them on PATH, else
    llvm-config's."""
    if shutil.which("FileCheck"):
        return ""
    for tool in ("llvm-config-16", "llvm-config"):
        if shutil.which(tool):
            return subprocess.check_output([tool, "--bindir"],
                                           text=True).strip()
    return ""


path = [os.environ.get("LLMSYS_BIN", ""), llvm_bindir(),
        os.environ.get("PATH", "")]
config.environment["PATH"] = os.pathsep.join(p for p in path if p)
if "LLMSYS_STDLIB" in os.environ:
    config.environment["LLMSYS_STDLIB"] = os.environ["LLMSYS_STDLIB"]
