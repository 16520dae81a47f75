# lit configuration for ptec's IR and tool tests.
import os
import lit.formats
from lit.llvm import llvm_config

config.name = "ptec"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ptec_obj_root, "test", "lit")
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%models", os.path.join(config.ptec_src_root, "test", "models")))
llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
# Tests check the exir shape rules after every pass, whatever the build type
# (release builds run them only at import unless asked).
from lit.llvm.subst import ToolSubst
llvm_config.add_tool_substitutions(
    [ToolSubst(tool, extra_args=["--exir-verify-each"])
     for tool in ("ptec-opt", "aot-compile")],
    [config.ptec_tools_dir])
# Our tools first, then FileCheck & co. from LLVM.
llvm_config.with_environment("PATH", config.ptec_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# `REQUIRES: xnnpack-runtime`: pte-run runs XnnpackBackend delegates (its
# runtime half is built only where libxnnpack is installed).
import subprocess
try:
    _help = subprocess.run([os.path.join(config.ptec_tools_dir, "pte-run"), "--help"],
                           capture_output=True, text=True, timeout=60).stdout
except OSError:
    _help = ""
if "--xnnpack-threads" in _help:
    config.available_features.add("xnnpack-runtime")
