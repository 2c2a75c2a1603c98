#!/usr/bin/env bash
# F2's large-problem point over rasterization groups of 1-16 N tiles (tools/device/f2_raster/)
# on NN and TN 4096^3 and 4096x2048x11008, cuBLAS in the same interleaved rounds, into a fresh
# database (gpu.txt names the unit: the question is how the choice depends on it).
# One device command. Output: $OUT/raster.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-raster
dir=tools/device/f2_raster

gpu_facts
tune_into raster 420 $dir/large.csv $dir/raster.yaml --strategy exhaustive
tar -C "$res" -czf "$out/raster.tar.gz" .
ls -la "$out"
