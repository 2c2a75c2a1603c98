# F2 on packed operands (PACK = 1: A and B copied by sgemm_pack with their leading dimensions
# rounded up to 4 floats, where TMA cannot take them in place), and what the copies cost.
#   tests (default): every F2 GPU test, the packing points on odd leading dimensions included,
#     the dispatcher's test of packed and split-K winners sharing a handle's workspace, and
#     memcheck over the packing sample;
#   cost: every packed point on the two odd public problems (1023x1025x1027 and 257x511x129, whose
#     odd leading dimensions F2 takes only on packed copies), and the same points
#     in place (inplace.yaml) on their aligned twins with the same grid (cost-inplace.csv), each
#     into its own database: packed less in place is what the copies cost. Then F2's default
#     spaces on the twins: the best F2 could do with copies that cost nothing;
#   large: larger problems with odd leading dimensions (not in the public suite), where F2 might
#     beat cuBLAS in place by enough to pay for the copies, tuned with every default space, and
#     with the packed space alone;
#   retune: the F2-served and odd public problems (retune.csv) tuned again on the shipped
#     database with every default space, and the public suite benched on the export.
default_phase=tests

phase_tests() {
  gpu_tests gpu-tests-f2 'F2Tma.*:Families/FamilyCorrectness.*/f2_tma:Dispatcher.PackedAndSplitKWinnersShareTheHandleWorkspace' 480
  sanitize memcheck 'F2Tma.PackedSanitizerSample' 60 memcheck-pack
}

phase_cost() {
  tune_into cost-packed 200 "$(shapes cost-packed 1023,1025,1027 257,511,129)" "$space/f2_tma_packed.yaml" --strategy exhaustive
  tune_into cost-inplace 200 "$dir/cost-inplace.csv" "$dir/inplace.yaml" --strategy exhaustive
  for file in f2_tma f2_tma_split_k f2_tma_stream_k; do
    tune_into "f2-best-$file" 100 "$dir/cost-inplace.csv" "$space/$file.yaml"
  done
  packed_minus_in_place "$res/cost-packed.db" "$res/cost-inplace.db" > "$res/packed-minus-in-place.csv"
}

# packed_minus_in_place PACKED.db IN_PLACE.db: each point's screening median packed and on the
# aligned twin (the problems in order of size; the configurations with PACK left out), as CSV.
packed_minus_in_place() {
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys
def points(path):
    db = sqlite3.connect(path)
    problems = [m for (m,) in db.execute("SELECT m FROM problems ORDER BY m * n * k DESC")]
    rows = db.execute("""SELECT p.m, c.config, c.screen_median_us FROM candidates c
                         JOIN problems p ON p.id = c.problem_id WHERE c.screen_median_us IS NOT NULL""")
    key = lambda config: ",".join(kv for kv in config.split(",") if not kv.startswith("PACK="))
    return problems, {(problems.index(m), key(config)): us for m, config, us in rows}
packed_problems, packed = points(sys.argv[1])
twin_problems, in_place = points(sys.argv[2])
print("packed_m,twin_m,config,packed_us,in_place_us,difference_us")
for (p, config), us in sorted(packed.items()):
    if (p, config) in in_place:
        twin = in_place[(p, config)]
        print(f'{packed_problems[p]},{twin_problems[p]},"{config}",{us:.2f},{twin:.2f},{us - twin:.2f}')
PY
}

phase_large() {
  local odd
  odd=$(shapes large-odd 3001,3001,3001 2047,4097,3001)
  tune_into large-default 300 "$odd" "$space"
  tune_into large-packed 200 "$odd" "$space/f2_tma_packed.yaml"
}

phase_retune() {
  retune_shipped "$dir/retune.csv" 240
  bench_public "$work/nvidia-h200.json"
}
