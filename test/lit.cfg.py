# lit configuration of the llmsys suite.
import os
import lit.formats

config.name = "llmsys"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".llmsys", ".test"]
# validation/ holds cases for `llmsys validate`, not lit tests.
config.excludes = ["Inputs", "validation", "validation-unexpressible", "validation-superseded", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.llmsys_obj_root, "test")

path = os.pathsep.join([config.llmsys_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
config.environment.pop("LLMSYS_STDLIB", None)
config.substitutions.append(("%stdlib", os.path.join(config.llmsys_src_root, "stdlib")))
config.substitutions.append(("%srcroot", config.llmsys_src_root))
config.substitutions.append(("%llmsys_obj_root", config.llmsys_obj_root))
config.substitutions.append(("%python", "python3"))
# Compiles a C++ file against the project's headers, checking only syntax
# and types (compile-time checks such as a diagnostic's argument count).
config.substitutions.append(("%cxx-syntax", " ".join(
    [config.cxx_compiler, "-std=c++17", "-fsyntax-only",
     "-I" + os.path.join(config.llmsys_src_root, "lib")] +
    ["-isystem " + d for d in config.llvm_include_dirs.split(";") if d])))
config.substitutions.append(("%{llmsys_tools}", config.llmsys_tools_dir))
# `%status N CMD...` passes when CMD exits with status N.
config.substitutions.append(("%status", "python3 " + os.path.join(
    config.llmsys_src_root, "test", "Inputs", "status.py")))
# A sanitizer build (tools/sanitize.sh): its memory is not the tool's.
if getattr(config, "llmsys_sanitize", ""):
    config.available_features.add("sanitizer")

# Headless Chromium (optional: `tools/install-deps.sh --optional`) renders
# figures and pages in the tests that REQUIRE it.
import shutil
for name in ("chromium", "chromium-browser", "google-chrome"):
    if shutil.which(name):
        config.available_features.add("chromium")
        config.substitutions.append(("%chromium", shutil.which(name)))
        break

# The Python module (python/, docs/python.md), built when pybind11 is
# found: `%pymodule SCRIPT` runs SCRIPT with the interpreter it was built
# for and the module on its path. pandas, where that interpreter has it
# (Debian python3-pandas, installed by tools/install-deps.sh).
# `%{docs_python}`: tools/check-docs.py's arguments that check the
# docs' blocks that need the module (none without it).
import subprocess
if getattr(config, "llmsys_python", "") not in ("ON", "TRUE", "1"):
    config.substitutions.append(("%{docs_python}", ""))
    lit_config.note("the Python module is not built (pybind11 or the Python "
                    "headers not found; tools/install-deps.sh installs them): "
                    "its tests are UNSUPPORTED")
else:
    config.available_features.add("python-module")
    py = config.python_executable
    config.substitutions.append(("%pymodule", "env PYTHONPATH=%s %s" % (
        os.path.join(config.llmsys_obj_root, "python"), py)))
    # `%pyinstalled PREFIX SCRIPT`: the same with the module installed
    # under PREFIX (test/Install).
    config.substitutions.append(("%pyinstalled", "%s %s" % (
        os.path.join(config.llmsys_src_root, "test", "Install", "Inputs",
                     "pyinstalled.sh"), py)))
    config.substitutions.append(("%pysite", config.python_install_dir))
    config.substitutions.append(("%{docs_python}", "--python-module %s --python %s" % (
        os.path.join(config.llmsys_obj_root, "python"), py)))
    if subprocess.call([py, "-c", "import pandas"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL) == 0:
        config.available_features.add("pandas")
    else:
        lit_config.note("pandas is not installed for %s (Debian "
                        "python3-pandas): test/Python/pandas.test is "
                        "UNSUPPORTED" % py)

# MPI sweeps (docs/cli.md), built when Open MPI is found: `%mpirun N`
# starts N ranks on this machine (oversubscribed: CI has 2 cores).
if getattr(config, "llmsys_mpi", "") in ("ON", "TRUE", "1") and shutil.which("mpirun"):
    config.available_features.add("mpi")
    root = " --allow-run-as-root" if os.geteuid() == 0 else ""
    # Under the sanitizers, Open MPI's own allocations are not ours to
    # report as leaks.
    if getattr(config, "llmsys_sanitize", ""):
        root += " -x ASAN_OPTIONS=detect_leaks=0"
    config.substitutions.append(("%mpirun", "mpirun --oversubscribe%s -np" % root))
else:
    lit_config.note("MPI sweeps are not built or mpirun is missing (Debian "
                    "libopenmpi-dev, openmpi-bin; tools/install-deps.sh "
                    "installs them): their tests are UNSUPPORTED")

# Editor grammars (editors/, docs/editors.md): the TextMate check needs node
# and npm (packages from the npm registry), the tree-sitter check the
# tree-sitter CLI.
if shutil.which("node") and shutil.which("npm"):
    config.available_features.add("npm")
else:
    lit_config.note("node or npm is missing: the TextMate grammar's test is UNSUPPORTED")
if shutil.which("tree-sitter"):
    config.available_features.add("tree-sitter")
else:
    lit_config.note("tree-sitter-cli is not on PATH (docs/editors.md): the "
                    "tree-sitter grammar's test is UNSUPPORTED")
