#include "db/device_records.hpp"

namespace sgt {

GpuRecord gpu_record(const DeviceInfo& d) {
  return {d.name, d.uuid, d.arch(), d.sm_count, d.l2_bytes, d.default_clock_khz / 1000};
}

SoftwareRecord software_record() {
  const SoftwareInfo sw = query_software();
  return {sw.driver, sw.runtime, sw.nvrtc, sw.cublas};
}

}  // namespace sgt
