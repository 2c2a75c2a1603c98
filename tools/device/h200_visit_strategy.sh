#!/usr/bin/env bash
# Device commands for the default (model) strategy against the exhaustive search, each at most
# 10 minutes; results land in $OUT/strategy.tar.gz:
#   STEP=public  : the default tuning of the public suite, cold (fresh database and compile
#                  cache), then the same command again (already tuned), then explain --ncu on the
#                  f4_skinny winner of 4096x16x4096.
#   STEP=heldout : six shapes outside the public suite (heldout.csv, written below),
#                  tuned by the exhaustive search and by the default, to compare on problems the
#                  cost model's constants were not fitted to.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-strategy

if [[ ${STEP:-public} == public ]]; then
  timed tune-default timeout 420 sgemm-tune tune --shapes "$dist/configs/shapes/public.csv" --space "$space" \
    --settings "$settings" --db "$work/default.db" --json
  timed tune-default-again timeout 60 sgemm-tune tune --shapes "$dist/configs/shapes/public.csv" \
    --space "$space" --settings "$settings" --db "$work/default.db" --json
  export TMPDIR=$work/ncu; mkdir -p "$TMPDIR"
  timed explain-ncu timeout 60 sgemm-tune explain 4096 16 4096 --db "$work/default.db" --ncu
  unset TMPDIR
  cp "$work/default.db" "$res/default.db"
else
  printf '%s\n' 'm,n,k,transa,transb' 1536,1536,1536,N,N 768,3072,1024,N,N 6144,6144,2048,N,N \
    2000,32,6000,N,N 128,128,32768,N,N 333,777,555,N,N > "$res/heldout.csv"
  timed tune-heldout-exhaustive timeout 300 sgemm-tune tune --shapes "$res/heldout.csv" --space "$space" \
    --settings "$settings" --db "$work/heldout-exhaustive.db" --strategy exhaustive --json
  timed tune-heldout-default timeout 150 sgemm-tune tune --shapes "$res/heldout.csv" --space "$space" \
    --settings "$settings" --db "$work/heldout-default.db" --json
  cp "$work"/heldout-*.db "$res/"
fi

tar -C "$res" -czf "$out/strategy.tar.gz" .
cat "$res"/*.time
