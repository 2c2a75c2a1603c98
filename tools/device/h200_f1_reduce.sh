#!/usr/bin/env bash
# F1's in-kernel split-K sum (REDUCE = 1) on the H200, in device commands of at most 10 minutes:
#   PHASE=tests: the GPU tests of every in-kernel reduction (F1, F2 split-K and stream-K, F4),
#     F1's family-wide checks, F2's edge shapes, and compute-sanitizer memcheck over F1's
#     sanitizer sample and F1's in-kernel reduction on padded and misaligned operands;
#   PHASE=refresh: the shipped database imported and the public suite (SHAPES: another shape file)
#     tuned again with every default space against cuBLAS and cuBLASLt's best of 8 (--retune),
#     the winners exported (nvidia-h200.json, shipped.db);
#   PHASE=bench: the public suite benched on $REFRESHED (a database from the refresh phase)
#     against cuBLAS and cuBLASLt.
# Output: $OUT/f1-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-f1
phase=${PHASE:-tests}

gpu_facts
case $phase in
  tests)
    gpu_tests gpu-tests-reduce 'InKernelReduce/FusedReduce.*:Families/FamilyCorrectness.*/f1_simt:F2Tma.EdgeShapes*' 420
    sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/f1_simt:InKernelReduce/FusedReduce.PaddedLeadingDimensionsAndMisalignedPointers/f1_simt' 170 memcheck-f1
    mv "$out/memcheck-f1.log" "$res/"
    ;;
  refresh)
    # The database stays in $work between commands, so a shape list can be done in parts.
    db=$work/shipped.db
    if [[ ! -f $db ]]; then
      sgemm-tune import tuner_db/nvidia-h200.json --db "$db" > "$res/import.log" 2>&1
      echo "import: exit $?"
    fi
    timed retune timeout 500 sgemm-tune tune --shapes "${SHAPES:-configs/shapes/public.csv}" \
      --db "$db" --space "$space" --settings "$settings" --retune --lt-algos 8 --json
    grep -E "^info: (NN|NT|TN|TT) " "$res/retune.log" | cut -c1-260
    sgemm-tune export --db "$db" --winners-only -o "$res/nvidia-h200.json" > "$res/export.log" 2>&1
    echo "export: exit $?"
    cp "$db" "$res/shipped.db"
    ;;
  bench)
    bench_public "$REFRESHED"
    ;;
esac
tar -C "$res" -czf "$out/f1-$phase.tar.gz" .
ls -la "$out"
