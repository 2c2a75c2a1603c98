#!/usr/bin/env bash
# Tuning-engine figures on the GPU machine, one step per device command (results to $OUT):
#   STEP=compile:    compile throughput, cold and warm cache, on all cores (tune --compile-only)
#   STEP=default:    cold tuning of the public suite with the default strategy and budget (time
#                    per problem), a no-op re-run, a warm --retune of one problem, and two
#                    workers on one GPU (--devices 0,0) over the quick list
#   STEP=exhaustive: the public suite with --strategy exhaustive, for the default's winners to be
#                    compared against (tools/bench/compare_strategies.py)
# Run from the repository root with .device-dist carried. Screening uses the short settings of
# tools/device/screen_fast.yaml (both strategies alike) to fit the device budget.
set -uo pipefail
out=${OUT:-/tmp/sgemm-out}
work=/tmp/sgemm-engine
mkdir -p "$out" "$work"
dist=$PWD/.device-dist
export SGEMM_SOURCE_DIR=$dist
export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
tool=$dist/bin/sgemm-tune
space=$dist/configs/spaces
settings=tools/device/screen_fast.yaml
public=$dist/configs/shapes/public.csv
quick=$dist/configs/shapes/quick.csv
res=$out
source tools/device/lib.sh

case ${STEP:-default} in
  compile)
    nproc | tee "$out/cores.txt"
    export SGEMM_CACHE_DIR=$work/compile-cache
    rm -rf "$SGEMM_CACHE_DIR"
    printf 'm,n,k\n4096,4096,4096\n' > "$work/one.csv"
    timed compile-cold "$tool" tune --compile-only --shapes "$work/one.csv" --space "$space" --db "$work/compile.db" --json
    timed compile-warm "$tool" tune --compile-only --shapes "$work/one.csv" --space "$space" --db "$work/compile.db" --json
    timed compile-quick "$tool" tune --compile-only --shapes "$quick" --space "$space" --db "$work/compile.db" --json
    grep -h '"candidates_per_second"\|"cache_hits"\|"candidates"' "$out"/compile-*.json | tail -12
    ;;
  default)
    export SGEMM_CACHE_DIR=$work/cache
    rm -rf "$SGEMM_CACHE_DIR" "$work/default.db"*
    timed tune-default timeout 330 "$tool" tune --shapes "$public" --space "$space" --settings "$settings" \
      --db "$work/default.db" --json
    tail -3 "$out/tune-default.log"
    timed tune-rerun "$tool" tune --shapes "$public" --space "$space" --settings "$settings" \
      --db "$work/default.db" --json
    printf 'm,n,k\n4096,4096,4096\n' > "$work/one.csv"
    timed tune-retune-one "$tool" tune --shapes "$work/one.csv" --space "$space" --settings "$settings" \
      --db "$work/default.db" --retune --json
    rm -f "$work/two.db"*
    timed tune-two-workers timeout 100 "$tool" tune --shapes "$quick" --space "$space" --settings "$settings" \
      --db "$work/two.db" --devices 0,0 --max-candidates 16 --json
    "$tool" list --db "$work/two.db" > "$out/two-workers-list.txt" 2>&1
    cp "$work/default.db" "$out/default.db"
    ;;
  exhaustive)
    export SGEMM_CACHE_DIR=$work/cache  # warm from STEP=default where it ran on this machine
    rm -f "$work/exhaustive.db"*
    timed tune-exhaustive timeout 560 "$tool" tune --shapes "$public" --space "$space" --settings "$settings" \
      --db "$work/exhaustive.db" --strategy exhaustive --time-budget 540 --json
    tail -3 "$out/tune-exhaustive.log"
    ;;
esac
