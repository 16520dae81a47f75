#!/usr/bin/env bash
# Create (once) the Python environment with modern PyTorch, torchvision and
# ExecuTorch that the modern-export fixtures and the upstream comparisons use,
# plus the libraries of the conformance sweeps (timm, transformers: the model
# sweep; pytest: ExecuTorch's backend test suite) at pinned versions.
# It lives outside the repo (the torch wheel is large) and is reused:
#   PTEC_VENV (default: $XDG_CACHE_HOME/ptec/venv or ~/.cache/ptec/venv).
# Idempotent: a ready venv that lacks one of the pinned sweep libraries (made by an
# older version of this script) gets it installed; nothing else is touched.
# Prints the venv's python on the last line. The product itself never needs it.
# Exit 0 when the venv is ready; non-zero (and a message) when it cannot be made
# (no network to the package index, say): tests that need it then show as skipped.
set -euo pipefail
venv=${PTEC_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptec/venv}
stamp="$venv/.ptec-ready"
# The sweeps' libraries, pinned: their tables (docs/model-coverage.md,
# docs/backend-suite.md) were measured with these.
sweep_pins=(timm==1.0.31 transformers==5.25.0 pytest==9.2.0)

# Installs each pin whose version is not the one installed.
ensure_sweep_pins() {
  local missing=()
  for pin in "${sweep_pins[@]}"; do
    local name=${pin%%==*} want=${pin#*==}
    local have
    have=$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$name'))" \
           2>/dev/null || true)
    [ "$have" = "$want" ] || missing+=("$pin")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    "$venv/bin/python" -m pip install -q "${missing[@]}" >&2
  fi
}

if [ -f "$stamp" ] && [ -x "$venv/bin/python" ]; then
  ensure_sweep_pins
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
ensure_sweep_pins
"$venv/bin/python" -c 'import torch, torchvision, executorch, numpy, timm, transformers, pytest' >&2
touch "$stamp"
echo "$venv/bin/python"
