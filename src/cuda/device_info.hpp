// What is known about a GPU and the software around it: the identity part of every database key.
#pragma once

#include <optional>
#include <string>

namespace sgt {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H200"
  std::string uuid;  // "GPU-xxxxxxxx-..."
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long l2_bytes = 0;
  long long smem_optin_bytes = 0;  // shared memory per block after opting in
  long long smem_per_sm_bytes = 0;
  int regs_per_sm = 0;
  int max_threads_per_sm = 0;
  int default_clock_khz = 0;  // peak SM clock the device reports
  std::string arch() const;   // "sm_90"
};

// What the kernel families need to know of a device (space/family.hpp).
struct DeviceLimits;
DeviceLimits device_limits(const DeviceInfo& device);

struct SoftwareInfo {
  std::string driver;   // "13.0" (CUDA driver API version) or "none"
  std::string runtime;  // CUDA runtime the binaries were built with
  std::string nvrtc;
  std::string cublas;
};

// Why no GPU is usable, or empty when device 0 works. Checks the error of cudaGetDeviceCount,
// not only the count.
std::string gpu_unavailable_reason();

DeviceInfo query_device(int ordinal);  // throws sgt::Error(cuda)
SoftwareInfo query_software();         // works without a GPU (driver: "none")

// "sm_90" -> 90; throws sgt::Error(invalid_value) for anything else.
int parse_arch(const std::string& arch);

}  // namespace sgt
