#!/usr/bin/env bash
# The three conformance judges in full, writing their committed tables:
#   opinfo  test/conformance/opinfo_sweep.py             -> docs/op-coverage.{md,json}
#   suite   test/conformance/backend_suite/run_backend_suite.py -> docs/backend-suite.{md,json}
#   models  bench/model_sweep.py                          -> docs/model-coverage.{md,json}
#
#   bench/run_sweeps.sh [BUILD_DIR] [opinfo] [suite] [models]   (default: ./build, all three)
#
# Needs the modern-PyTorch venv (scripts/venv.sh) and upstream's runtime
# (PTEC_ORACLE, else ../shared/oracle/bin/executorch-runner beside the repository).
# Each sweep runs at nice 10 with at most two worker processes. Upstream's results do
# not depend on ptec and are cached (PTEC_SWEEP_CACHE, else ~/.cache/ptec/sweeps):
# the first run takes hours on two cores, a rerun after a compiler change redoes
# only ptec's flows. Exit status: 0 when every sweep ran (their verdicts are in the
# tables and the logs: a sweep exits 1 when a ptec program gives a wrong value or
# crashes), 2 on a usage error, 77 without the venv.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
what=${*:-opinfo suite models}
[ -d "$build/bin" ] || { echo "run_sweeps: no $build/bin (pass the build directory)" >&2; exit 2; }
bin=$(cd "$build/bin" && pwd)
py=$("$root/scripts/venv.sh" | tail -n 1) || exit 77
oracle=${PTEC_ORACLE:-$root/../shared/oracle/bin/executorch-runner}
cache=${PTEC_SWEEP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptec/sweeps}
mkdir -p "$cache"
cd "$root" || exit 2
for w in $what; do
  echo "=================== $w ($(date -u +%H:%M:%S) UTC)"
  case $w in
    opinfo)
      nice -n 10 "$py" test/conformance/opinfo_sweep.py --bin "$bin" --oracle "$oracle" \
        --samples 3 --jobs 2 --json docs/op-coverage.json --markdown docs/op-coverage.md \
        --json-samples "$cache/opinfo-samples.json" ;;
    suite)
      nice -n 10 "$py" test/conformance/backend_suite/run_backend_suite.py --bin "$bin" \
        --oracle "$oracle" --jobs 2 --json docs/backend-suite.json \
        --markdown docs/backend-suite.md ;;
    models)
      nice -n 10 "$py" bench/model_sweep.py --bin "$bin" --oracle "$oracle" --jobs 2 \
        --json docs/model-coverage.json --markdown docs/model-coverage.md ;;
    *) echo "run_sweeps: unknown sweep '$w' (opinfo, suite, models)" >&2; exit 2 ;;
  esac
  echo "$w: exit $?"
done
exit 0
