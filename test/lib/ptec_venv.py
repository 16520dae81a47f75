"""Where the modern-PyTorch venv is, for the test scripts (one place for all)."""
import os


def venv_dir():
    """PTEC_VENV, else the cache folder scripts/venv.sh makes it in."""
    return os.environ.get("PTEC_VENV") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "ptec", "venv")


def venv_python():
    """The venv's python (scripts/venv.sh; PTEC_VENV), or None when it is not ready."""
    venv = venv_dir()
    py = os.path.join(venv, "bin", "python")
    if os.path.isfile(os.path.join(venv, ".ptec-ready")) and os.access(py, os.X_OK):
        return py
    return None
