#!/usr/bin/env bash
# Family F2 (TMA-fed SIMT) on the H200, in device commands of at most 10 minutes:
#   PHASE=tests: its GPU correctness tests (every default configuration at a tail shape, a sample
#     at the edge shapes, all transposes, padded leading dimensions; the family-wide checks) and
#     compute-sanitizer memcheck over the family's sanitizer sample;
#   PHASE=tune: its default space tuned over the large problems of tools/device/f2_tma/large.csv
#     (SPACE: another space), the best 8 confirmed in interleaved rounds with cuBLAS.
# Output: $OUT/f2-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-f2
phase=${PHASE:-tests}

gpu_facts
case $phase in
  tests)
    gpu_tests gpu-tests-f2 'F2Tma.*:Families/FamilyCorrectness.*/f2_tma' 300
    sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/f2_tma' 200 memcheck-f2
    mv "$out/memcheck-f2.log" "$res/"
    ;;
  tune)
    timed tune-f2 timeout 520 sgemm-tune tune --shapes tools/device/f2_tma/large.csv \
      --db "$res/f2.db" --space "${SPACE:-$space/f2_tma.yaml}" --settings "$settings" \
      --lt-algos 0 --json
    sgemm-tune report --db "$res/f2.db" > "$res/report.txt" 2>&1
    head -60 "$res/report.txt"
    ;;
esac
tar -C "$res" -czf "$out/f2-$phase.tar.gz" .
ls -la "$out"
