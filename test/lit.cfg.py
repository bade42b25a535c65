# -*- Python -*-
# lit configuration of the quant-storage test suite.

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.qs_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%qs_src_root", config.qs_src_root))
config.substitutions.append(("%qs_obj_root", config.qs_obj_root))
config.substitutions.append(("%fake_cuda_dir", os.path.join(config.qs_obj_root, "test", "fake-cuda")))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.qs_tools_dir, config.llvm_tools_dir]
tools = ["qs-opt", "qs-run", "qs-lsp-server", "qs-bench-quantize", "qs-bench-gemm"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.qs_tools_dir, append_path=True)

config.substitutions.append(("%qs_python", config.qs_python or sys.executable))

# lib/Plugin: QSPlugin.so, loaded by Debian's mlir-opt (test/Tools/qs-plugin.mlir).
config.substitutions.append(("%qs_plugin", os.path.join(config.qs_obj_root, "lib", "QSPlugin.so")))
if os.access(os.path.join(config.llvm_tools_dir, "mlir-opt"), os.X_OK):
    config.available_features.add("mlir-opt")

# test/Install: a project of its own configured against `cmake --install` of
# this build tree, with this build's CMake, generator, compilers and linker.
config.substitutions.append(("%cmake", config.cmake_command))
_downstream = [f'-G "{config.cmake_generator}"',
               f'-DCMAKE_MAKE_PROGRAM="{config.cmake_make_program}"',
               f'-DCMAKE_C_COMPILER="{config.c_compiler}"',
               f'-DCMAKE_CXX_COMPILER="{config.cxx_compiler}"']
if config.llvm_use_linker:
    _downstream.append(f'-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld={config.llvm_use_linker}')
config.substitutions.append(("%downstream_cmake_args", " ".join(_downstream)))

# The numerics tests need numpy, ml_dtypes, pytest and randomgen (Philox4x32
# for the stochastic-rounding reference; the project's .venv).
def _has_numerics_python():
    import subprocess
    if not config.qs_python:
        return False
    try:
        return subprocess.run([config.qs_python, "-c", "import numpy, ml_dtypes, pytest, randomgen"],
                              capture_output=True).returncode == 0
    except OSError:
        return False

if _has_numerics_python():
    config.available_features.add("numerics-python")

# The quant_storage package (python/) is built and importable from the tree.
if config.qs_python_bindings and "numerics-python" in config.available_features:
    config.available_features.add("python-bindings")

if config.qs_enable_unittests:
    config.available_features.add("unittests")

# A build compiled with ASan + UBSan (scripts/test-sanitizers.sh).
if config.qs_sanitizers:
    config.available_features.add("sanitizers")

# ptxas (CUDA toolkit) assembles generated PTX: CUDA_HOME, PATH, /usr/local/cuda.
def _find_ptxas():
    import shutil
    for root in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_ROOT"),
                 os.environ.get("CUDA_PATH")]:
        if root and os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
            return os.path.join(root, "bin", "ptxas")
    return shutil.which("ptxas") or next(
        (p for p in ["/usr/local/cuda/bin/ptxas"] if os.access(p, os.X_OK)), None)

_ptxas = _find_ptxas()
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
    config.substitutions.append(("%cuda_home", os.path.dirname(os.path.dirname(_ptxas))))

# nvdisasm reads back the machine code ptxas makes (SASS tests): the
# project's .venv (PyPI nvidia-cuda-nvdisasm, requirements.txt), else the
# CUDA toolkit's.
def _find_nvdisasm():
    import glob
    venv = os.path.dirname(os.path.dirname(config.qs_python))
    found = glob.glob(os.path.join(venv, "lib", "python*", "site-packages",
                                   "nvidia", "cu13", "bin", "nvdisasm"))
    if _ptxas:
        found.append(os.path.join(os.path.dirname(_ptxas), "nvdisasm"))
    return next((p for p in found if os.access(p, os.X_OK)), None)

_nvdisasm = _find_nvdisasm()
if _ptxas and _nvdisasm:
    config.available_features.add("nvdisasm")
    config.substitutions.append(("%nvdisasm", _nvdisasm))

# A CUDA device that qs-run --device=cuda can use (driver loaded at run time).
def _cuda_device():
    import subprocess
    qs_run = os.path.join(config.qs_tools_dir, "qs-run")
    try:
        proc = subprocess.run([qs_run, "--cuda-info"], capture_output=True, text=True,
                              timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None

_device = _cuda_device()
if _device:
    config.available_features.add("cuda-device")
    lit_config.note(f"GPU tests run on {_device}")
else:
    lit_config.note("no CUDA device: tests that REQUIRE cuda-device are unsupported")
