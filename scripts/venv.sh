#!/usr/bin/env bash
# Create (once) the Python environment with modern PyTorch, torchvision and
# ExecuTorch that the modern-export fixtures and the upstream comparisons use.
# It lives outside the repo (the torch wheel is large) and is reused:
#   PTEC_VENV (default: $XDG_CACHE_HOME/ptec/venv or ~/.cache/ptec/venv).
# Prints the venv's python on the last line. The product itself never needs it.
# Exit 0 when the venv is ready; non-zero (and a message) when it cannot be made
# (no network to the package index, say): tests that need it then show as skipped.
set -euo pipefail
venv=${PTEC_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptec/venv}
stamp="$venv/.ptec-ready"
if [ -f "$stamp" ] && [ -x "$venv/bin/python" ]; then
  echo "$venv/bin/python"
  exit 0
fi
py=$(command -v python3)
"$py" -c 'import venv' 2>/dev/null || {
  echo "venv: python3 has no venv module (apt-get install python3-venv)" >&2; exit 1; }
mkdir -p "$(dirname "$venv")"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip >&2
# executorch pins the torch it was built against; install it with torch and
# torchvision in one resolve so pip picks matching versions.
"$venv/bin/python" -m pip install -q torch torchvision executorch numpy >&2
"$venv/bin/python" -c 'import torch, torchvision, executorch, numpy' >&2
touch "$stamp"
echo "$venv/bin/python"
