// Pure report arithmetic: FP32 peak, roofline intensity and bound, occupancy limits, waves, and
// the text helpers (Markdown tables, colour rules, knob differences, shell quoting).
#include <gtest/gtest.h>
#include <stdlib.h>

#include "report/explain.hpp"
#include "report/format.hpp"
#include "report/metrics.hpp"
#include "report/plot.hpp"
#include "report/terminal.hpp"

namespace {

using namespace sgt;
using namespace sgt::report;

ProblemKey problem(int m, int n, int k) {
  return with_minimal_leading_dimensions({Op::N, Op::N, m, n, k});
}

TEST(ReportMetrics, PeakIsSmsTimes128LanesTimesTwoTimesClock) {
  EXPECT_NEAR(peak_fp32_tflops(132, 1980), 66.908, 1e-3);
  EXPECT_NEAR(peak_fp32_tflops(108, 1410), 38.99, 1e-2);
  EXPECT_EQ(peak_fp32_tflops(0, 1980), 0.0);
}

TEST(ReportMetrics, IntensityAndBoundFollowTheRoofline) {
  const ProblemKey square = problem(4096, 4096, 4096);
  EXPECT_NEAR(arithmetic_intensity(square), 4096.0 / 6.0, 1e-9);
  EXPECT_EQ(bound(square, 66.9, 4.3), Bound::compute);
  const ProblemKey skinny = problem(4096, 16, 4096);
  EXPECT_NEAR(arithmetic_intensity(skinny), 2.0 * 4096 * 16 * 4096 / minimal_bytes(skinny), 1e-12);
  EXPECT_LT(arithmetic_intensity(skinny), ridge_point(66.9, 4.3));
  EXPECT_EQ(bound(skinny, 66.9, 4.3), Bound::memory);
  EXPECT_NEAR(ridge_point(66.9, 4.3), 15.558, 1e-3);
  // The floor of a memory-bound problem is its minimal traffic over the bandwidth.
  EXPECT_NEAR(roofline_floor_us(skinny, 66.9, 4.3), minimal_bytes(skinny) / 4.3e6, 1e-9);
  EXPECT_NEAR(tflops(square, 2054.0), 2.0 * 4096.0 * 4096 * 4096 / 2054e-6 / 1e12, 1e-9);
  EXPECT_EQ(tflops(square, 0), 0.0);
  EXPECT_EQ(bound_name(Bound::memory), "memory");
}

TEST(ReportMetrics, OccupancyTakesTheTightestLimit) {
  const SmLimits h100 = sm_limits("sm_90");
  // 128 registers: 4096 per warp, 4 warps per sub-partition, a 256-thread block needs 2 there.
  Occupancy o = occupancy(256, 128, 32768, h100);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(o.warps_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
  // 64 registers would allow 4; 102.75 KiB of shared memory (+1 KiB reserved) allows 2.
  o = occupancy(256, 64, 105216, h100);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "smem");
  // Unknown registers: only threads, blocks and shared memory count.
  o = occupancy(128, 0, 0, h100);
  EXPECT_EQ(o.blocks_per_sm, 16);
  EXPECT_EQ(o.limiter, "threads");
  EXPECT_FALSE(o.registers_known);
  // Tiny blocks hit the 32-blocks-per-SM limit.
  o = occupancy(32, 32, 0, h100);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, "blocks");
  // 1024 threads at 255 registers do not fit in the register file.
  o = occupancy(1024, 255, 0, h100);
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.limiter, "registers (does not fit)");
  // sm_86 has 1536 threads per SM.
  o = occupancy(256, 32, 0, sm_limits("sm_86"));
  EXPECT_EQ(o.blocks_per_sm, 6);
  EXPECT_EQ(o.limiter, "threads");
}

TEST(ReportMetrics, WavesAreBlocksOverResidentSlots) {
  EXPECT_DOUBLE_EQ(waves(264, 132, 2), 1.0);
  EXPECT_NEAR(waves(64, 132, 2), 64.0 / 264.0, 1e-12);
  EXPECT_NEAR(waves(300, 132, 1), 2.2727, 1e-4);
  EXPECT_EQ(waves(100, 132, 0), 0.0);
}

TEST(ReportFormat, NumbersAndOccupancyText) {
  EXPECT_EQ(fixed(3.14159, 2), "3.14");
  EXPECT_EQ(fixed(0, 2), "-");
  EXPECT_EQ(percent(63.24), "63.2%");
  EXPECT_EQ(ratio_text(2.794), "2.79x");
  Occupancy o;
  o.blocks_per_sm = 2;
  o.limiter = "smem";
  EXPECT_EQ(occupancy_text(o), "2 (smem)");
  o.registers_known = false;
  EXPECT_EQ(occupancy_text(o), "2 (smem) regs?");
}

TEST(ReportFormat, MarkdownTablePadsAndAlignsColumns) {
  const std::string t = markdown_table(
      {"name", "us"}, {{{"a"}, {"1.5"}}, {{"long name"}, {"10.25"}}}, {false, true}, false);
  EXPECT_EQ(t,
            "| name      |    us |\n"
            "| --------- | ----: |\n"
            "| a         |   1.5 |\n"
            "| long name | 10.25 |\n");
  const std::string coloured = markdown_table({"x"}, {{{"up", Colour::green}}}, {false}, true);
  EXPECT_NE(coloured.find("\033[32mup "), std::string::npos);
}

TEST(ReportTerminal, ColourOnlyWhenAskedAndNeverWithNoColor) {
  EXPECT_EQ(paint("x", Colour::red, false), "x");
  EXPECT_EQ(paint("x", Colour::red, true), "\033[31mx\033[0m");
  EXPECT_EQ(ratio_colour(1.10, 0.02), Colour::green);
  EXPECT_EQ(ratio_colour(0.90, 0.02), Colour::red);
  EXPECT_EQ(ratio_colour(1.01, 0.02), Colour::none);
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(colour_enabled(stdout));
  ::unsetenv("NO_COLOR");
  // Test output is captured (not a terminal) under ctest.
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  EXPECT_FALSE(colour_enabled(file));
  std::fclose(file);
}

TEST(ReportExplain, KnobDifferencesNameChangedAddedAndMissingKnobs) {
  EXPECT_EQ(knob_differences("BK=32,STAGES=3,TS=16", "BK=128,STAGES=6,TS=16"),
            "BK 32->128, STAGES 3->6");
  EXPECT_EQ(knob_differences("BK=32", "BK=32,PF=1"), "PF=1");
  EXPECT_EQ(knob_differences("BK=32,PF=1", "BK=32"), "no PF");
  EXPECT_EQ(knob_differences("BK=32", "BK=32"), "");
}

TEST(ReportExplain, ShellLineQuotesWhatTheShellWouldSplit) {
  EXPECT_EQ(shell_line({"ncu", "--kernel-name", "regex:^sgemm_main$", "a b", "it's"}),
            "ncu --kernel-name 'regex:^sgemm_main$' 'a b' 'it'\\''s'");
  EXPECT_EQ(shape_list_csv(problem(64, 32, 16)),
            "m,n,k,transa,transb,lda,ldb,ldc\n64,32,16,N,N,64,16,64\n");
}

TEST(ReportPlot, GnuplotQuotingAndPathLookup) {
  EXPECT_EQ(gnuplot_quote("it's"), "'it''s'");
  EXPECT_FALSE(find_on_path("sh").empty());
  EXPECT_TRUE(find_on_path("surely-no-such-program-sgemm").empty());
}

}  // namespace
