#!/usr/bin/env bash
# F2 on packed operands (PACK = 1) on the H200, each phase one device command of at most 10 minutes:
#   PHASE=tests: every F2 GPU test (every default configuration at a tail shape, the edge shapes,
#     every packing point on odd leading dimensions and a sample of them at the edge shapes,
#     padded and misaligned, in all four transposes), F2's family-wide checks, and
#     compute-sanitizer memcheck over the packing sample;
#   PHASE=visit: the packing tests and memcheck alone, then the problems an F2 template change
#     touches (f2_pack/retune.csv) tuned again on $BASE (an exported database; default the shipped
#     one) with every default space (--retune --lt-algos 8), the winners exported
#     (nvidia-h200.json, shipped.db), and the public suite benched on them.
# Output: $OUT/pack-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-pack
phase=${PHASE:-tests}

gpu_facts
case $phase in
  tests)
    gpu_tests gpu-tests-f2 'F2Tma.*:Families/FamilyCorrectness.*/f2_tma' 480
    ;;
  visit)
    gpu_tests gpu-tests-pack 'F2Tma.Packed*' 150
    ;;
esac
sanitize memcheck 'F2Tma.PackedSanitizerSample' 60 memcheck-pack
mv "$out/memcheck-pack.log" "$res/"
if [[ $phase == visit ]]; then
  db=$work/shipped.db
  sgemm-tune import "${BASE:-tuner_db/nvidia-h200.json}" --db "$db" > "$res/import.log" 2>&1
  echo "import: exit $?"
  timed retune timeout 240 sgemm-tune tune --shapes tools/device/f2_pack/retune.csv --db "$db" \
    --space "$space" --settings "$settings" --retune --lt-algos 8 --json
  grep -E "^info: (NN|NT|TN|TT) " "$res/retune.log" | cut -c1-260
  sgemm-tune export --db "$db" --winners-only -o "$work/nvidia-h200.json" > "$res/export.log" 2>&1
  echo "export: exit $?"
  cp "$db" "$work/nvidia-h200.json" "$res/"
  bench_public "$work/nvidia-h200.json"
fi
tar -C "$res" -czf "$out/pack-$phase.tar.gz" .
ls -la "$out"
