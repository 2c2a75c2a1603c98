#include "tuner/static_pruning.hpp"

#include <fmt/format.h>

namespace sgt {

ResourceVerdict check_resources(const CompileResult& compiled, const LaunchGeometry& geometry,
                                const DeviceLimits& limits) {
  const ResourceUsage& r = compiled.resources;
  ResourceVerdict v;
  v.registers = r.registers;
  v.spill_bytes = r.spill_store_bytes + r.spill_load_bytes;
  v.smem_bytes = r.static_smem_bytes + static_cast<int>(geometry.smem_bytes);
  const int threads = static_cast<int>(geometry.block.x * geometry.block.y * geometry.block.z);
  if (v.spill_bytes > 0 || r.stack_bytes > 0 || v.registers * threads > limits.regs_per_sm ||
      v.smem_bytes > limits.smem_optin_bytes) {
    v.violation = fmt::format("{} registers x {} threads, {} bytes spilled, {} stack, {} smem",
                              v.registers, threads, v.spill_bytes, r.stack_bytes, v.smem_bytes);
  }
  return v;
}

Outcome record_compile(CandidateRecord& rec, const CompileResult& compiled,
                       const ResourceVerdict& resources) {
  rec.registers = resources.registers;
  rec.spill_bytes = resources.spill_bytes;
  rec.smem_bytes = resources.smem_bytes;
  if (!compiled.ok) {
    rec.outcome = Outcome::compile_failed;
    rec.message = compiled.log;
  } else if (!resources.violation.empty()) {
    rec.outcome = Outcome::resources_exceeded;
    rec.message = resources.violation;
  } else {
    return Outcome::compiled;
  }
  return rec.outcome;
}

}  // namespace sgt
