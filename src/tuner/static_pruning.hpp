// Static pruning from the compile resource report: a candidate that spills, needs a stack, or
// cannot fit one block's registers or shared memory on an SM is rejected before it runs.
#pragma once

#include <string>

#include "db/records.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "space/family.hpp"

namespace sgt {

struct ResourceVerdict {
  int registers = 0;      // per thread
  int spill_bytes = 0;    // stores + loads
  int smem_bytes = 0;     // static + dynamic, per block
  std::string violation;  // empty: the candidate may run
};

ResourceVerdict check_resources(const CompileResult& compiled, const LaunchGeometry& geometry,
                                const DeviceLimits& limits);

// The compile's resources in the record; compile_failed or resources_exceeded (outcome and
// message set) when the candidate may not run, else Outcome::compiled (the record's outcome is
// left to the caller).
Outcome record_compile(CandidateRecord& rec, const CompileResult& compiled,
                       const ResourceVerdict& resources);

}  // namespace sgt
