// Copies of a problem's operands for back-to-back timing: consecutive launches cycle through sets
// of A, B and C whose total is at least 3 x L2, so no launch finds its operands in L2.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "measure/measurement.hpp"
#include "space/problem.hpp"

namespace sgt {

// How many operand sets to allocate (pure; unit-tested).
struct RotationPlan {
  int copies = 0;               // operand sets; 0: rotation impossible under the cap
  std::size_t set_bytes = 0;    // A + B + C of one set
  std::size_t total_bytes = 0;  // copies x set_bytes
  bool capped = false;          // a cap (memory or set count) left the total below 3 x L2
};

// copies = ceil(3 x l2_bytes / set_bytes), and at least 2 so that a launch never follows one on
// the same set (one set larger than 3 x L2 still leaves its tail in L2 for the next launch).
// Fewer when copies x set_bytes would pass max_bytes, or beyond kMaxRotationSets (capped); 0 when
// not even 2 fit.
RotationPlan plan_rotation(std::size_t set_bytes, long long l2_bytes, std::size_t max_bytes);

// A timed batch launches every set once and each set is three allocations: beyond this many, a
// tiny problem's batch (a 1x1x1 problem would want millions of sets) outgrows any sample.
constexpr int kMaxRotationSets = 4096;

// The three operand pointers of one set.
struct OperandSet {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
};

class OperandRotation {
 public:
  // With settings.cache "rotate": allocates the sets planned from the current device's L2
  // (cudaDevAttrL2CacheSize), capped by rotate_max_mib and half the free device memory, and
  // copies source's A, B, C into each (same data for every set). Otherwise, or when not even
  // two sets fit, one set: the source buffers themselves. Element counts in floats.
  OperandRotation(const OperandSet& source, std::size_t a_floats, std::size_t b_floats,
                  std::size_t c_floats, const MeasureSettings& settings, cudaStream_t stream);
  // The same for a GEMM problem (operand sizes from its leading dimensions).
  OperandRotation(const ProblemKey& problem, const OperandSet& source,
                  const MeasureSettings& settings, cudaStream_t stream);

  int sets() const noexcept { return static_cast<int>(sets_.size()); }
  const OperandSet& set(int i) const { return sets_.at(static_cast<std::size_t>(i)); }
  const RotationPlan& plan() const noexcept { return plan_; }
  // One line for the log: the plan, or why the timing falls back to cold-flush.
  const std::string& note() const noexcept { return note_; }

  // A launch the Timer can rotate: fn is called with the operands of the set it picks. The
  // rotation must outlive the returned launch.
  using GemmLaunchFn = std::function<void(cudaStream_t, const OperandSet&)>;
  RotatingLaunch launch(GemmLaunchFn fn) const;

 private:
  RotationPlan plan_;
  std::vector<DeviceBuffer<float>> buffers_;  // 3 per copy: A, B, C
  std::vector<OperandSet> sets_;
  std::string note_;
};

}  // namespace sgt
