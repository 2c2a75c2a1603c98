// Tuning databases made by hand for the dispatcher's and the interposer's GPU tests: a chosen
// configuration stored as a problem's winner on this GPU, as the tuner would store it.
#pragma once

#include <string>

#include "db/tuning_store.hpp"
#include "space/family.hpp"

namespace sgt::testing {

// A database path in the temporary folder, unique to this process, with no file there yet.
std::string temp_db(const std::string& name);

// Stores `chosen` of `family` as the winner of `problem` on GPU 0 (with its cubin, or for the
// dispatcher to JIT). Fails the test when the family cannot implement it.
void store_winner(TuningStore& store, const Family& family, const ProblemKey& problem,
                  const Knobs& chosen, bool with_cubin);
// The same with `family`'s first default configuration that takes `problem`.
void store_winner(TuningStore& store, const Family& family, const ProblemKey& problem,
                  bool with_cubin);

}  // namespace sgt::testing
