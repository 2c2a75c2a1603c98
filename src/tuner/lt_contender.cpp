#include "tuner/lt_contender.hpp"

#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "verify/lt_algorithm_check.hpp"

namespace sgt {

LtContender screen_lt_algorithms(const CublasLtGemm& lt, const ProblemKey& key,
                                 const LtSearch& search, GemmChecker& checker, Timer& timer,
                                 const OperandRotation& operands, cudaStream_t stream, float alpha,
                                 float beta, std::uint64_t timing_seed) {
  LtContender out;
  try {
    out.plan.emplace(lt.plan(key, search.top_k));
    lt.add_split_k_variants(*out.plan, search.split_variants);
    lt.add_configuration_variants(*out.plan, search.config_variants);
  } catch (const Error& e) {
    out.note = e.what();
    return out;
  }
  const CublasLtPlan& plan = *out.plan;
  const auto checks = check_lt_algorithms(lt, plan, checker, stream, check_seed(timing_seed));
  checker.fill_random(timing_seed);
  for (const LtAlgorithmCheck& c : checks) {
    if (!c.correct) {
      spdlog::warn("{}: cuBLASLt algorithm {} ({}) left out: {}", key.to_string(), c.index,
                   plan.algorithms()[static_cast<std::size_t>(c.index)].config, c.message);
      continue;
    }
    const Measurement m =
        timer.screen(operands.launch([&, i = c.index](cudaStream_t st, const OperandSet& o) {
          lt.run(plan, i, st, alpha, o.a, o.b, beta, o.c);
        }));
    out.screened.push_back({c.index, m});
    if (out.index < 0 || m.median_us < out.screen_us) {
      out.index = c.index;
      out.screen_us = m.median_us;
    }
  }
  if (out.index < 0) out.note = "no cuBLASLt algorithm passed verification";
  return out;
}

}  // namespace sgt
