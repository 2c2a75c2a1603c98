// Merging databases tuned on several machines into one: every GPU, run, candidate and winner of
// each input is imported (provenance kept: runs keep host, command and clocks; winners keep the
// unit and software they were tuned with), and where two inputs hold a winner for the same
// problem and GPU model, the one with the better (lower) measured time stays.
#pragma once

#include <string>
#include <vector>

#include "db/tuning_store.hpp"

namespace sgt::report {

struct MergeConflict {
  ProblemKey problem;
  std::string gpu_name, arch;
  int sm_count = 0;
  std::string kept_source, dropped_source;  // database paths
  std::string kept_kernel, dropped_kernel;  // "f1_simt BM=128,..." or "cublas"
  double kept_us = 0, dropped_us = 0;
  bool same_kernel = false;  // both found the same configuration (only the times differ)
};

struct MergeSummary {
  int inputs = 0;
  ImportSummary imported;  // totals over the inputs
  int winners = 0;         // in the output afterwards
  std::vector<MergeConflict> conflicts;
};

// Merges each input, in order, into out_path (created if missing; its own winners take part
// in the resolution). A tie keeps the winner already there. Throws Error(invalid_value) when
// an input is the output or is given twice, Error(database) when an input cannot be read.
MergeSummary merge_databases(const std::string& out_path, const std::vector<std::string>& inputs);

}  // namespace sgt::report
