// The candidates of one problem: every configuration of the search space that passes the static
// constraints and that its family can implement for the problem, with its compile options and
// the cost model's estimate. Shared by tuning and compile-only runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/search_space.hpp"
#include "db/records.hpp"

namespace sgt {

struct PlannedCandidate {
  Candidate candidate;
  std::vector<std::string> defines;  // NVRTC -D options
  std::string config;                // knobs_to_string(knobs)
  std::string options;               // every NVRTC option, joined (provenance)
  std::string template_file;         // "<family>.cu"
  std::string template_hash;
  double predicted_us = 0;  // cost model
};

struct CandidateList {
  std::vector<PlannedCandidate> candidates;  // in enumeration order
  int pruned = 0;  // rejected by a constraint or by the family for this problem
};

// space: the search space enumerated once (it does not depend on the problem).
CandidateList plan_candidates(const Enumeration& space, const DeviceLimits& limits,
                              const ProblemKey& problem, const std::string& arch);

// A record of the candidate for the database, identity and compile options filled in.
CandidateRecord candidate_record(const PlannedCandidate& candidate, const ProblemKey& problem,
                                 std::int64_t run_id);

// The family's spaces (one per file that names it), knob values in file order, for
// neighbourhoods in the search.
std::vector<const FamilySpace*> family_spaces(const SearchSpace& space, const Family* family);

}  // namespace sgt
