#!/usr/bin/env bash
# F2 on packed operands (PACK = 1) on the H200: every F2 GPU test (every default configuration at
# a tail shape, the edge shapes, every packing point on odd leading dimensions and a sample of them
# at the edge shapes, padded and misaligned, in all four transposes), F2's family-wide checks, and
# compute-sanitizer memcheck over the packing sample. The public suite's retune and bench that
# follow a template change are tools/device/h200_f1_reduce.sh's refresh and bench phases.
# Output: $OUT/pack-tests.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-pack

gpu_facts
gpu_tests gpu-tests-f2 'F2Tma.*:Families/FamilyCorrectness.*/f2_tma' 480
sanitize memcheck 'F2Tma.PackedSanitizerSample' 100 memcheck-pack
mv "$out/memcheck-pack.log" "$res/"
tar -C "$res" -czf "$out/pack-tests.tar.gz" .
ls -la "$out"
