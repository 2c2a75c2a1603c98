// One bench problem: verification first (fresh data per check), then one set of timing data
// shared by every kernel, timed in interleaved rounds.
#include "cli/bench_problem.hpp"

#include <spdlog/spdlog.h>

#include <optional>

#include "common/error.hpp"
#include "measure/operand_rotation.hpp"
#include "verify/lt_algorithm_check.hpp"

namespace sgt::cli {
namespace {

// The heuristic's algorithms for the problem, each verified; a plan that fails leaves a note.
std::optional<CublasLtPlan> plan_and_verify_lt(const BenchContext& ctx, const ProblemKey& p,
                                               GemmChecker& checker, LtComparison& lt) {
  lt.requested = ctx.lt_algos;
  std::optional<CublasLtPlan> plan;
  try {
    plan.emplace(ctx.lt->plan(p, ctx.lt_algos));
  } catch (const Error& e) {
    lt.note = e.what();
    spdlog::warn("cuBLASLt: {}", e.what());
    return std::nullopt;
  }
  for (const LtAlgorithmCheck& c :
       check_lt_algorithms(*ctx.lt, *plan, checker, ctx.stream, ctx.seed + 31)) {
    const LtAlgorithm& algorithm = plan->algorithms()[static_cast<std::size_t>(c.index)];
    LtAlgorithmRow row{.index = c.index,
                       .config = algorithm.config,
                       .workspace_bytes = algorithm.workspace_bytes,
                       .correct = c.correct,
                       .check = c.message};
    if (!row.correct)
      spdlog::warn("cuBLASLt algorithm {} ({}) for {}: {}", c.index, row.config, p.to_string(),
                   row.check);
    lt.algorithms.push_back(std::move(row));
  }
  return plan;
}

}  // namespace

BenchRow bench_problem(const BenchContext& ctx, const Shape& shape, const GemmFn& dispatched) {
  const ProblemKey& p = shape.problem.key;
  const float alpha = shape.problem.alpha, beta = shape.problem.beta;
  BenchRow row;
  row.problem = p;
  row.label = shape.label;

  GemmChecker checker(p, ctx.utility, ctx.reference, ctx.stream,
                      ctx.settings.verify.tolerance_factor);
  const CheckResult check = checker.check(dispatched, ctx.seed + 17);
  row.correct = check.passed;
  row.check = check.message;

  std::optional<CublasLtPlan> plan;
  if (ctx.lt && ctx.lt_algos > 0) plan = plan_and_verify_lt(ctx, p, checker, row.lt);

  checker.fill_random(ctx.seed);
  // The checker's buffers (cold-flush), or copies of them to rotate over (cache rotate), as the
  // tuner times its candidates.
  const OperandRotation operands(p, {checker.a(), checker.b(), checker.c()}, ctx.settings.measure,
                                 ctx.stream);
  std::vector<RotatingLaunch> launches = {operands.launch([&](cudaStream_t s, const OperandSet& o) {
                                            ctx.cublas.sgemm(s, p, alpha, o.a, o.b, beta, o.c);
                                          }),
                                          operands.launch([&](cudaStream_t s, const OperandSet& o) {
                                            dispatched(s, alpha, o.a, o.b, beta, o.c);
                                          })};
  constexpr int kDispatcher = 1, kFirstLt = 2;
  for (const LtAlgorithmRow& a : row.lt.algorithms)
    if (a.correct)
      launches.push_back(operands.launch([&, i = a.index](cudaStream_t s, const OperandSet& o) {
        ctx.lt->run(*plan, i, s, alpha, o.a, o.b, beta, o.c);
      }));
  const Interleaved rounds = ctx.timer.interleave(launches, ctx.seed);

  const Measurement& tuned = rounds.kernels[kDispatcher];
  row.tuned_us = tuned.median_us;
  row.cublas_us = rounds.kernels[0].median_us;
  row.ratio = 1.0 / rounds.ratio_summary[kDispatcher].median;  // cuBLAS time / tuned time
  row.ratio_spread = rounds.ratio_summary[kDispatcher].spread;
  row.rounds = rounds.rounds;
  row.tflops = flops(p) / (row.tuned_us * 1e6);
  row.percent_peak = 100 * row.tflops / ctx.peak_tflops;
  row.floor_us = roofline_floor_us(p, ctx.peak_tflops, ctx.copy_tbps);
  row.percent_floor = 100 * row.floor_us / row.tuned_us;
  row.sm_clock_mhz = tuned.sm_clock_mhz;
  row.cache = tuned.cache;
  if (row.lt.requested > 0) summarize_lt(rounds, kDispatcher, kFirstLt, row.lt);
  return row;
}

}  // namespace sgt::cli
