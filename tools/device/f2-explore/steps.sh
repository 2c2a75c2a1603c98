# F2 points outside its default spaces (deeper stream-K grids, wider K splits, tiles 32 wide:
# the *.yaml here), every one of them on the public problems F2 takes in place (shapes.csv),
# into a fresh database, to compare each problem's best with the shipped winner before adding
# any point to configs/spaces. Phases: explore (default), layouts, min-blocks (below; results in
# docs/results/f2-explore/).
default_phase=explore

phase_explore() {
  tune_into explore 500 "$dir/shapes.csv" "$dir" --strategy exhaustive
}

# min-blocks: F2's 64-accumulator tiles (unsplit and split 2-4 ways) with MIN_BLOCKS 1-4, each
# cap on registers that binds and leaves the accumulators and one k step's fragments, on NN, TN
# and NT problems of 256-5120 (the linear layers of the sweep between 256 and 1024 tokens, and
# problems of its compute class; the aligned ones read in place, the others packed), exhaustive,
# then each problem's best candidates by MIN_BLOCKS. NN and TN tiles hold their K-contiguous
# fragments in 140-250 registers where NT's take 111 (one block of 256 threads per SM, not two).
phase_min-blocks() {
  local knobs="BM: [64, 128]
  BN: [64, 128]
  BK: [16, 32]
  WM: [32, 64]
  WN: [32, 64]
  TM: [8]
  TN: [8]
  STAGES: [3, 4]
  RASTER: [1]
  STREAMK: [0]
  MIN_BLOCKS: [1, 2, 3, 4]"
  mkdir -p "$res/min-blocks"
  printf 'family: f2_tma\ndescription: in place\nknobs:\n  %s\n  SPLITK: [1, 2, 3, 4]\n  PACK: [0]\n' \
    "$knobs" > "$res/min-blocks/in_place.yaml"
  printf 'family: f2_tma\ndescription: packed\nknobs:\n  %s\n  SPLITK: [1, 2, 3]\n  PACK: [1]\n' \
    "$knobs" > "$res/min-blocks/packed.yaml"
  tune_into min-blocks "${TIME_BUDGET:-540}" "$(shapes min-blocks-shapes ${PROBLEMS:-3072,256,768,T,N \
    768,256,3072,T,N 1024,1024,4096,T,N 5120,1024,5120,T,N 2048,2048,2048,N,N 2048,2048,2048,T,N \
    1024,1024,1024,N,N 2048,2048,2048,N,T 643,517,2645,T,N})" "$res/min-blocks" --strategy exhaustive \
    --time-budget $(( ${TIME_BUDGET:-540} - 40 ))
  best_by_knob "$res/min-blocks.db" MIN_BLOCKS
}

# best_by_knob DB KNOB: each problem's fastest F2 candidate (screening median) at each value of
# KNOB, cuBLAS in the same rounds.
best_by_knob() {
  python3 - "$1" "$2" <<'PY'
import re, sqlite3, sys
db, knob = sqlite3.connect(sys.argv[1]), sys.argv[2]
for pid, m, n, k, ta, tb in db.execute(
        "SELECT id, m, n, k, transa, transb FROM problems ORDER BY id").fetchall():
    # cuBLAS is timed in the screening rounds of some candidates only: the problem's median of those.
    cublas = db.execute("""SELECT cublas_us FROM candidates WHERE problem_id = ? AND cublas_us IS NOT NULL
                           ORDER BY cublas_us""", (pid,)).fetchall()
    cublas = cublas[len(cublas) // 2][0] if cublas else float("nan")
    best = {}
    for screen, regs, spill, config in db.execute(
            """SELECT screen_median_us, registers, spill_bytes, config FROM candidates
               WHERE problem_id = ? AND screen_median_us IS NOT NULL AND family = 'f2_tma'""",
            (pid,)):
        v = re.search(rf"\b{knob}=(\d+)", config)
        v = int(v.group(1)) if v else None
        if v not in best or screen < best[v][0]:
            best[v] = (screen, regs, spill, config)
    print(f"{ta}{tb} {m}x{n}x{k} (cuBLAS {cublas:.2f} us)")
    for v, (screen, regs, spill, config) in sorted(best.items(), key=lambda x: str(x[0])):
        print(f"  {knob}={v}: {screen:9.2f} us, {regs} registers, {spill} spilled: {config}")
PY
}

# layouts: one F2 configuration ($CONFIG; default 128x128x16 in 8 warps of 32x64, 4 stages) on
# 2048^3 in NT, NN, TN and TT: registers, the opcodes of sgemm_main's main loop (the span of
# its unrolled stage, cuobjdump -sass), and Nsight Compute's occupancy and warp states (with the
# stall reasons: --print-details all).
phase_layouts() {
  local cfg=${CONFIG:-BM=128,BN=128,BK=16,WM=32,WN=64,TM=8,TN=8,STAGES=4} layout
  for layout in NT NN TN TT; do
    local d=$work/layouts/$layout log=$res/layouts-$layout.txt
    rm -rf "$d"; mkdir -p "$d"
    printf 'family: f2_tma\ndescription: one point\nknobs:\n' > "$d/space.yaml"
    for kv in ${cfg//,/ } RASTER=1 STREAMK=0 SPLITK=1 PACK=0; do
      echo "  ${kv%%=*}: [${kv#*=}]" >> "$d/space.yaml"
    done
    echo "$layout $cfg" > "$log"
    SGEMM_CACHE_DIR=$d/cache timeout 150 ncu --clock-control none --kernel-name regex:'^sgemm_main' \
      --launch-skip 4 --launch-count 1 --section SpeedOfLight --section LaunchStats \
      --section Occupancy --section WarpStateStats --section SchedulerStats --print-details all \
      sgemm-tune tune --shapes "$(shapes "layout-$layout" "2048,2048,2048,${layout:0:1},${layout:1:1}")" \
      --space "$d/space.yaml" --db "$d/tune.db" --lt-algos 0 --no-isolation >> "$log" 2>&1
    cuobjdump -sass "$d"/cache/*.cubin > "$d/sass.txt" 2>&1
    main_loop_opcodes "$d/sass.txt" >> "$log"
    grep -E "^$layout|main loop|info: (NN|NT|TN|TT) |Duration|Registers Per|Achieved Occupancy|Block Limit Reg|Warp Cycles Per Issued|No Eligible|Issued Warp" \
      "$log" | cut -c1-200
  done
}

# main_loop_opcodes SASS: opcode counts of sgemm_main's main loop: the longest run of its
# instructions with no more than 40 between two FFMAs (the unrolled stage).
main_loop_opcodes() {
  python3 - "$1" <<'PY'
import collections, re, sys
ops, inside = [], False
for line in open(sys.argv[1]):
    if "Function :" in line:
        inside = "sgemm_main" in line
        continue
    m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", line)
    if inside and m:
        ops.append(m.group(2))
ffma = [i for i, o in enumerate(ops) if o == "FFMA"]
runs, start = [], 0
for a, b in zip(range(len(ffma)), range(1, len(ffma) + 1)):
    if b == len(ffma) or ffma[b] - ffma[a] > 40:
        runs.append((ffma[start], ffma[a])); start = b
lo, hi = max(runs, key=lambda r: r[1] - r[0]) if runs else (0, -1)
c = collections.Counter(ops[lo:hi + 1])
print(f"main loop: {hi - lo + 1} instructions: " + " ".join(f"{k} {v}" for k, v in c.most_common()))
PY
}
