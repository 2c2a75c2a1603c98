// Rows of the tuning database as plain values: what the tuner writes and the dispatcher reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "space/problem.hpp"

namespace sgt {

// A candidate's outcome, stored as its text name.
enum class Outcome {
  ok,
  compile_failed,
  resources_exceeded,
  launch_failed,
  incorrect,
  timed_out,
  skipped,   // pruned before compiling (constraint or cannot_implement); kept for the record
  compiled,  // built and cached by a compile-only run; never measured
};
std::string outcome_name(Outcome o);
Outcome parse_outcome(const std::string& name);  // throws sgt::Error(invalid_value)

struct GpuRecord {
  std::string name;  // "NVIDIA H200"
  std::string uuid;
  std::string arch;  // "sm_90"
  int sm_count = 0;
  long long l2_bytes = 0;
  int default_clock_mhz = 0;
};

struct SoftwareRecord {
  std::string driver, runtime, nvrtc, cublas;
};

// What was observed while a kernel was measured. Empty: not observed (no NVML, no clock probe,
// or a row written before these were recorded).
struct MeasureConditions {
  std::optional<double> sm_clock_min_mhz, sm_clock_max_mhz;  // clock probe, accepted samples
  std::optional<double> nvml_sm_clock_mhz;                   // mean NVML SM clock
  std::optional<double> power_mw;                            // mean NVML power draw, mW
  std::optional<double> temperature_c;                       // highest NVML GPU temperature, C
  std::optional<std::uint64_t> clock_reasons;  // OR of the NVML clock-event (throttle) reasons
  std::string cache;                           // "cold-flush" or "rotate:<copies>"; "" not recorded
  bool operator==(const MeasureConditions&) const = default;
};

// Timing summary of one kernel, in microseconds, with how it was measured.
struct TimingRecord {
  double median_us = 0, min_us = 0, mean_us = 0, stdev_us = 0;
  int samples = 0, discarded = 0;
  double sm_clock_mhz = 0;  // mean observed SM clock over accepted samples (0: not observed)
  MeasureConditions conditions;
};

struct RunRecord {
  std::int64_t id = 0;
  std::string started_at;  // ISO 8601 UTC
  std::string host;
  std::string command;
  std::string clock_policy;  // "observe" or "lock:<MHz>"
  std::uint64_t seed = 0;
  std::string notes;               // free-form provenance (JSON): NVML readings, warnings
  std::string status = "running";  // set by TuningStore::finish_run ("done", "interrupted", ...)
  std::string finished_at;         // ISO 8601 UTC; empty while running
};

struct CandidateRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  ProblemKey problem;
  std::string family;
  std::string config;  // knobs_to_string
  std::string template_hash;
  std::string compile_options;  // space-joined NVRTC options
  Outcome outcome = Outcome::ok;
  std::string message;  // compile log, failed constraint, error metrics text
  int registers = 0;
  int spill_bytes = 0;
  int smem_bytes = 0;                                  // static + dynamic shared memory per block
  std::optional<TimingRecord> screen;                  // short estimate
  std::optional<TimingRecord> final;                   // full methodology (finalists only)
  std::optional<double> cublas_us;                     // cuBLAS median measured in the same rounds
  std::optional<MeasureConditions> cublas_conditions;  // ... and what was observed meanwhile
  std::optional<double> error;  // normwise error against cuBLAS pedantic FP32
};

// Winner families that are not kernels of ours: "cublas" (cublasSgemm: nothing beat it beyond the
// measurement spread) and "cublaslt" (one of cuBLASLt's algorithms beat cuBLAS and every own
// finalist; its config is cuda/cublaslt_gemm.hpp's lt_algorithm_config).
inline constexpr const char* kCublasFamily = "cublas";
inline constexpr const char* kCublasLtFamily = "cublaslt";

// The best configuration of a problem on one GPU model, materialised for the dispatcher.
struct WinnerRecord {
  ProblemKey problem;
  GpuRecord gpu;
  SoftwareRecord software;
  std::string family;
  std::string config;
  std::string template_hash;
  std::string compile_options;
  double time_us = 0;
  double cublas_us = 0;
  double tie_band = 0;  // relative spread of the paired ratios (0.004 = 0.4%)
  std::int64_t candidate_id = 0;
  std::vector<unsigned char> cubin;  // empty when not stored (the dispatcher then JIT-compiles)
  std::string cubin_arch;            // architecture the cubin was built for
  std::string updated_at;
};

}  // namespace sgt
