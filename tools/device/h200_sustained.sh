#!/usr/bin/env bash
# The shipped database's routes against cublasSgemm under sustained load (tools/bench/
# sustained_load: back to back, alternating phases, NVML read every 20 ms, clocks never touched).
# PHASE lists what to run, in order:
#   large  - tools/device/sustained/large.csv, two 3 s phases per path;
#   public - the public suite, two 1 s phases per path;
#   small  - tools/device/sustained/small.csv, three 3 s phases per path, after
#            tools/bench/dispatch_overhead (host cost per call of each path).
# Output: $OUT/sustained.tar.gz. Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . first.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-sustained
dir=tools/device/sustained
sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1

# sustained NAME SHAPES SECONDS PHASES: sustained_load on the shipped database, to $res/NAME.*.
sustained() {
  timeout 300 sustained_load --db "$work/shipped.db" --shapes "$2" --seconds "$3" --phases "$4" \
    --json "$res/$1.json" > "$res/$1.txt" 2> "$res/$1.log"
  echo "$1: exit $?"; cat "$res/$1.txt"; tail -3 "$res/$1.log"
}

gpu_facts
for phase in ${PHASE:-large}; do
  case "$phase" in
    large) sustained sustained $dir/large.csv 3 2 ;;
    public) sustained sustained-public configs/shapes/public.csv 1 2 ;;
    small)
      timeout 120 dispatch_overhead > "$res/dispatch-overhead.txt" 2>&1
      echo "dispatch_overhead: exit $?"; cat "$res/dispatch-overhead.txt"
      sustained sustained-small $dir/small.csv 3 3
      ;;
  esac
done
tar -C "$res" -czf "$out/sustained.tar.gz" .
ls -la "$out"
