// Compiles the probe once per ClockProbe and launches it through the driver entry points.
#include "measure/clock_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "cuda/driver_api.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace sgt {

static_assert(sizeof(ProbeStamp) == 64, "ProbeStamp must mirror ClockProbeSlot");

double probe_mhz(const ProbeStamp& stamp, std::uint64_t seq) {
  if (seq == 0 || stamp.seq != seq || stamp.t_end_ns <= stamp.t_start_ns) return 0;
  if (stamp.c_end <= stamp.c_start) return 0;
  return static_cast<double>(stamp.c_end - stamp.c_start) * 1e3 /
         static_cast<double>(stamp.t_end_ns - stamp.t_start_ns);
}

double between_mhz(const ProbeStamp& before, std::uint64_t before_seq, const ProbeStamp& after,
                   std::uint64_t after_seq) {
  if (before_seq == 0 || after_seq == 0 || before.seq != before_seq || after.seq != after_seq)
    return 0;
  if (after.t_start_ns <= before.t_end_ns || after.c_start <= before.c_end) return 0;
  return static_cast<double>(after.c_start - before.c_end) * 1e3 /
         static_cast<double>(after.t_start_ns - before.t_end_ns);
}

ClockProbe::ClockProbe(const DeviceInfo& device, double window_us)
    : slots_(kSlots),
      grid_(static_cast<unsigned>(std::max(1, device.sm_count))),
      window_ns_(static_cast<std::uint64_t>(std::max(1.0, window_us) * 1e3)) {
  const CompileResult compiled = compile_template("clock_probe.cu", {}, device.arch());
  if (!compiled.ok) {
    throw Error(ErrorKind::compile, fmt::format("clock probe failed to compile: {}", compiled.log));
  }
  module_ = Module(compiled.cubin);
  function_ = module_.function("clock_probe");
  SGT_CUDA_CHECK(cudaMemset(slots_.get(), 0, slots_.bytes()));
  SGT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_), kSlots * sizeof(ProbeStamp)));
  std::fill(host_, host_ + kSlots, ProbeStamp{});
}

ClockProbe::~ClockProbe() {
  if (host_) SGT_CUDA_CHECK_NOEXCEPT(cudaFreeHost(host_));
}

std::uint64_t ClockProbe::record(cudaStream_t stream, int slot) {
  if (slot < 0 || slot >= kSlots)
    throw Error(ErrorKind::invalid_value, fmt::format("clock probe slot {} out of range", slot));
  ProbeStamp* target = slots_.get() + slot;
  std::uint64_t seq = next_seq_++;
  unsigned long long seq_arg = seq, window_arg = window_ns_;
  void* args[] = {&target, &seq_arg, &window_arg};
  SGT_CU_CHECK(driver().cuLaunchKernel(function_, grid_, 1, 1, 32, 1, 1, 0,
                                       reinterpret_cast<CUstream>(stream), args, nullptr));
  return seq;
}

void ClockProbe::fetch(cudaStream_t stream) {
  SGT_CUDA_CHECK(cudaMemcpyAsync(host_, slots_.get(), kSlots * sizeof(ProbeStamp),
                                 cudaMemcpyDeviceToHost, stream));
}

double ClockProbe::read_mhz(cudaStream_t stream) {
  const std::uint64_t seq = record(stream, 0);
  fetch(stream);
  SGT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return probe_mhz(host_[0], seq);
}

}  // namespace sgt
