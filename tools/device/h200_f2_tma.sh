#!/usr/bin/env bash
# Family F2 (TMA-fed SIMT) on the H200, in device commands of at most 10 minutes:
#   PHASE=tests: its GPU correctness tests (every default configuration at a tail shape, a sample
#     at the edge shapes, all transposes, padded leading dimensions; the family-wide checks) and
#     compute-sanitizer memcheck over the family's sanitizer sample;
#   PHASE=tune: its default space tuned over the large problems of tools/device/f2_tma/large.csv
#     (SPACE: another space), the best 8 confirmed in interleaved rounds with cuBLAS;
#   PHASE=refresh: the shipped database imported, the problems of tools/device/f2_tma/retune.csv
#     (RETUNE: another shape file) tuned again with F2's whole default space (f2_tma.yaml and
#     f2_tma_split_k.yaml) against cuBLAS and cuBLASLt's best of 8 (--retune), the winners
#     exported (nvidia-h200.json, shipped.db);
#   PHASE=bench: the public suite benched on $REFRESHED (a database from the refresh phase)
#     against cuBLAS and cuBLASLt.
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
    gpu_tests gpu-tests-f2 'F2Tma.*:Families/FamilyCorrectness.*/f2_tma:InKernelReduce/FusedReduce.*/f2_tma' 480
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
  refresh)
    sgemm-tune import tuner_db/nvidia-h200.json --db "$res/shipped.db" > "$res/import.log" 2>&1
    echo "import: exit $?"
    mkdir -p "$work/f2-space" && cp "$space"/f2_tma*.yaml "$work/f2-space/"
    timed retune timeout 500 sgemm-tune tune --shapes "${RETUNE:-tools/device/f2_tma/retune.csv}" \
      --db "$res/shipped.db" --space "$work/f2-space" --settings "$settings" --retune \
      --lt-algos 8 --json
    grep -E "^info: (NN|NT|TN|TT) " "$res/retune.log" | cut -c1-260
    sgemm-tune export --db "$res/shipped.db" --winners-only -o "$res/nvidia-h200.json" \
      > "$res/export.log" 2>&1
    echo "export: exit $?"
    ;;
  bench)
    bench_public "$REFRESHED"
    ;;
esac
tar -C "$res" -czf "$out/f2-$phase.tar.gz" .
ls -la "$out"
