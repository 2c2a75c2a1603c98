#!/usr/bin/env bash
# F2's persistent tiles (PERSIST > 0) on the H200, each phase one device command of at most 10
# minutes:
#   PHASE=explore: F2's GPU tests (the persistent points on a problem of several tiles per block,
#     every default configuration at a tail shape, the edge shapes), then every point of the
#     persistent space on f2_persistent/explore.csv into a fresh database (cuBLAS timed in the
#     same rounds);
#   PHASE=retune: the problems an F2 template change touches (f2_persistent/retune.csv) tuned
#     again on $BASE (an exported database; default the shipped one) with every default space
#     (--retune --lt-algos 8), the winners exported (nvidia-h200.json, shipped.db) and the public
#     suite benched on the export.
# Output: $OUT/persistent-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-persistent
phase=${PHASE:-explore}
dir=tools/device/f2_persistent

gpu_facts
case $phase in
  explore)
    gpu_tests gpu-tests-f2 'F2Tma.Persistent*:F2Tma.EveryDefault*:F2Tma.EdgeShapes*' 300
    timed explore timeout 250 sgemm-tune tune --shapes $dir/explore.csv --db "$res/explore.db" \
      --space "$space/f2_tma_persistent.yaml" --settings "$settings" --strategy exhaustive --json
    grep -E "^info: (NN|NT|TN|TT) " "$res/explore.log" | cut -c1-300
    ;;
  retune)
    db=$work/shipped.db
    sgemm-tune import "${BASE:-tuner_db/nvidia-h200.json}" --db "$db" > "$res/import.log" 2>&1
    echo "import: exit $?"
    timed retune timeout 330 sgemm-tune tune --shapes $dir/retune.csv --db "$db" \
      --space "$space" --settings "$settings" --retune --lt-algos 8 --json
    grep -E "^info: (NN|NT|TN|TT) " "$res/retune.log" | cut -c1-260
    sgemm-tune export --db "$db" --winners-only -o "$work/nvidia-h200.json" > "$res/export.log" 2>&1
    echo "export: exit $?"
    cp "$db" "$work/nvidia-h200.json" "$res/"
    bench_public "$work/nvidia-h200.json"
    ;;
esac
tar -C "$res" -czf "$out/persistent-$phase.tar.gz" .
ls -la "$out"
