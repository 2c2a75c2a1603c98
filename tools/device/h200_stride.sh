#!/usr/bin/env bash
# Does a power-of-two leading dimension slow the skinny streams? The skinny public problems
# tuned with F4's default space at their own lda and at a padded or power-of-two one
# (tools/device/f4_stride/shapes.csv), cuBLAS in the same interleaved rounds, into a fresh
# database. One device command. Output: $OUT/stride.tar.gz. Never touches clocks or settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-stride
dir=tools/device/f4_stride

gpu_facts
tune_into stride 400 $dir/shapes.csv $space/f4_skinny.yaml --max-candidates 64
tar -C "$res" -czf "$out/stride.tar.gz" .
ls -la "$out"
