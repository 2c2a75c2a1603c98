# F1's split-K summed in the kernel by the last split of each tile (REDUCE = 1), its deep splits,
# and register caps.
#   tests (default): the GPU tests of every in-kernel reduction (F1, F2 split-K and stream-K, F4),
#     F1's family-wide checks, deep splits and aligned C, and F2's edge shapes, then
#     memcheck over F1's sanitizer sample and F1's in-kernel sum on padded and misaligned operands.
#   profile: F1's deep splits on long_k problems ($PROBLEMS: rows "M,N,K", NN with ldb = K as in
#     the sweep; default 356x72 over K 32827 (alignment 1) and 32828 (alignment 4), and 384x128,
#     where every tile is whole), each
#     configuration of $CONFIGS tuned alone (a one-point space, cuBLAS in the same rounds) under
#     Nsight Compute (--clock-control none): speed of light, occupancy, memory workload and warp
#     states and instruction counts of sgemm_main and sgemm_reduce, then cuBLAS's kernels on the
#     same problem; the machine code of every kernel compiled (cuobjdump -sass) to sass-*.txt.
#   occupancy: F1 at MIN_BLOCKS = 4 against 1 (a 128-register cap: 4 blocks, 16 warps, per SM for
#     128-thread tiles; the profile found 3 warps per scheduler and a quarter of the cycles with
#     none eligible): an exhaustive search of F1 alone over 64-128 tiles of 8x8 per thread, split
#     1-64 ways, on a long_k, a tall, an irregular and a small problem of the sweep ($PROBLEMS,
#     rows "M,N,K"), then each problem's best candidates of either MIN_BLOCKS.
#   variants: F1 configurations ($CASES: "M,N,K:KNOB=V,..." entries, NN) each tuned alone (a
#     one-point space, cuBLAS in the same rounds) by every build of $VARIANTS (directories holding
#     sgemm-tune and lib/; "dist" is .device-dist), two rounds, the builds interleaved: a template
#     change against the templates before it, on one unit.
#   exchange: the GPU test of XCHG = 1 (C narrower than float4 stored after an exchange among the
#     lanes along M), then an exhaustive search of F1 alone, unsplit, over 64-128 x 32-128 tiles
#     with XCHG 0 and 1, on small_k, tall, irregular and small problems of the sweep whose ldc is
#     not a multiple of 4 ($PROBLEMS, rows "M,N,K[,TA,TB]"), then each problem's best of either.
#   deep: an exhaustive search of F1 alone over small tiles (32-64 x 32-64, 4x4 and 8x4 per thread)
#     split 32-256 ways, on the sweep's long_k problems ($PROBLEMS, rows "M,N,K"): outputs of one
#     to a few dozen tiles over K 11k-125k, where 64 splits leave a block or two per SM; then each
#     problem's best candidates with more than 64 splits and without.
# The public suite is tuned again with tools/device/run.sh shipped-db retune bench.
default_phase=tests

phase_tests() {
  gpu_tests gpu-tests-reduce 'InKernelReduce/FusedReduce.*:Families/FamilyCorrectness.*/f1_simt:F1DeepSplit.*:F1AlignedC.*:F2Tma.EdgeShapes*' 420
  sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/f1_simt:InKernelReduce/FusedReduce.PaddedLeadingDimensionsAndMisalignedPointers/f1_simt' 170 memcheck-f1
}

# The long_k class's best F1 points on the H100 (64x128 and 128x32 tiles, 64 splits), and the
# first of them summed in the kernel.
deep_split_configs="BM=64,BN=128,BK=8,WM=32,WN=64,TM=8,TN=8,STAGES=4,SPLITK=64,REDUCE=0
BM=128,BN=32,BK=16,WM=32,WN=32,TM=8,TN=4,STAGES=3,SPLITK=64,REDUCE=0
BM=64,BN=128,BK=8,WM=32,WN=64,TM=8,TN=8,STAGES=4,SPLITK=64,REDUCE=1"

