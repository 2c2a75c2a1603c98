// Shape lists, search spaces and settings files: good input parses, bad input names file:line.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.hpp"
#include "config/search_space.hpp"
#include "config/shape_list.hpp"
#include "config/tuning_settings.hpp"
#include "support/gpu_support.hpp"

namespace sgt {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_value);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(ShapeList, CsvWithOptionalColumns) {
  const auto shapes = parse_shape_csv(
      "# comment\nm,n,k,transa,transb,lda,ldb,ldc,alpha,beta,class\n"
      "100,200,300,T,N,,,,,,small\n64,64,64,N,T,68,,72,2.5,0.5,padded\n",
      "s.csv");
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0].problem.key.transa, Op::T);
  EXPECT_EQ(shapes[0].problem.key.lda, 300);
  EXPECT_EQ(shapes[0].problem.key.ldc, 100);
  EXPECT_EQ(shapes[0].problem.key.align, 4);
  EXPECT_EQ(shapes[0].label, "small");
  EXPECT_EQ(shapes[0].line, 3);
  EXPECT_EQ(shapes[1].problem.key.lda, 68);
  EXPECT_EQ(shapes[1].problem.key.ldb, 64);
  EXPECT_FLOAT_EQ(shapes[1].problem.alpha, 2.5f);
  EXPECT_FLOAT_EQ(shapes[1].problem.beta, 0.5f);
}

TEST(ShapeList, AlignmentClassFollowsLeadingDimensions) {
  const auto shapes = parse_shape_csv("m,n,k\n1023,1025,1027\n", "s.csv");
  EXPECT_EQ(shapes[0].problem.key.align, 1);
}

TEST(ShapeList, BadInputNamesTheLine) {
  EXPECT_NE(error_of([] { parse_shape_csv("m,n\n1,2\n", "s.csv"); }).find("s.csv:1"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k\n1,2,x\n", "s.csv"); }).find("s.csv:2: k 'x'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k\n1,2,3\n-4,5,6\n", "s.csv"); }).find("s.csv:3"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k\n0,5,6\n", "s.csv"); }).find("positive"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k\n1,2\n", "s.csv"); }).find("fields"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k,colour\n1,2,3,red\n", "s.csv"); }).find("colour"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_shape_csv("m,n,k\n8,8,8\n8,8,8\n", "s.csv");
            }).find("s.csv:3: duplicate of line 2"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k\n65536,65536,16\n", "s.csv"); }).find("2^31"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k,lda\n64,64,64,10\n", "s.csv"); }).find("lda"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k,transa\n4,4,4,X\n", "s.csv"); }).find("s.csv:2"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_csv("m,n,k\n99999999999,1,1\n", "s.csv"); }).find("32-bit"),
            std::string::npos);
}

TEST(ShapeList, Yaml) {
  const auto shapes = parse_shape_yaml(
      "shapes:\n  - {m: 4096, n: 16, k: 4096}\n  - {m: 8, n: 8, k: 8, transb: T}\n", "s.yaml");
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[1].problem.key.transb, Op::T);
  EXPECT_EQ(shapes[1].line, 3);
  EXPECT_NE(error_of([] {
              parse_shape_yaml("shapes:\n  - {m: 4, n: 4}\n", "s.yaml");
            }).find("s.yaml:2: missing value for k"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_yaml("nothing: 1\n", "s.yaml"); }).find("shapes"),
            std::string::npos);
}

TEST(ShapeList, ShippedListsParse) {
  EXPECT_EQ(load_shape_list(testing::source_path("configs/shapes/quick.csv")).size(), 5u);
  EXPECT_EQ(load_shape_list(testing::source_path("configs/shapes/public.csv")).size(), 23u);
  EXPECT_THROW(load_shape_list("/nonexistent/shapes.csv"), Error);
}

TEST(SearchSpace, UnknownKnobsAndBadValuesAreRejected) {
  EXPECT_NE(error_of([] {
              parse_family_space("family: f1_simt\nknobs:\n  COLOUR: [1]\n", "x.yaml");
            }).find("x.yaml:3: family f1_simt has no knob 'COLOUR'"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { parse_family_space("family: nope\nknobs: {}\n", "x.yaml"); }).find("x.yaml:1"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              parse_family_space("family: f1_simt\nknobs:\n  BM: [a]\n", "x.yaml");
            }).find("not an integer"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_family_space("family: f1_simt\nknobs:\n  BM: [64]\n", "x.yaml");
            }).find("has no values"),
            std::string::npos);
}

// A file written before a knob existed reads it at the value stored configurations without it
// take (Family::knobs_added_later); every other knob must be given.
TEST(SearchSpace, KnobsAddedLaterTakeTheirStoredDefaultWhenAbsent) {
  const std::string all_but_evict =
      "family: f4_skinny\nknobs:\n  BS: [16]\n  TS: [16]\n  TG: [4]\n  WARPS: [8]\n  KSL: [4]\n"
      "  BK: [32]\n  STAGES: [3]\n  SPLITK: [1]\n  OCC: [8]\n  DIRECT: [0]\n  PF: [0]\n"
      "  REDUCE: [1]\n";
  const FamilySpace space = parse_family_space(all_but_evict, "old.yaml");
  const auto evict = std::find_if(space.knobs.begin(), space.knobs.end(),
                                  [](const auto& k) { return k.first == "EVICT"; });
  ASSERT_NE(evict, space.knobs.end());
  EXPECT_EQ(evict->second, std::vector<int>{0});
  const auto reduce = std::find_if(space.knobs.begin(), space.knobs.end(),
                                   [](const auto& k) { return k.first == "REDUCE"; });
  ASSERT_NE(reduce, space.knobs.end());
  EXPECT_EQ(reduce->second, std::vector<int>{1});  // given in the file: kept
  // PF was there from the start: leaving it out is still an error.
  std::string without_pf = all_but_evict;
  without_pf.erase(without_pf.find("  PF: [0]\n"), 10);
  EXPECT_NE(
      error_of([&] { parse_family_space(without_pf, "x.yaml"); }).find("knob PF has no values"),
      std::string::npos);
}

