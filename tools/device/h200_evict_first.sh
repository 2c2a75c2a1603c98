#!/usr/bin/env bash
# Family F4 with the streamed operand under an L2 evict-first policy (EVICT = 1), on the H200 in
# one device command:
# 1. the GPU correctness tests of F4 (both policies, DIRECT and ring, edge shapes, transposes,
#    padded and misaligned operands) and compute-sanitizer memcheck over the EVICT = 1 cases;
# 2. each skinny problem's winner neighbourhood with EVICT 0 and 1 (tools/device/evict_first/spaces/),
#    exhaustive, the best 8 confirmed against cuBLAS, under both cache modes (cold-flush: a 2 x L2
#    memset before every sample, so L2 starts full of dirty lines; rotate: back-to-back launches);
# 3. Nsight Compute on 4096x16x4096's winner with each policy: duration and DRAM traffic.
# Everything goes into $OUT/evict.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-evict
settings_dir=tools/device/evict_first
spaces=$settings_dir/spaces
export SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune

gpu_facts

# 1. Correctness.
gpu_tests gpu-tests-f4 'F4L2Policy.*:F4Direct.*:Families/FamilyCorrectness.*/f4_skinny:InKernelReduce/*' 200
sanitize memcheck 'F4L2Policy.*' 150 memcheck-evict
mv "$out/memcheck-evict.log" "$res/"

# 2. Both policies per problem, both cache modes.
for mode in cold-flush rotate; do
  for problem in 4096x16x4096 4096x1x4096 32000x16x4096 64x64x65536 2000x32x6000 65536x64x64; do
    IFS=x read -r m n k <<< "$problem"
    printf 'm,n,k\n%s,%s,%s\n' "$m" "$n" "$k" > "$res/$problem.csv"
    timed "tune-$mode-$problem" timeout 120 sgemm-tune tune --shapes "$res/$problem.csv" \
      --db "$res/$mode.db" --space "$spaces/$problem.yaml" --settings "$settings_dir/$mode.yaml" \
      --strategy exhaustive --lt-algos 0 --json
  done
  python3 tools/device/skinny_direct/top.py "$res/$mode.db" 16 | tee "$res/summary-$mode.txt"
done

# 3. Where the time goes with each policy: one-configuration databases, bench under ncu.
printf 'm,n,k\n4096,16,4096\n' > "$res/ncu.csv"
for evict in 0 1; do
  sed -e "s/^  EVICT: .*/  EVICT: [$evict]/" -e 's/^  KSL: .*/  KSL: [4]/' -e 's/^  STAGES: .*/  STAGES: [3]/' \
    -e 's/^  REDUCE: .*/  REDUCE: [0]/' "$spaces/4096x16x4096.yaml" > "$res/ncu-evict$evict.yaml"
  sgemm-tune tune --shapes "$res/ncu.csv" --db "$res/ncu-evict$evict.db" --space "$res/ncu-evict$evict.yaml" \
    --settings "$settings_dir/cold-flush.yaml" --strategy exhaustive --lt-algos 0 > "$res/ncu-tune-evict$evict.log" 2>&1
  timeout 120 ncu --clock-control none --cache-control none --kernel-name regex:"^sgemm_(main|reduce)$" \
    --launch-skip 4 --launch-count 12 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    --csv sgemm-tune bench --shapes "$res/ncu.csv" --db "$res/ncu-evict$evict.db" --lt-algos 0 \
    > "$res/ncu-evict$evict.csv" 2> "$res/ncu-evict$evict.log"
  echo "ncu EVICT=$evict: exit $?"
  python3 - "$res/ncu-evict$evict.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
head = rows[0] if rows else []
for r in rows[1:]:
    d = dict(zip(head, r))
    print(d["ID"], d["Kernel Name"], d["Metric Name"], d["Metric Value"])
PY
done

tar -C "$res" -czf "$out/evict.tar.gz" .
ls -la "$out"
