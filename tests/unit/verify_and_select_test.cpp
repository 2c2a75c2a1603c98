// Pure parts of verification (normwise error), of the ptxas report parser and of the choice of
// a winner from paired ratios.
#include <gtest/gtest.h>

#include <cmath>

#include "jit/nvrtc_compiler.hpp"
#include "measure/winner_selection.hpp"
#include "verify/tolerance.hpp"

namespace sgt {
namespace {

TEST(Tolerance, NormwiseErrorScalesWithKAndData) {
  // ||dC|| = 1, ||A|| = 2, ||B|| = 3, K = 2: scale sqrt(4) * 1 * 2 * 3 = 12.
  EXPECT_DOUBLE_EQ(normwise_error(1.0, 2, 1.0f, 4.0, 9.0, 0.0f, 0.0), 1.0 / 12.0);
  // beta term adds 2 |beta| ||C0||.
  EXPECT_DOUBLE_EQ(normwise_error(1.0, 2, 1.0f, 4.0, 9.0, 0.5f, 16.0), 1.0 / 16.0);
  EXPECT_EQ(normwise_error(0.0, 2, 0.0f, 0.0, 0.0, 0.0f, 0.0), 0.0);
  EXPECT_TRUE(std::isinf(normwise_error(1.0, 2, 0.0f, 0.0, 0.0, 0.0f, 0.0)));
  EXPECT_DOUBLE_EQ(normwise_tolerance(1), std::ldexp(1.0, -24));
}

TEST(Tolerance, IntegerExactnessLimit) {
  EXPECT_TRUE(integer_check_is_exact(262144, 8));  // 64 * 2^18 = 2^24
  EXPECT_FALSE(integer_check_is_exact(262145, 8));
}

TEST(PtxasReport, ParsesTheNamedFunction) {
  const std::string log =
      "ptxas info    : Compiling entry function 'sgemm_reduce' for 'sm_90'\n"
      "ptxas info    : Used 20 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function 'sgemm_main' for 'sm_90'\n"
      "ptxas info    : Function properties for sgemm_main\n"
      "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 16384 bytes smem, 448 bytes cmem[0]\n";
  const ResourceUsage u = parse_ptxas_report(log, "sgemm_main");
  EXPECT_EQ(u.registers, 168);
  EXPECT_EQ(u.spill_store_bytes, 4);
  EXPECT_EQ(u.spill_load_bytes, 12);
  EXPECT_EQ(u.stack_bytes, 8);
  EXPECT_EQ(u.static_smem_bytes, 16384);
  EXPECT_EQ(parse_ptxas_report(log, "sgemm_reduce").registers, 20);
  EXPECT_EQ(parse_ptxas_report(log, "absent").registers, 0);
}

TEST(WinnerSelection, CandidateMustBeatCublasBeyondTheSpread) {
  EXPECT_EQ(choose_winner({}).winner, -1);
  EXPECT_EQ(choose_winner({{100, 0.995, 0.01, 1}}).winner, -1);  // inside the band: cuBLAS
  EXPECT_EQ(choose_winner({{100, 0.95, 0.01, 1}}).winner, 0);
  EXPECT_EQ(choose_winner({{100, 1.20, 0.01, 1}}).winner, -1);
}

TEST(WinnerSelection, TiesGoToTheSimplerCandidate) {
  // Candidate 1 is 0.3% faster than candidate 0 with a 1% spread: a tie, and 0 is simpler.
  const Verdict v = choose_winner({{100, 0.800, 0.01, 1}, {99.7, 0.7976, 0.01, 5}});
  EXPECT_EQ(v.winner, 0);
  // A clear gap: the faster one wins despite being more complex.
  EXPECT_EQ(choose_winner({{100, 0.80, 0.01, 1}, {90, 0.72, 0.01, 5}}).winner, 1);
}

TEST(WinnerSelection, ALibraryContenderWinsOnlyOutright) {
  // cuBLASLt's algorithm 0.5% faster than the own finalist, 1% spread: the own kernel keeps it.
  EXPECT_EQ(
      choose_winner({{100, 0.900, 0.01, 40}, {99.5, 0.8955, 0.01, kLibraryComplexity}}).winner, 0);
  // 8% faster: the algorithm wins.
  EXPECT_EQ(choose_winner({{100, 0.980, 0.01, 40}, {92, 0.90, 0.01, kLibraryComplexity}}).winner,
            1);
  // Alone and inside cuBLAS's band: cuBLAS.
  EXPECT_EQ(choose_winner({{99.5, 0.995, 0.01, kLibraryComplexity}}).winner, -1);
}

}  // namespace
}  // namespace sgt
