// A fake NVML for the clock-lock tests, built by tests/extra.cmake as libsgemm_fake_nvml.so. It
// exports the NVML entry points sgt::Nvml looks up and appends one line per call to the file
// named by SGEMM_FAKE_NVML_LOG. SGEMM_FAKE_NVML_SET_RESULT=no_permission|not_supported makes the
// Set*LockedClocks calls fail; SGEMM_FAKE_NVML_REASONS (decimal or 0x hex) sets the reasons;
// SGEMM_FAKE_NVML_POWER_MW and SGEMM_FAKE_NVML_TEMPERATURE_C set those readings (default 312000
// and 47), or make the query fail with not_supported. Built with SGEMM_FAKE_NVML_NO_SENSORS it
// lacks the power and temperature entry points (an older or stripped NVML).
// Compiled to nothing unless SGEMM_FAKE_NVML_BUILD is defined (sgt_test_support globs this file).
#ifdef SGEMM_FAKE_NVML_BUILD

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kNoPermission = 4;

int g_device_tag = 0;  // the handle handed out is the address of this

// One line per call; open/append/close each time so forked children and signal paths log too.
void log_call(const char* line) {
  const char* path = std::getenv("SGEMM_FAKE_NVML_LOG");
  if (!path || !*path) return;
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  const std::size_t n = std::strlen(line);
  ssize_t ignored = write(fd, line, n);
  ignored = write(fd, "\n", 1);
  (void)ignored;
  close(fd);
}

int set_result() {
  const char* v = std::getenv("SGEMM_FAKE_NVML_SET_RESULT");
  if (!v) return kSuccess;
  if (std::strcmp(v, "no_permission") == 0) return kNoPermission;
  if (std::strcmp(v, "not_supported") == 0) return kNotSupported;
  return kSuccess;
}

bool valid(void* device) { return device == &g_device_tag; }

#ifndef SGEMM_FAKE_NVML_NO_SENSORS
// A reading from the environment: its value, the default, or not supported.
int reading(const char* variable, unsigned fallback, unsigned* out) {
  const char* v = std::getenv(variable);
  if (v && std::strcmp(v, "not_supported") == 0) return kNotSupported;
  *out = v ? static_cast<unsigned>(std::strtoul(v, nullptr, 0)) : fallback;
  return kSuccess;
}
#endif

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int nvmlInit_v2() {
  log_call("nvmlInit_v2");
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlShutdown() {
  log_call("nvmlShutdown");
  return kSuccess;
}

__attribute__((visibility("default"))) const char* nvmlErrorString(int code) {
  switch (code) {
    case kSuccess:
      return "Success";
    case kInvalidArgument:
      return "Invalid Argument";
    case kNotSupported:
      return "Not Supported";
    case kNoPermission:
      return "Insufficient Permissions";
    default:
      return "Unknown Error";
  }
}

__attribute__((visibility("default"))) int nvmlDeviceGetHandleByUUID(const char* uuid,
                                                                     void** device) {
  char line[160];
  std::snprintf(line, sizeof(line), "nvmlDeviceGetHandleByUUID %s", uuid ? uuid : "(null)");
  log_call(line);
  if (!device) return kInvalidArgument;
  *device = &g_device_tag;
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned index,
                                                                         void** device) {
  char line[80];
  std::snprintf(line, sizeof(line), "nvmlDeviceGetHandleByIndex_v2 %u", index);
  log_call(line);
  if (!device) return kInvalidArgument;
  *device = &g_device_tag;
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetClockInfo(void* device, unsigned type,
                                                                  unsigned* mhz) {
  if (!valid(device) || !mhz) return kInvalidArgument;
  *mhz = type == 2 ? 3201 : 1755;  // memory : graphics/SM
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetMaxClockInfo(void* device, unsigned type,
                                                                     unsigned* mhz) {
  if (!valid(device) || !mhz) return kInvalidArgument;
  *mhz = type == 2 ? 3201 : 1980;
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetCurrentClocksEventReasons(
    void* device, unsigned long long* reasons) {
  if (!valid(device) || !reasons) return kInvalidArgument;
  const char* v = std::getenv("SGEMM_FAKE_NVML_REASONS");
  *reasons = v ? std::strtoull(v, nullptr, 0) : 0;
  return kSuccess;
}

#ifndef SGEMM_FAKE_NVML_NO_SENSORS
__attribute__((visibility("default"))) int nvmlDeviceGetPowerUsage(void* device, unsigned* mw) {
  if (!valid(device) || !mw) return kInvalidArgument;
  return reading("SGEMM_FAKE_NVML_POWER_MW", 312000, mw);
}

__attribute__((visibility("default"))) int nvmlDeviceGetTemperature(void* device, unsigned sensor,
                                                                    unsigned* celsius) {
  if (!valid(device) || !celsius || sensor != 0) return kInvalidArgument;
  return reading("SGEMM_FAKE_NVML_TEMPERATURE_C", 47, celsius);
}
#endif

__attribute__((visibility("default"))) int nvmlDeviceSetGpuLockedClocks(void* device,
                                                                        unsigned min_mhz,
                                                                        unsigned max_mhz) {
  char line[96];
  const int rc = valid(device) ? set_result() : kInvalidArgument;
  std::snprintf(line, sizeof(line), "nvmlDeviceSetGpuLockedClocks %u %u -> %d", min_mhz, max_mhz,
                rc);
  log_call(line);
  return rc;
}

__attribute__((visibility("default"))) int nvmlDeviceResetGpuLockedClocks(void* device) {
  log_call("nvmlDeviceResetGpuLockedClocks");
  return valid(device) ? kSuccess : kInvalidArgument;
}

__attribute__((visibility("default"))) int nvmlDeviceSetMemoryLockedClocks(void* device,
                                                                           unsigned min_mhz,
                                                                           unsigned max_mhz) {
  char line[96];
  const int rc = valid(device) ? set_result() : kInvalidArgument;
  std::snprintf(line, sizeof(line), "nvmlDeviceSetMemoryLockedClocks %u %u -> %d", min_mhz, max_mhz,
                rc);
  log_call(line);
  return rc;
}

__attribute__((visibility("default"))) int nvmlDeviceResetMemoryLockedClocks(void* device) {
  log_call("nvmlDeviceResetMemoryLockedClocks");
  return valid(device) ? kSuccess : kInvalidArgument;
}

}  // extern "C"

#endif  // SGEMM_FAKE_NVML_BUILD
