// Shared pieces of the GPU tests: skipping without a device, one process-wide CUDA setup, and
// running a kernel family configuration through every verification pass plus an FP64 check.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda/cublas_handle.hpp"
#include "cuda/device_info.hpp"
#include "cuda/stream.hpp"
#include "space/family.hpp"
#include "verify/gemm_checker.hpp"
#include "verify/utility_kernels.hpp"

// Skips the current test (with the reason) when no GPU is usable.
#define SGT_SKIP_WITHOUT_GPU()                                                           \
  do {                                                                                   \
    if (const std::string sgt_why_ = ::sgt::gpu_unavailable_reason(); !sgt_why_.empty()) \
      GTEST_SKIP() << sgt_why_;                                                          \
  } while (0)

namespace sgt::testing {

struct GpuEnv {
  DeviceInfo device;
  Stream stream;
  CublasHandle cublas{true};
  UtilityKernels utility;
  explicit GpuEnv(DeviceInfo d) : device(std::move(d)), utility(device.arch()) {}
};
GpuEnv& gpu_env();  // created on first use, on device 0
// Device 0's limits: what the families' launch geometries are computed for there (DeviceLimits'
// defaults where no GPU is usable, so that test lists can be built there).
DeviceLimits gpu_limits();

// A path inside the source tree: $SGEMM_SOURCE_DIR (set when the tests run from another
// checkout, e.g. on a GPU machine), else the tree the tests were built from.
std::string source_path(const std::string& relative);

// A problem of the given shape with minimal (or padded) leading dimensions.
ProblemKey make_problem(Op ta, Op tb, int m, int n, int k, int pad = 0, int align = 4);
// The same shape with 16-byte operands (alignment class 4, which TMA needs): each leading
// dimension rounded up to a multiple of 4 floats, plus `pad` (a multiple of 4).
ProblemKey make_aligned_problem(Op ta, Op tb, int m, int n, int k, int pad = 0);

// Edge shapes every family must get right: not multiples of any tile, K smaller than any BK,
// one row, one column, and a moderately large one.
std::vector<std::array<int, 3>> edge_shapes();

// Normwise error (alpha 1.5, beta 0, C poisoned with NaN) of `gemm` against a host FP64 product
// on fresh random data from the seed; for problems small enough for the host.
double fp64_error_of(const ProblemKey& p, const GemmFn& gemm, std::uint64_t seed);

struct CaseOutcome {
  bool compiled = false;
  std::string why_not;           // cannot_implement, compile log or launch error
  CheckResult check;             // against cuBLAS (pedantic)
  double fp64_error = 0;         // normwise error against a host FP64 product (beta = 0)
  double cublas_fp64_error = 0;  // cuBLAS itself against the same FP64 product
};

struct Case {
  Knobs knobs;
  ProblemKey problem;
  int misalign_floats = 0;  // shifts every base pointer (the problem's align class must allow it)
};

// Each configuration at each shape in all four transposes, three ways TMA cannot address in
// place: leading dimensions padded by 5 (alignment class 1), minimal ones with every pointer
// offset by one float (class 1), and padded by 2 (class 2).
std::vector<Case> unaligned_cases(const std::vector<Knobs>& configs,
                                  const std::vector<std::array<int, 3>>& shapes);

// Compiles (in parallel, each distinct instance once), loads and checks each case in order.
std::vector<CaseOutcome> run_family_cases(const Family& family, const std::vector<Case>& cases);

// One case verified twice in a row on one workspace, then run twice more on identical operands:
// a kernel that keeps state in its workspace (split-K tile counters) must leave it as it found it.
struct RepeatOutcome {
  bool compiled = false;
  std::string why_not;
  int k_splits = 1;
  CheckResult first, second;       // every verification pass, twice, against cuBLAS
  std::int64_t unequal = 0;        // elements of C whose bits differ between the identical runs
  std::int64_t counters_left = 0;  // nonzero tile counters after all runs
};
std::vector<RepeatOutcome> run_family_cases_twice(const Family& family,
                                                  const std::vector<Case>& cases);

// The configurations of a family's default space (every file of configs/spaces naming it:
// <family>.yaml and any further ones such as f2_tma_split_k.yaml), valid on sm_90.
std::vector<Knobs> default_space_configs(const Family& family);

// Those configurations with `knob` set to `value` where that is valid on sm_90, each once (for a
// switch the default space does not list, or lists beside its other value).
std::vector<Knobs> default_space_configs_with(const Family& family, const std::string& knob,
                                              int value);

}  // namespace sgt::testing
