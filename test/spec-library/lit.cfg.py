# A spec library tested with lit: every .llmsys file is a test whose RUN
# lines call llmsys (docs/spec-testing.md). Copy this file next to your
# specs; run with `lit -sv DIR` (Debian: /usr/lib/llvm-16/build/utils/lit/lit.py).
import os
import lit.formats

config.name = "spec-library"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".llmsys"]
config.test_source_root = os.path.dirname(__file__)

# llmsys from PATH (or LLMSYS_BIN); FileCheck and count from LLVM 16.
path = [os.environ.get("LLMSYS_BIN", ""), "/usr/lib/llvm-16/bin",
        os.environ.get("PATH", "")]
config.environment["PATH"] = os.pathsep.join(p for p in path if p)
if "LLMSYS_STDLIB" in os.environ:
    config.environment["LLMSYS_STDLIB"] = os.environ["LLMSYS_STDLIB"]
