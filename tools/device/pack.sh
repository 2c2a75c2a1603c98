#!/usr/bin/env bash
# Builds here and gathers what a GPU machine needs into .device-dist (binaries, libraries and test
# executables; the source tree travels with the working copy). Keep it under the device tool's
# 64 MiB limit: no object files.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
source_tree=${2:-.}  # the checkout the build was made from: its configs travel with the binaries
[[ ${NO_BUILD:-0} == 1 ]] || cmake --build "$build"
rm -rf .device-dist
mkdir -p .device-dist/bin .device-dist/lib .device-dist/tests
cp "$build/src/sgemm-tune" .device-dist/bin/
cp -P "$build"/src/libsgemm_dispatch.so* "$build"/src/libsgemm_cublas.so .device-dist/lib/
for t in unit_tests nvrtc_tests gpu_tests cublas_app sgemm-tune-test-families; do
  [[ -x "$build/tests/$t" ]] && cp "$build/tests/$t" .device-dist/tests/
done
cp "$build"/tests/*.so .device-dist/tests/ 2>/dev/null || true
for b in dispatch_overhead sustained_load concurrency_table tune_on_use; do
  [[ -x "$build/tools/bench/$b" ]] && cp "$build/tools/bench/$b" .device-dist/bin/
done
# A build with MPI needs Open MPI's libraries to load (MPI itself starts only under mpirun).
ldd "$build/src/sgemm-tune" | awk '/libmpi|libopen-rte|libopen-pal|libhwloc|libevent/ {print $3}' |
  xargs -r cp -L -t .device-dist/lib/
cp -r "$source_tree/configs" .device-dist/configs
strip --strip-debug .device-dist/bin/* .device-dist/tests/* .device-dist/lib/*.so.* 2>/dev/null || true
grep -qx '/.device-dist/' .git/info/exclude 2>/dev/null || echo '/.device-dist/' >> .git/info/exclude
du -sh .device-dist
