// Device and software identity from the CUDA runtime, NVRTC and cuBLAS.
#include "cuda/device_info.hpp"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nvrtc.h>

#include <regex>

#include "common/error.hpp"
#include "space/family.hpp"

namespace sgt {
namespace {

int attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  SGT_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, ordinal));
  return value;
}

std::string format_uuid(const cudaUUID_t& uuid) {
  std::string hex;
  for (int i = 0; i < 16; ++i)
    hex += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  return fmt::format("GPU-{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4),
                     hex.substr(16, 4), hex.substr(20));
}

std::string version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

}  // namespace

std::string DeviceInfo::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the (non-sticky) error so later calls start clean
    int driver = 0;
    if (err == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
        driver == 0)
      return "no usable CUDA GPU: no NVIDIA driver is installed (libcuda.so.1 not found)";
    return fmt::format("no usable CUDA GPU: {} ({})", cudaGetErrorName(err),
                       cudaGetErrorString(err));
  }
  if (count == 0) return "no usable CUDA GPU: the driver reports zero devices";
  return {};
}

DeviceInfo query_device(int ordinal) {
  cudaDeviceProp prop{};
  SGT_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.uuid = format_uuid(prop.uuid);
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  info.smem_optin_bytes = static_cast<long long>(prop.sharedMemPerBlockOptin);
  info.smem_per_sm_bytes = static_cast<long long>(prop.sharedMemPerMultiprocessor);
  info.regs_per_sm = prop.regsPerMultiprocessor;
  info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  info.default_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  return info;
}

SoftwareInfo query_software() {
  SoftwareInfo sw;
  int driver = 0;
  sw.driver = (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) ? version_string(driver)
                                                                           : "none";
  sw.runtime = version_string(CUDART_VERSION);
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  sw.nvrtc = fmt::format("{}.{}", major, minor);
  int cb_major = 0, cb_minor = 0, cb_patch = 0;
  cublasGetProperty(MAJOR_VERSION, &cb_major);
  cublasGetProperty(MINOR_VERSION, &cb_minor);
  cublasGetProperty(PATCH_LEVEL, &cb_patch);
  sw.cublas = fmt::format("{}.{}.{}", cb_major, cb_minor, cb_patch);
  return sw;
}

int parse_arch(const std::string& arch) {
  static const std::regex pattern("sm_([0-9]{2,3})a?");
  std::smatch match;
  if (!std::regex_match(arch, match, pattern)) {
    throw Error(
        ErrorKind::invalid_value,
        fmt::format("architecture '{}' is not of the form sm_XY (for example sm_90)", arch));
  }
  return std::stoi(match[1].str());
}

DeviceLimits device_limits(const DeviceInfo& d) {
  DeviceLimits limits;
  limits.cc = d.cc_major * 10 + d.cc_minor;
  limits.sm_count = d.sm_count;
  limits.smem_optin_bytes = static_cast<int>(d.smem_optin_bytes);
  limits.regs_per_sm = d.regs_per_sm;
  return limits;
}

}  // namespace sgt
