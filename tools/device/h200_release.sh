#!/usr/bin/env bash
# F2 with the block barrier after each stage (RELEASE 0) and with each warp handing the stage back
# on an empty mbarrier (RELEASE 1; tools/device/f2_release/), exhaustive around the winners of the
# large and the medium public problems, cuBLAS in the same interleaved rounds, into fresh
# databases. One device command. Output: $OUT/release.tar.gz. Never touches clocks or GPU
# settings. Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-release
dir=tools/device/f2_release

gpu_facts
tune_into large 300 $dir/large.csv $dir/large.yaml --strategy exhaustive
tune_into medium 200 $dir/medium.csv $dir/medium.yaml --strategy exhaustive
tar -C "$res" -czf "$out/release.tar.gz" .
ls -la "$out"
