// Rotation planning and the copies of A, B and C.
#include "measure/operand_rotation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"

namespace sgt {

RotationPlan plan_rotation(std::size_t set_bytes, long long l2_bytes, std::size_t max_bytes) {
  RotationPlan plan;
  plan.set_bytes = set_bytes;
  if (set_bytes == 0) return plan;
  const std::size_t target = 3 * static_cast<std::size_t>(std::max(l2_bytes, 0LL));
  std::size_t copies = std::max<std::size_t>((target + set_bytes - 1) / set_bytes, 2);
  const std::size_t fit = max_bytes / set_bytes;
  if (copies > fit) {
    copies = fit;
    plan.capped = true;
  }
  if (copies < 2) {
    plan.capped = true;
    return plan;
  }
  plan.copies = static_cast<int>(std::min<std::size_t>(copies, kMaxRotationSets));
  plan.total_bytes = static_cast<std::size_t>(plan.copies) * set_bytes;
  plan.capped = plan.total_bytes < target;
  return plan;
}

OperandRotation::OperandRotation(const OperandSet& source, std::size_t a_floats,
                                 std::size_t b_floats, std::size_t c_floats,
                                 const MeasureSettings& settings, cudaStream_t stream) {
  if (settings.cache != CacheMode::rotate) {
    sets_.push_back(source);
    note_ = fmt::format("cache {}: one operand set", to_string(settings.cache));
    return;
  }
  int device = 0, l2 = 0;
  SGT_CUDA_CHECK(cudaGetDevice(&device));
  SGT_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  std::size_t free_bytes = 0, total_bytes = 0;
  SGT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const auto cap =
      std::min(static_cast<std::size_t>(settings.rotate_max_mib * (1 << 20)), free_bytes / 2);
  const std::size_t set_bytes = (a_floats + b_floats + c_floats) * sizeof(float);
  plan_ = plan_rotation(set_bytes, l2, cap);
  constexpr double kMiB = 1 << 20;
  if (plan_.copies == 0) {
    sets_.push_back(source);
    note_ = fmt::format(
        "cache rotate: two sets of {:.1f} MiB exceed the {:.0f} MiB cap; cold-flush instead",
        set_bytes / kMiB, cap / kMiB);
    return;
  }
  buffers_.reserve(3 * static_cast<std::size_t>(plan_.copies));
  for (int i = 0; i < plan_.copies; ++i) {
    OperandSet set;
    for (auto [src, floats] : {std::pair<const float*, std::size_t>{source.a, a_floats},
                               {source.b, b_floats},
                               {source.c, c_floats}}) {
      DeviceBuffer<float>& copy = buffers_.emplace_back(floats);
      if (floats > 0)
        SGT_CUDA_CHECK(cudaMemcpyAsync(copy.get(), src, floats * sizeof(float),
                                       cudaMemcpyDeviceToDevice, stream));
    }
    const std::size_t base = buffers_.size() - 3;
    set.a = buffers_[base].get();
    set.b = buffers_[base + 1].get();
    set.c = buffers_[base + 2].get();
    sets_.push_back(set);
  }
  SGT_CUDA_CHECK(cudaStreamSynchronize(stream));
  note_ = fmt::format("cache rotate: {} sets of {:.2f} MiB = {:.1f} MiB ({:.1f} x L2){}",
                      plan_.copies, set_bytes / kMiB, plan_.total_bytes / kMiB,
                      l2 > 0 ? static_cast<double>(plan_.total_bytes) / l2 : 0.0,
                      plan_.capped ? ", capped below 3 x L2" : "");
}

OperandRotation::OperandRotation(const ProblemKey& problem, const OperandSet& source,
                                 const MeasureSettings& settings, cudaStream_t stream)
    : OperandRotation(source, static_cast<std::size_t>(elements_a(problem)),
                      static_cast<std::size_t>(elements_b(problem)),
                      static_cast<std::size_t>(elements_c(problem)), settings, stream) {}

RotatingLaunch OperandRotation::launch(GemmLaunchFn fn) const {
  return {[this, fn = std::move(fn)](cudaStream_t stream, int set) { fn(stream, sets_[set]); },
          sets()};
}

}  // namespace sgt
