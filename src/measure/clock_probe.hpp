// SM clock without privileges: a tiny NVRTC-compiled kernel (kernel_templates/clock_probe.cu) that
// stamps %globaltimer and clock64() on SM 0; f = d clock64 / d globaltimer, in MHz.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "cuda/module.hpp"

namespace sgt {

// What one probe launch recorded (host copy of the kernel's ClockProbeSlot).
struct ProbeStamp {
  std::uint64_t claim = 0, seq = 0;
  std::uint64_t t_start_ns = 0, c_start = 0, t_end_ns = 0, c_end = 0;
  std::uint64_t pad[2] = {0, 0};
};

// MHz counted within one probe (its own window); 0 when the stamp is not valid for `seq`.
double probe_mhz(const ProbeStamp& stamp, std::uint64_t seq);
// MHz between the end of `before` and the start of `after` (the span of the work between them,
// counted on SM 0); 0 when either stamp is invalid or no time passed.
double between_mhz(const ProbeStamp& before, std::uint64_t before_seq, const ProbeStamp& after,
                   std::uint64_t after_seq);

class ClockProbe {
 public:
  static constexpr int kSlots = 2;

  // Compiles and loads the probe for the device (current context); throws sgt::Error on failure.
  ClockProbe(const DeviceInfo& device, double window_us);
  ~ClockProbe();
  ClockProbe(const ClockProbe&) = delete;
  ClockProbe& operator=(const ClockProbe&) = delete;

  // Enqueues one probe writing to `slot` (0 or 1); returns its sequence number.
  std::uint64_t record(cudaStream_t stream, int slot);
  // Enqueues the copy of every slot to host memory; stamps are valid after the stream syncs.
  void fetch(cudaStream_t stream);
  const ProbeStamp& stamp(int slot) const { return host_[slot]; }

  // record + fetch + synchronize: the SM clock now, in MHz (0 when it could not be read).
  double read_mhz(cudaStream_t stream);

 private:
  Module module_;
  CUfunction function_ = nullptr;
  DeviceBuffer<ProbeStamp> slots_;
  ProbeStamp* host_ = nullptr;  // pinned, kSlots entries
  unsigned grid_ = 1;
  std::uint64_t window_ns_ = 20000;
  std::uint64_t next_seq_ = 1;
};

}  // namespace sgt
