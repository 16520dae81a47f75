#!/usr/bin/env bash
# Runs every benchmark of bench/ against one build and says which ran.
#
#   bench/run_all.sh [BUILD_DIR]        (default: ./build; its bin/ holds the tools)
#
# Compiled benchmarks: every bench/<name>.cpp whose executable <name> is in
# BUILD_DIR/bin (build them first: ninja -C BUILD_DIR planner_bench import_bench ...).
# Scripts: every bench/*_bench.py and bench/*_report.py, run as
# `python3 SCRIPT --bin-dir BUILD_DIR/bin`, and bench/*_bench.sh, run as
# `SCRIPT BUILD_DIR/bin`. New benchmarks following these names are picked up.
# Extra arguments for one benchmark: <NAME>_ARGS, e.g.
#   IMPORT_BENCH_ARGS="--nodes 20000 --repeats 3" bench/run_all.sh build
# Exit status: 0 when every benchmark found ran and exited 0 (77: skipped, e.g.
# upstream_compare_bench.py without the modern-PyTorch venv or the oracle runner).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-build}
[ -d "$build/bin" ] || { echo "run_all: no $build/bin (pass the build directory)" >&2; exit 2; }
bin=$(cd "$build/bin" && pwd)
cd "$root" || exit 2

ran=() failed=() skipped=()

run() {  # name, command...
  local name=$1
  shift
  echo
  echo "=================== $name ($(date -u +%H:%M:%S) UTC)"
  local start=$SECONDS rc=0
  "$@" || rc=$?
  if [ $rc -eq 0 ]; then
    ran+=("$name ($((SECONDS - start)) s)")
  elif [ $rc -eq 77 ]; then  # what it needs is missing (it says what)
    skipped+=("$name (exit 77: see its output)")
  else
    failed+=("$name (exit $rc)")
  fi
}

args_for() {  # import_bench -> $IMPORT_BENCH_ARGS
  local var
  var=$(echo "$1" | tr 'a-z.-' 'A-Z__')_ARGS
  echo "${!var:-}"
}

echo "benchmarks of $root against $bin; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

for src in bench/*.cpp; do
  name=$(basename "$src" .cpp)
  if [ -x "$bin/$name" ]; then
    # shellcheck disable=SC2046
    run "$name" "$bin/$name" $(args_for "$name")
  else
    skipped+=("$name (not built in $bin)")
  fi
done

for script in bench/*_bench.py bench/*_report.py; do
  [ -e "$script" ] || continue
  name=$(basename "$script")
  # shellcheck disable=SC2046
  run "$name" python3 "$script" --bin-dir "$bin" $(args_for "${name%.py}")
done

for script in bench/*_bench.sh; do
  [ -e "$script" ] || continue
  name=$(basename "$script")
  # shellcheck disable=SC2046
  run "$name" bash "$script" "$bin" $(args_for "${name%.sh}")
done

echo
echo "=================== summary"
for r in "${ran[@]+"${ran[@]}"}"; do echo "ran      $r"; done
for s in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped  $s"; done
for f in "${failed[@]+"${failed[@]}"}"; do echo "FAILED   $f"; done
[ ${#failed[@]} -eq 0 ]
