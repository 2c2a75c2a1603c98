// The tune progress line: bar, rate, ETAs and the best-vs-cuBLAS figure.
#include "report/progress_bar.hpp"

#include <gtest/gtest.h>

namespace sgt {
namespace {

Progress halfway() {
  Progress p;
  p.problem_index = 1;
  p.problem_count = 4;
  p.problem = "NN 4096x16x4096 lda=4096 ldb=4096 ldc=4096 align=4";
  p.done = 32;
  p.total = 64;
  p.elapsed_s = 8;
  p.compile_wait_s = 2;
  p.best_us = 30;
  p.cublas_us = 90;
  p.stage = "screen";
  return p;
}

TEST(ProgressBar, DurationsReadNaturally) {
  EXPECT_EQ(format_duration(0.4), "0s");
  EXPECT_EQ(format_duration(45), "45s");
  EXPECT_EQ(format_duration(192), "3m12s");
  EXPECT_EQ(format_duration(3840), "1h04m");
  EXPECT_EQ(format_duration(-3), "0s");
}

TEST(ProgressBar, EtaComesFromTheProblemRateAndTheMeanProblem) {
  const Progress p = halfway();
  EXPECT_DOUBLE_EQ(problem_remaining_s(p), 8);  // 32 more at 4 per second
  RunClock fresh;  // nothing finished yet: later problems are assumed like this one (16 s)
  EXPECT_DOUBLE_EQ(run_remaining_s(p, fresh), 8 + 2 * 16);
  RunClock measured{30, 10, 1};  // one problem took 10 s
  EXPECT_DOUBLE_EQ(run_remaining_s(p, measured), 8 + 2 * 10);
}

TEST(ProgressBar, TheLineShowsBarRateShareAndSpeedup) {
  const std::string line = format_progress(halfway(), {30, 10, 1}, 10);
  EXPECT_NE(line.find("[2/4] NN 4096x16x4096 screen"), std::string::npos) << line;
  EXPECT_NE(line.find("|#####-----|"), std::string::npos) << line;
  EXPECT_NE(line.find("32/64 4.0/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 8s (run 28s left, 30s so far)"), std::string::npos) << line;
  EXPECT_NE(line.find("compile-wait 25%"), std::string::npos) << line;
  EXPECT_NE(line.find("best 30.0 us = 3.00x cuBLAS"), std::string::npos) << line;
  EXPECT_EQ(line.find("lda="), std::string::npos) << line;
}

TEST(ProgressBar, NothingMeasuredYet) {
  Progress p = halfway();
  p.done = 0;
  p.best_us = 0;
  const std::string line = format_progress(p, {}, 4);
  EXPECT_NE(line.find("|----|"), std::string::npos) << line;
  EXPECT_NE(line.find("best -"), std::string::npos) << line;
}

}  // namespace
}  // namespace sgt
