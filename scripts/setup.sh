#!/usr/bin/env bash
# Install what the build needs on Debian 12 (idempotent: skips apt when every
# package is already present).
set -euo pipefail
pkgs=(cmake ninja-build ccache g++ pkg-config
      llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
      libflatbuffers-dev flatbuffers-compiler libcli11-dev libfmt-dev catch2
      nlohmann-json3-dev libzip-dev zlib1g-dev libdeflate-dev libeigen3-dev python3
      libxml2-utils python3-venv
      libxnnpack-dev libpthreadpool-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
