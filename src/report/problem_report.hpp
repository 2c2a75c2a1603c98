// What the database says about each tuned problem: the winner against cuBLAS and the hardware
// (roofline), the project's best kernel with its resources, occupancy and waves, how it was
// measured (clock policy, clocks, power, temperature, reasons, samples discarded), and how many
// candidates were tried. Built from store records; no GPU.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/records.hpp"
#include "db/tuning_store.hpp"
#include "report/metrics.hpp"

namespace sgt::report {

// One of the project's kernels on one problem, with its launch and resources.
struct KernelFacts {
  std::string family, config;
  double time_us = 0;
  std::string stage;     // where time_us comes from: "winner", "final" or "screen"
  double cublas_us = 0;  // cuBLAS measured in the same rounds (0: not measured)
  int registers = 0;     // per thread; 0: not recorded (a compile-cache hit)
  int spill_bytes = 0;
  int smem_bytes = 0;            // per block, static + dynamic
  bool geometry_known = false;   // false: unknown family or knobs (from another build)
  std::string geometry_note;     // set when knobs missing from an older record were taken as 0
  int threads = 0;               // per block
  std::int64_t grid_blocks = 0;  // of sgemm_main, all split-K slices included
  int k_splits = 1;
  Occupancy occupancy;
  double waves = 0;
  // How time_us was measured (the final stage when there is one, else the screening).
  std::int64_t run_id = 0;   // 0: not known
  std::string clock_policy;  // of that run: "observe" or "lock:<MHz>"; "" not known
  int samples = 0, discarded = 0;
  MeasureConditions conditions;
  std::optional<MeasureConditions> cublas_conditions;  // cuBLAS in the same rounds
  double ratio() const { return time_us > 0 && cublas_us > 0 ? cublas_us / time_us : 0.0; }
};

struct ProblemReport {
  ProblemKey problem;
  GpuRecord gpu;
  std::string label;          // "NN 4096x16x4096" (+ leading dimensions / align when unusual)
  std::string winner_family;  // "cublas" when nothing beat cuBLAS, "cublaslt" for its algorithms
  std::string winner_config;
  double tuned_us = 0;  // the winner's time (cuBLAS's when cuBLAS won)
  double cublas_us = 0;
  double tie_band = 0;
  double peak_tflops = 0;  // FP32, from the GPU's SM count and default clock
  double bandwidth_tbps = 0;
  double floor_us = 0;   // roofline_floor_us
  double intensity = 0;  // FLOP per byte of minimal traffic
  Bound bound = Bound::compute;
  int tried = 0, ok = 0, failed = 0, skipped = 0;  // candidates on this GPU and software
  std::map<std::string, int> failures;             // outcome name -> count (not ok, not skipped)
  std::optional<KernelFacts> own;  // the winner when it is ours, else the best own candidate

  bool cublas_won() const { return winner_family == kCublasFamily; }
  // A kernel of ours won (neither cublasSgemm nor one of cuBLASLt's algorithms).
  bool own_won() const {
    return winner_family != kCublasFamily && winner_family != kCublasLtFamily;
  }
  double ratio() const { return tuned_us > 0 ? cublas_us / tuned_us : 0.0; }  // > 1: faster
  double tuned_tflops() const { return tflops(problem, tuned_us); }
  double cublas_tflops() const { return tflops(problem, cublas_us); }
  double pct_peak() const { return peak_tflops > 0 ? 100.0 * tuned_tflops() / peak_tflops : 0.0; }
  // How close to the roofline floor (100: at the floor).
  double pct_floor() const { return tuned_us > 0 ? 100.0 * floor_us / tuned_us : 0.0; }
};

// "NN 4096x16x4096", with " lda=.. ldb=.. ldc=.." when not minimal and " align=N" when not 4.
std::string problem_label(const ProblemKey& p);

// Facts of one candidate: time by stage, resources, geometry from its family, occupancy, waves.
// nullopt when it has no timing or is not ok.
std::optional<KernelFacts> kernel_facts(const CandidateRecord& c, const GpuRecord& gpu);

// The problem's ok candidates, fastest first: finalists by final median, then the others by
// screen median (screen estimates are noisier, so they never outrank a finalist).
std::vector<KernelFacts> ranked_kernels(const std::vector<CandidateRecord>& candidates,
                                        const GpuRecord& gpu);

// Everything about one winner, from it and the candidates tried for it.
ProblemReport make_problem_report(const WinnerRecord& winner,
                                  const std::vector<CandidateRecord>& candidates,
                                  double bandwidth_tbps);

struct ReportOptions {
  std::string arch;  // "" : every architecture
  double bandwidth_tbps = kDefaultBandwidthTbps;
};
// One report per winner, in the store's winner order (arch, GPU, problem).
std::vector<ProblemReport> build_report(TuningStore& store, const ReportOptions& options);

// Reports grouped by GPU model (arch, name, SM count), the input order kept inside a group.
std::vector<std::vector<const ProblemReport*>> group_by_gpu(
    const std::vector<ProblemReport>& reports);

// Geometric mean of ratio() over problems (0 when empty); own: of the own kernels' ratios.
double geomean_ratio(const std::vector<ProblemReport>& reports, bool own = false);

}  // namespace sgt::report
