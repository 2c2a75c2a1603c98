// Search spaces: YAML files (configs/spaces/<family>.yaml, and further files naming the same family
// where one product of values would be too large, as f2_tma_split_k.yaml) naming a family and the
// values each knob takes. Enumeration is the cartesian product of each file, pruned by the
// family's named constraints.
#pragma once

#include <string>
#include <vector>

#include "space/family.hpp"

namespace sgt {

struct FamilySpace {
  const Family* family = nullptr;
  std::vector<std::pair<std::string, std::vector<int>>> knobs;  // in file order
  std::string source;                                           // file it came from
};

struct SearchSpace {
  std::vector<FamilySpace> families;
};

struct Candidate {
  const Family* family = nullptr;
  Knobs knobs;
};

struct Enumeration {
  std::vector<Candidate> valid;
  int pruned = 0;  // configurations some constraint rejected, never compiled
};

// A file, or a directory whose *.yaml files are each one space of a family.
SearchSpace load_search_space(const std::string& path);
FamilySpace parse_family_space(const std::string& text, const std::string& file_name);

Enumeration enumerate(const SearchSpace& space, const DeviceLimits& limits);

}  // namespace sgt
