#include "tuner/candidate_list.hpp"

#include <map>

#include "jit/nvrtc_compiler.hpp"
#include "jit/templates.hpp"
#include "tuner/cost_model.hpp"

namespace sgt {

CandidateList plan_candidates(const Enumeration& all, const DeviceLimits& limits,
                              const ProblemKey& problem, const std::string& arch) {
  CandidateList list;
  list.pruned = all.pruned;
  const std::vector<std::string> base = base_compile_options(arch);
  std::map<std::string, std::string> hashes;  // per template file
  for (const Candidate& c : all.valid) {
    if (!c.family->cannot_implement(c.knobs, problem).empty()) {
      ++list.pruned;
      continue;
    }
    PlannedCandidate p;
    p.candidate = c;
    p.defines = c.family->defines(c.knobs, problem);
    p.config = knobs_to_string(c.knobs);
    for (const std::string& o : base) p.options += (p.options.empty() ? "" : " ") + o;
    for (const std::string& d : p.defines) p.options += " " + d;
    p.template_file = c.family->name() + ".cu";
    auto [hash, fresh] = hashes.try_emplace(p.template_file);
    if (fresh) hash->second = template_hash(p.template_file);
    p.template_hash = hash->second;
    p.predicted_us =
        estimate_cost(c.family->geometry(c.knobs, problem, limits), problem, limits).time_us;
    list.candidates.push_back(std::move(p));
  }
  return list;
}

CandidateRecord candidate_record(const PlannedCandidate& c, const ProblemKey& problem,
                                 std::int64_t run_id) {
  CandidateRecord rec;
  rec.run_id = run_id;
  rec.problem = problem;
  rec.family = c.candidate.family->name();
  rec.config = c.config;
  rec.template_hash = c.template_hash;
  rec.compile_options = c.options;
  return rec;
}

std::vector<const FamilySpace*> family_spaces(const SearchSpace& space, const Family* family) {
  std::vector<const FamilySpace*> out;
  for (const FamilySpace& f : space.families)
    if (f.family == family) out.push_back(&f);
  return out;
}

}  // namespace sgt