# one_point_space NAME KNOB=V,...: F1's space with every knob fixed (PAD 4, REGDB 1, MIN_BLOCKS 1
# and RASTER 1 unless given), as $res/NAME.yaml.
one_point_space() {
  local file=$res/$1.yaml kv
  declare -A knobs=([PAD]=4 [REGDB]=1 [MIN_BLOCKS]=1 [RASTER]=1)
  for kv in ${2//,/ }; do knobs[${kv%%=*}]=${kv#*=}; done
  printf 'family: f1_simt\ndescription: one point\nknobs:\n' > "$file"
  for kv in "${!knobs[@]}"; do echo "  $kv: [${knobs[$kv]}]" >> "$file"; done
  echo "$file"
}

# Executed warp instructions: all, by pipe (FMA, ALU, LSU), shared loads; FFMA thread ops; the FMA
# pipe's share of the cycles (a window of its own: a metric this ncu lacks loses only these).
instruction_mix=smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active

ncu_window() {  # ncu_window LOG KERNEL_REGEX COMMAND...: one profiled window appended to LOG
  local log=$1 kernels=$2; shift 2
  timeout 200 ncu --clock-control none --kernel-name regex:"$kernels" --launch-skip 4 \
    --launch-count 4 --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section InstructionStats "$@" \
    >> "$log" 2>&1
  echo "ncu ($kernels): exit $?"
}

phase_profile() {
  local row cfg i
  for row in ${PROBLEMS:-356,72,32827 356,72,32828 384,128,32828}; do
    local name=${row//,/x} list
    list=$(shapes "p-$name" "$row")
    i=0
    while read -r cfg; do
      i=$((i + 1))
      local log=$res/ncu-$name-$i.txt
      echo "config $cfg" > "$log"
      ncu_window "$log" "^sgemm_(main|reduce)" sgemm-tune tune --shapes "$list" \
        --db "$work/p-$name-$i.db" --space "$(one_point_space "space-$i" "$cfg")" \
        --lt-algos 0 --no-isolation
      timeout 200 ncu --clock-control none --kernel-name regex:"^sgemm_(main|reduce)" \
        --launch-skip 4 --launch-count 2 --metrics "$instruction_mix" sgemm-tune tune \
        --shapes "$list" --db "$work/p-$name-$i-mix.db" --space "$res/space-$i.yaml" \
        --lt-algos 0 --no-isolation >> "$log" 2>&1
      grep -E "^info: NN" "$log" | cut -c1-200
      grep -E "^  sgemm|Duration|smsp__|sm__pipe|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Registers Per|Grid Size|Achieved Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall" \
        "$log" | head -40
    done <<< "${CONFIGS:-$deep_split_configs}"
    ncu_window "$res/ncu-$name-cublas.txt" "xmma|cutlass|gemv|splitKreduce" \
      sgemm-tune bench --shapes "$list" --db "$work/p-$name-1.db" --lt-algos 0
    grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|DRAM Throughput|Registers Per|Grid Size|Achieved Occupancy" \
      "$res/ncu-$name-cublas.txt" | head -24
  done
  local cubin
  for cubin in "$SGEMM_CACHE_DIR"/*.cubin; do
    cuobjdump -sass "$cubin" > "$res/sass-$(basename "$cubin" .cubin).txt" 2>&1
    cp "${cubin%.cubin}.json" "$res/sass-$(basename "$cubin" .cubin).json"
  done
}

occupancy_space="BM: [64, 128]
  BN: [64, 128]
  BK: [8, 16]
  WM: [32, 64]
  WN: [32, 64]
  TM: [8]
  TN: [8]
  STAGES: [3, 4]
  PAD: [4]
  REGDB: [1]
  MIN_BLOCKS: [1, 4]
  RASTER: [1]
  SPLITK: [1, 4, 16, 64]
  REDUCE: [0]"

# best_with_and_without DB KNOB=VALUE: each problem's fastest candidate (screening median) with
# KNOB=VALUE in its configuration and without, cuBLAS in the same rounds.
best_with_and_without() {
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db, mark = sqlite3.connect(sys.argv[1]), sys.argv[2]
for pid, m, n, k in db.execute("SELECT id, m, n, k FROM problems ORDER BY id").fetchall():
    best, cublas = {}, None
    for config, us, cb, regs, spill in db.execute(
            "SELECT config, screen_median_us, cublas_us, registers, spill_bytes FROM candidates "
            "WHERE problem_id = ? AND screen_median_us IS NOT NULL", (pid,)):
        cublas = cb or cublas
        has = mark in config.split(",")
        if has not in best or us < best[has][0]:
            best[has] = (us, regs, spill, config)
    for has, (us, regs, spill, config) in sorted(best.items()):
        print(f"{m}x{n}x{k} {'with' if has else 'without'} {mark}: {us:8.2f} us (cuBLAS "
              f"{cublas or 0:8.2f}) {regs} registers, {spill} spilled  {config}")
PY
}

# search_f1_alone NAME DESCRIPTION SECONDS KNOBS ROW...: F1 alone searched exhaustively over KNOBS
# (the knobs: block of a space file) on the problems ROW... ("M,N,K[,TA,TB]"), cuBLAS in the same
# rounds, into $res/NAME.db; prints the run's time and keeps each problem's best 400 candidates.
search_f1_alone() {
  local name=$1 description=$2 seconds=$3 knobs=$4 list file=$res/$1.yaml
  shift 4
  list=$(shapes "$name" "$@")
  printf 'family: f1_simt\ndescription: %s\nknobs:\n  %s\n' "$description" "$knobs" > "$file"
  tune_into "$name" "$seconds" "$list" "$file" --strategy exhaustive --lt-algos 0 > /dev/null
  cat "$res/$name.time"
  top_candidates "$res/$name.db" 400 > "$res/$name-candidates.txt"
}

phase_occupancy() {
  search_f1_alone occupancy 'MIN_BLOCKS 1 and 4' 540 "$occupancy_space" \
    ${PROBLEMS:-356,72,32827 38861,177,180 1742,952,1747 87,185,317}
  best_with_and_without "$res/occupancy.db" MIN_BLOCKS=4
}

phase_variants() {
  local entry row cfg v round i=0 list file
  for entry in $CASES; do
    row=${entry%%:*} cfg=${entry#*:} i=$((i + 1))
    list=$(shapes "v$i" "$row")
    file=$(one_point_space "v$i" "$cfg")
    for round in 1 2; do
      for v in ${VARIANTS:-dist}; do
        local bin=sgemm-tune lib=$dist/lib name=v$i-${v#.}-$round
        [[ $v == dist ]] || bin=$PWD/$v/sgemm-tune lib=$PWD/$v/lib
        LD_LIBRARY_PATH=$lib:$LD_LIBRARY_PATH timed "$name" "$bin" tune --shapes "$list" \
          --db "$work/$name.db" --space "$file" --lt-algos 0 --json > /dev/null
        # The configuration's time and cuBLAS's, or where cuBLAS won, the candidate's time over it.
        echo "$row $cfg $v $round: $(grep -E '^info: NN .*(f1_simt|cublas) ' "$res/$name.log" |
          grep -oE '[0-9.]+ us, cuBLAS [0-9.]+ us|best candidate at [0-9.]+x cuBLAS time' | tr '\n' ' ')"
      done
    done
  done
}

phase_exchange() {
  gpu_tests gpu-tests-exchange 'F1Exchange.*' 300
  search_f1_alone exchange 'XCHG 0 and 1' 420 "$exchange_space" ${PROBLEMS:-5471,5868,22 \
    15642,12129,26 38861,177,180 18962,186,103 2734,294,440,T,N 87,185,317}
  best_with_and_without "$res/exchange.db" XCHG=1
}

exchange_space="BM: [64, 128]
  BN: [32, 64, 128]
  BK: [8, 16]
  WM: [32, 64]
  WN: [32, 64]
  TM: [8]
  TN: [4, 8]
  STAGES: [3, 4]
  PAD: [4]
  REGDB: [1]
  MIN_BLOCKS: [1]
  RASTER: [1]
  SPLITK: [1]
  REDUCE: [0]
  XCHG: [0, 1]"

deep_space="BM: [32, 64]
  BN: [32, 64]
  BK: [8, 16]
  WM: [16, 32, 64]
  WN: [16, 32]
  TM: [4, 8]
  TN: [4]
  STAGES: [3, 4]
  PAD: [4]
  REGDB: [1]
  MIN_BLOCKS: [1]
  RASTER: [1]
  SPLITK: [32, 64, 128, 256]
  REDUCE: [0]"

phase_deep() {
  search_f1_alone deep 'small tiles, deep splits' 540 "$deep_space" ${PROBLEMS:-95,72,44232 \
    356,72,32827 108,39,45097 259,148,34071 507,73,44724 280,197,82012}
  best_with_and_without "$res/deep.db" SPLITK=128
  best_with_and_without "$res/deep.db" SPLITK=256
}
