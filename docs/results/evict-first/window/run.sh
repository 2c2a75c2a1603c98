# The ring's window under rotate timing (no dirty lines in L2): six problems where it won, benched
# on the database with the window winners and on the one before it, in one process each.
set -u
export PATH=$PWD/.device-dist/bin:$PATH LD_LIBRARY_PATH=$PWD/.device-dist/lib SGEMM_SOURCE_DIR=$PWD/.device-dist
export SGEMM_CACHE_DIR=/tmp/cache
nvidia-smi --query-gpu=name,uuid,clocks.sm --format=csv | tee $OUT/gpu.txt
for db in window:tuner_db/nvidia-h100.json before:.device-state/h100-before-window.json; do
  sgemm-tune import ${db#*:} --db /tmp/${db%%:*}.db > /dev/null 2>&1
  for mode in rotate cold; do
    s=configs/measure.yaml; [[ $mode == rotate ]] && s=.device-state/rotate.yaml
    timeout 60 sgemm-tune bench --shapes .device-state/window-six.csv --db /tmp/${db%%:*}.db --settings $s --lt-algos 0 --json $OUT/${db%%:*}-$mode.data.json > $OUT/${db%%:*}-$mode.txt 2> $OUT/${db%%:*}-$mode.log
    echo "${db%%:*} $mode: exit $?"; grep -E "^(NN|TN)" $OUT/${db%%:*}-$mode.txt | cut -c1-75
  done
done
