#include "support/winner_db.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cuda/device_info.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/templates.hpp"
#include "support/gpu_support.hpp"
#include "tuner/tuner.hpp"

namespace sgt::testing {

std::string temp_db(const std::string& name) {
  const std::string path =
      std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  return path;
}

void store_winner(TuningStore& store, const Family& family, const ProblemKey& problem,
                  const Knobs& chosen, bool with_cubin) {
  ASSERT_EQ(family.cannot_implement(chosen, problem), "") << knobs_to_string(chosen);
  const DeviceInfo device = query_device(0);
  WinnerRecord w;
  w.problem = problem;
  w.gpu = gpu_record(device);
  w.software = software_record();
  w.family = family.name();
  w.config = knobs_to_string(chosen);
  w.template_hash = template_hash(family.name() + ".cu");
  w.time_us = 1;
  w.cublas_us = 2;
  if (with_cubin) {
    const CompileResult r =
        compile_template(family.name() + ".cu", family.defines(chosen, problem), device.arch());
    ASSERT_TRUE(r.ok) << r.log;
    w.cubin.assign(r.cubin.begin(), r.cubin.end());
    w.cubin_arch = device.arch();
  }
  store.set_winner(w);
}

void store_winner(TuningStore& store, const Family& family, const ProblemKey& problem,
                  bool with_cubin) {
  for (const Knobs& k : default_space_configs(family))
    if (family.cannot_implement(k, problem).empty())
      return store_winner(store, family, problem, k, with_cubin);
  ADD_FAILURE() << family.name() << " cannot implement " << problem.to_string();
}

}  // namespace sgt::testing
