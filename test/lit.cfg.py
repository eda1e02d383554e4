# test/lit.cfg.py - lit configuration of korch's FileCheck tests (run by ctest as `lit`).
#
# Tests are *.kir files under test/ with `// RUN:` lines.  Substitutions:
#   korch-opt     the korch-opt of this build
#   FileCheck, not, count   LLVM's test utilities (llvm-19-tools)
#   %plugin_so    the in-tree build of examples/dialect-plugin (feature `plugin` when built)
#   %fake_cuda    test/lib/fake_cuda.c's libfake_cuda.so, korch-run's CUDA driver stand-in
#   ptxas         CUDA's PTX assembler (feature `ptxas` when $KORCH_PTXAS, /usr/local/cuda/bin/ptxas
#                 or `ptxas` on PATH is executable)
#   %korch_src    the source root
import os

import lit.formats

config.name = "korch"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".kir"]
config.excludes = ["fuzz", "unit", "lib", "install", "Inputs", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.korch_obj_root, "test")

korch_opt = os.path.join(config.korch_tools_dir, "korch-opt")
if not os.path.exists(korch_opt):
    lit_config.fatal("korch-opt is not built: %s (build the project before running lit)" % korch_opt)

# Whole-word tool names, as LLVM's lit configurations substitute them (not inside other words
# such as `korch-opt-foo` or `%korch-opt`).
def tool(name, path):
    config.substitutions.append((r"(?<![\w/.%-])" + name.replace("-", r"\-") + r"(?![\w/.-])", path))

config.substitutions.append(("%plugin_so", config.plugin_so or "plugin-not-built.so"))
# korch-run's fake CUDA driver (test/lib/fake_cuda.c): KORCH_CUDA_LIBRARY=%fake_cuda runs the
# whole runtime path on a CPU (feature `fake-cuda`).
fake_cuda = getattr(config, "fake_cuda", "")
config.substitutions.append(("%fake_cuda", fake_cuda or "fake-cuda-not-built.so"))
if fake_cuda and os.path.exists(fake_cuda):
    config.available_features.add("fake-cuda")
# CUDA's link-time stub libcuda.so (its cuInit fails): korch-run must treat it as "no driver".
cuda_stub = "/usr/local/cuda/lib64/stubs/libcuda.so"
config.substitutions.append(("%cuda_stub", cuda_stub))
if os.path.exists(cuda_stub):
    config.available_features.add("cuda-stub")
config.substitutions.append(("%korch_src", config.korch_src_root))
tool("korch-opt", korch_opt)
# The other tools, each under tools/<name>/ of the build.
for name in ("korch-translate", "korch-interp", "korch-run", "korch-compile"):
    path = os.path.join(config.korch_tools_dir, name, name)
    if os.path.exists(path):
        tool(name, path)
        config.available_features.add(name)
        config.substitutions.append(("%%%s_path" % name.replace("-", "_"), path))

# Real inputs beside the project (../shared: models, conformance lists) and the ONNX node test
# data of Debian's libonnx-testdata.  Tests needing them say `REQUIRES: shared` / `onnx-testdata`
# and are reported UNSUPPORTED (with the reason) where they are absent, as on a user's clone.
shared = os.path.normpath(os.path.join(config.korch_src_root, "..", "shared"))
config.substitutions.append(("%shared", shared))
if os.path.isdir(os.path.join(shared, "models")):
    config.available_features.add("shared")
onnx_node = "/usr/share/libonnx-testdata/data/node"
config.substitutions.append(("%onnx_node", onnx_node))
if os.path.isdir(onnx_node):
    config.available_features.add("onnx-testdata")
# ptxas (CUDA) validates the PTX of --emit-ptx; tests running it say `REQUIRES: ptxas`.  Only the
# assembler is needed, no GPU or driver.  Found as kr_nvptx_find_ptxas does (backend/nvptx/
# ptxas.c): $KORCH_PTXAS when non-empty, else /usr/local/cuda/bin/ptxas, else `ptxas` on PATH.
import shutil
ptxas = os.environ.get("KORCH_PTXAS") or "/usr/local/cuda/bin/ptxas"
if not (os.path.isfile(ptxas) and os.access(ptxas, os.X_OK)) and not os.environ.get("KORCH_PTXAS"):
    ptxas = shutil.which("ptxas") or ""
if ptxas and os.path.isfile(ptxas) and os.access(ptxas, os.X_OK):
    tool("ptxas", ptxas)
    config.available_features.add("ptxas")
# The tools' own ptxas lookup sees the same program.
if ptxas:
    config.environment["KORCH_PTXAS"] = ptxas
tool("FileCheck", config.filecheck)
tool("not", config.not_tool)
tool("count", config.count_tool)

if config.plugin_so:
    config.available_features.add("plugin")
if getattr(config, "sanitized", False):
    config.available_features.add("asan")

# A sanitizer report must fail the test even under `not`: make it abort (a signal, which `not`
# reports as a failure) instead of exiting with status 1.
def sanitizer_options(var, extra):
    value = os.environ.get(var, "")
    config.environment[var] = (value + ":" if value else "") + extra

# allocator_may_return_null: a tensor too large to allocate is the tools' own "cannot allocate"
# error, as in a normal build, not an ASan abort.
sanitizer_options("ASAN_OPTIONS", "abort_on_error=1:allocator_may_return_null=1")
sanitizer_options("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1:abort_on_error=1")
if "LSAN_OPTIONS" in os.environ:
    config.environment["LSAN_OPTIONS"] = os.environ["LSAN_OPTIONS"]
