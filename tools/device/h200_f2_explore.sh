#!/usr/bin/env bash
# F2 points outside its default spaces (tools/device/f2_explore/*.yaml: deeper stream-K grids,
# wider K splits, tiles 32 wide), every one of them on the public problems F2 takes in place
# (f2_explore/shapes.csv), into a fresh database: compare each problem's best with the shipped
# winner before adding any point to configs/spaces.
# Output: $OUT/f2-explore.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-f2-explore

gpu_facts
timed explore timeout 500 sgemm-tune tune --shapes tools/device/f2_explore/shapes.csv \
  --db "$res/explore.db" --space tools/device/f2_explore --settings "$settings" \
  --strategy exhaustive --json
grep -E "^info: (NN|NT|TN|TT) " "$res/explore.log" | cut -c1-300
tar -C "$res" -czf "$out/f2-explore.tar.gz" .
ls -la "$out"
