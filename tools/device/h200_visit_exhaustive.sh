#!/usr/bin/env bash
# Device command for the strategy comparison and the ncu layout, in two steps of at most
# 10 minutes each (everything lands in $OUT/exhaustive.tar.gz):
#   STEP=first  : explain --ncu on an f4_skinny winner and on a cuBLAS winner, keeping ncu's raw
#                 CSV; --compile-only of one problem with a cold, then a warm, compile cache; the
#                 exhaustive search over the public suite for as long as --time-budget allows.
#   STEP=resume : the same exhaustive command again, which continues where the first stopped
#                 (from $EXHAUSTIVE_DB when the machine was handed back in between).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-exhaustive
budget=${TIME_BUDGET:-420}

if [[ ${STEP:-first} == first ]]; then
  ncu --version > "$res/ncu-version.txt" 2>&1
  sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1
  for shape in "4096 16 4096" "1024 1024 1024"; do
    name=explain-ncu-${shape// /x}
    export TMPDIR=$work/$name; mkdir -p "$TMPDIR"
    timed "$name" timeout 90 sgemm-tune explain $shape --db "$work/shipped.db" --ncu --json
    cp -r "$TMPDIR" "$res/$name.work"   # ncu's logs, report and details CSV
    rm -f "$res/$name.work"/*/*.ncu-rep
  done
  unset TMPDIR

  printf 'm,n,k\n1024,1024,1024\n' > "$work/one.csv"
  for pass in cold warm; do
    timed "compile-only-$pass" sgemm-tune tune --shapes "$work/one.csv" --space "$space" \
      --db "$work/compile-$pass.db" --compile-only --arch sm_90 --json
  done
elif [[ -n ${EXHAUSTIVE_DB:-} && ! -f $work/exhaustive.db ]]; then
  cp "$EXHAUSTIVE_DB" "$work/exhaustive.db"
fi

step=${STEP:-first}
timed "tune-exhaustive-$step" timeout $((budget + 60)) sgemm-tune tune \
  --shapes "$dist/configs/shapes/public.csv" --space "$space" --settings "$settings" \
  --db "$work/exhaustive.db" --strategy exhaustive --time-budget "$budget" --json
sqlite3 "$work/exhaustive.db" 'PRAGMA wal_checkpoint(TRUNCATE);' > /dev/null 2>&1 || true
cp "$work/exhaustive.db" "$res/exhaustive.db"

tar -C "$res" -czf "$out/exhaustive.tar.gz" .
cp "$work/exhaustive.db" "$out/exhaustive.db"
cat "$res"/*.time
