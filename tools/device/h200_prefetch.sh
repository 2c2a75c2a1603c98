#!/usr/bin/env bash
# F4 with each L2 prefetch size named on its 16-byte global reads (L2PF 0, 128, 256;
# tools/device/f4_prefetch/), exhaustive around the winners of the skinny public problems, cuBLAS
# in the same interleaved rounds, into fresh databases. One device command.
# Output: $OUT/prefetch.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-prefetch
dir=tools/device/f4_prefetch

gpu_facts
tune_into ring-n16 200 $dir/n16.csv $dir/ring_n16.yaml --strategy exhaustive
tune_into ring-64 150 $dir/s64.csv $dir/ring_64.yaml --strategy exhaustive
tune_into direct 100 $dir/gemv.csv $dir/direct.yaml --strategy exhaustive
tar -C "$res" -czf "$out/prefetch.tar.gz" .
ls -la "$out"
