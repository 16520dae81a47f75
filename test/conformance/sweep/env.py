"""Where things are: the venv, the tools, upstream's runtime, the cache outside the repo."""
import os
import sys

SKIP = 77
CONFORMANCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(CONFORMANCE))
DOCS = os.path.join(ROOT, "docs")
# Upstream's runtime, prebuilt beside the repository (the same place the e2e tests look).
# PTEC_ORACLE overrides it (a worktree elsewhere).
DEFAULT_ORACLE = os.environ.get("PTEC_ORACLE") or os.path.join(
    ROOT, "..", "shared", "oracle", "bin", "executorch-runner")


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from ptec_venv import venv_python  # noqa: E402


def ensure_venv(modules=("torch", "executorch")):
    """Re-executes this script under the venv's python unless `modules` import here.
    Returns SKIP (the caller exits with it) when the venv is not ready."""
    try:
        for m in modules:
            __import__(m)
        return None
    except ImportError:
        pass
    py = venv_python()
    # Already running in that venv (its python is a link to the base interpreter, so
    # compare the prefixes) and still missing a module: the venv is not usable.
    here = os.path.realpath(sys.prefix)
    if py is None or os.path.realpath(os.path.dirname(os.path.dirname(py))) == here:
        print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
        return SKIP
    os.execv(py, [py] + sys.argv)


def cache_dir():
    """Results that do not depend on ptec (upstream's flow) are kept here, outside the repo:
    PTEC_SWEEP_CACHE, else $XDG_CACHE_HOME/ptec/sweeps (~/.cache/ptec/sweeps)."""
    d = os.environ.get("PTEC_SWEEP_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "ptec", "sweeps")
    os.makedirs(d, exist_ok=True)
    return d


def quiet_torch():
    """Fewer warnings on stderr from torch/transformers (they drown the results)."""
    import logging
    import warnings
    warnings.filterwarnings("ignore")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TORCHDYNAMO_VERBOSE", "0")
    for name in ("torch", "torch._dynamo", "torch.export", "executorch", "transformers", "timm"):
        logging.getLogger(name).setLevel(logging.ERROR)


def versions():
    import torch
    out = {"torch": torch.__version__.split("+")[0]}
    for m in ("executorch", "torchvision", "timm", "transformers"):
        try:
            from importlib.metadata import version
            out[m] = version(m)
        except Exception:
            pass
    return out
