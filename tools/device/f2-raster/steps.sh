# F2's large-problem point (raster.yaml) over rasterization groups of 1-16 N tiles on NN and TN
# 4096^3 and 4096x2048x11008, cuBLAS in the same interleaved rounds, into a fresh database
# (gpu.txt names the unit: the question is how the choice depends on it).
default_phase=raster

phase_raster() {
  tune_into raster 420 "$(shapes large 4096,4096,4096 4096,4096,4096,T,N 4096,2048,11008)" \
    "$dir/raster.yaml" --strategy exhaustive
}