TEST(SearchSpace, DefaultSpacesEnumerateAndPrune) {
  const SearchSpace space = load_search_space(testing::source_path("configs/spaces"));
  // Every family has a default space, possibly over several files (f2_tma_split_k.yaml).
  for (const Family* f : families())
    EXPECT_TRUE(std::any_of(space.families.begin(), space.families.end(),
                            [&](const FamilySpace& s) { return s.family == f; }))
        << f->name();
  const Enumeration e = enumerate(space, DeviceLimits{});
  EXPECT_GT(e.valid.size(), 0u);
  for (const Candidate& c : e.valid)
    EXPECT_EQ(failed_constraint(*c.family, c.knobs, DeviceLimits{}), "");
}

TEST(TuningSettings, ParsesAndRejectsUnknownKeys) {
  const TuningSettings s =
      parse_tuning_settings("min_samples: 20\ntolerance_factor: 8\nclock_policy: lock\n", "m.yaml");
  EXPECT_EQ(s.measure.min_samples, 20);
  EXPECT_DOUBLE_EQ(s.verify.tolerance_factor, 8);
  EXPECT_EQ(s.measure.clock_policy, ClockPolicy::lock);
  EXPECT_NE(
      error_of([] {
        parse_tuning_settings("min_samples: 20\nclock_policy: maybe\n", "m.yaml");
      }).find("m.yaml:2: setting 'clock_policy' has an invalid value 'maybe' (observe or lock)"),
      std::string::npos);
  EXPECT_NE(error_of([] { parse_tuning_settings("min_sample: 20\n", "m.yaml"); }).find("m.yaml:1"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_tuning_settings("min_samples: many\n", "m.yaml");
            }).find("invalid value"),
            std::string::npos);
  EXPECT_NO_THROW(load_tuning_settings(testing::source_path("configs/measure.yaml")));
}

// The screening cuts are 0 (off) or a factor of at least 1 over the fastest so far: below 1 they
// would stop the candidates that are faster.
TEST(TuningSettings, ScreeningCutsAreOffOrAtLeastOne) {
  EXPECT_DOUBLE_EQ(
      parse_tuning_settings("screen_drop_factor: 1.1\n", "m.yaml").measure.screen_drop_factor, 1.1);
  EXPECT_DOUBLE_EQ(
      parse_tuning_settings("screen_reject_factor: 0\n", "m.yaml").measure.screen_reject_factor, 0);
  for (const char* text : {"screen_drop_factor: 0.9\n", "screen_reject_factor: 0.5\n"})
    EXPECT_NE(
        error_of([&] { parse_tuning_settings(text, "m.yaml"); }).find("0: off, or at least 1"),
        std::string::npos)
        << text;
}

// configs/measure.yaml says its values are the struct's defaults: a user who runs with the file
// and one who runs without it get the same budgets.
TEST(TuningSettings, ShippedFileHoldsTheDefaults) {
  const MeasureSettings shipped =
      load_tuning_settings(testing::source_path("configs/measure.yaml")).measure;
  const MeasureSettings defaults;
  EXPECT_DOUBLE_EQ(shipped.screen_warmup_ms, defaults.screen_warmup_ms);
  EXPECT_EQ(shipped.screen_samples, defaults.screen_samples);
  EXPECT_DOUBLE_EQ(shipped.screen_max_ms, defaults.screen_max_ms);
  EXPECT_EQ(shipped.screen_min_samples, defaults.screen_min_samples);
  EXPECT_DOUBLE_EQ(shipped.screen_drop_factor, defaults.screen_drop_factor);
  EXPECT_DOUBLE_EQ(shipped.screen_reject_factor, defaults.screen_reject_factor);
  EXPECT_EQ(shipped.min_samples, defaults.min_samples);
  EXPECT_DOUBLE_EQ(shipped.min_time_s, defaults.min_time_s);
  EXPECT_DOUBLE_EQ(shipped.max_noise, defaults.max_noise);
  EXPECT_DOUBLE_EQ(shipped.timeout_s, defaults.timeout_s);
  EXPECT_EQ(shipped.finalists, defaults.finalists);
  EXPECT_EQ(shipped.min_rounds, defaults.min_rounds);
  EXPECT_DOUBLE_EQ(shipped.min_round_time_s, defaults.min_round_time_s);
  EXPECT_EQ(shipped.max_rounds, defaults.max_rounds);
  EXPECT_EQ(shipped.bench_max_rounds, defaults.bench_max_rounds);
  EXPECT_EQ(shipped.clock_policy, defaults.clock_policy);
  EXPECT_EQ(shipped.cache, defaults.cache);
}

}  // namespace
}  // namespace sgt
