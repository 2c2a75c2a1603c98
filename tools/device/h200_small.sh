#!/usr/bin/env bash
# F1 with small tiles (tools/device/f1_small/) on the H200, each phase one device command of at
# most 10 minutes:
#   PHASE=explore: every point of small_tiles.yaml on f1_small/small.csv into a fresh database
#     (cuBLAS timed in the same rounds);
#   PHASE=retune: f1_small/small.csv tuned again on $BASE (an exported database; default the
#     shipped one) with every default space plus small_tiles_trimmed.yaml (--retune --lt-algos
#     8), the winners exported (nvidia-h200.json, shipped.db) and, unless BENCH=0, the public
#     suite benched on the export;
#   PHASE=bench: the public suite benched on $BASE (default the shipped database);
#   PHASE=profile: Nsight Compute (--clock-control none, caches flushed before each kernel) on the
#     first launches of bench over f1_small/small.csv with $BASE's winners: each kernel's own
#     duration, against the event-timed sample that includes launch and the cold-flush's effects.
# Output: $OUT/small-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-small
phase=${PHASE:-explore}
dir=tools/device/f1_small

gpu_facts
case $phase in
  explore)
    tune_into small 240 $dir/small.csv $dir/small_tiles.yaml --strategy exhaustive
    ;;
  retune)
    cp $dir/small_tiles_trimmed.yaml "$space/f1_simt_small.yaml"
    retune_shipped $dir/small.csv 300
    [[ ${BENCH:-1} == 1 ]] && bench_public "$work/nvidia-h200.json"
    ;;
  profile)
    sgemm-tune import "${BASE:-tuner_db/nvidia-h200.json}" --db "$work/base.db" > "$res/import.log" 2>&1
    timeout 300 ncu --clock-control none --cache-control all --launch-count 16 -k regex:"gemm|gemv|xmma" \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      sgemm-tune bench --shapes $dir/small.csv --db "$work/base.db" > "$res/ncu.txt" 2>&1
    echo "ncu: exit $?"
    grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|Duration|dram__bytes|Registers Per|Block Size|Grid Size|Achieved Occ" "$res/ncu.txt" | head -150
    ;;
  bench)
    bench_public "${BASE:-tuner_db/nvidia-h200.json}"
    ;;
esac
tar -C "$res" -czf "$out/small-$phase.tar.gz" .
ls -la "$out"
