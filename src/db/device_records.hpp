// The database's records of the device and the software a measurement was taken on.
#pragma once

#include "cuda/device_info.hpp"
#include "db/records.hpp"

namespace sgt {

// GpuRecord / SoftwareRecord of a device and of the loaded libraries, as stored in the database.
GpuRecord gpu_record(const DeviceInfo& device);
SoftwareRecord software_record();

}  // namespace sgt
