// Sizing of the rotating operand sets (pure) and the cache settings of configs/measure.yaml.
#include "measure/operand_rotation.hpp"

#include <gtest/gtest.h>

#include <cstddef>

#include "common/error.hpp"
#include "config/tuning_settings.hpp"

namespace sgt {
namespace {

constexpr long long kL2 = 60LL << 20;  // H200: 60 MiB
constexpr std::size_t kNoCap = std::size_t(1) << 40;

TEST(RotationPlan, CopiesCoverThreeTimesTheL2) {
  // 4096 x 16 x 4096: A 64 MiB + B 256 KiB + C 256 KiB.
  const std::size_t set = (4096u * 4096 + 4096 * 16 + 4096 * 16) * 4;
  const RotationPlan p = plan_rotation(set, kL2, kNoCap);
  EXPECT_EQ(p.copies, 3);  // ceil(180 MiB / 64.5 MiB)
  EXPECT_EQ(p.set_bytes, set);
  EXPECT_EQ(p.total_bytes, 3 * set);
  EXPECT_GE(p.total_bytes, static_cast<std::size_t>(3 * kL2));
  EXPECT_FALSE(p.capped);
}

TEST(RotationPlan, SmallProblemsGetManyCopies) {
  const std::size_t set = 3 * 64 * 64 * 4;  // 64^3: 48 KiB
  const RotationPlan p = plan_rotation(set, kL2, kNoCap);
  EXPECT_EQ(p.copies, 3840);  // exactly 3 x L2
  EXPECT_EQ(p.total_bytes, static_cast<std::size_t>(3 * kL2));
  // One byte more per set: still at least 3 x L2 (rounded up, not down).
  const RotationPlan q = plan_rotation(set + 1, kL2, kNoCap);
  EXPECT_EQ(q.copies, 3840);
  EXPECT_GE(q.total_bytes, static_cast<std::size_t>(3 * kL2));
  EXPECT_LT(plan_rotation(set - 1, kL2, kNoCap).copies * (set - 1) - 3 * kL2, set);
}

TEST(RotationPlan, TinyProblemsAreCappedInSetsAndSaySo) {
  const RotationPlan p = plan_rotation(12, kL2, kNoCap);  // 1x1x1: millions of sets wanted
  EXPECT_EQ(p.copies, kMaxRotationSets);
  EXPECT_EQ(p.total_bytes, 12u * kMaxRotationSets);
  EXPECT_TRUE(p.capped);
}

TEST(RotationPlan, AtLeastOneExtraSetEvenWhenOneExceedsTheL2) {
  const RotationPlan p = plan_rotation(std::size_t(1) << 30, kL2, kNoCap);  // 1 GiB per set
  EXPECT_EQ(p.copies, 2);
  EXPECT_FALSE(p.capped);
  EXPECT_EQ(plan_rotation(3 * kL2, kL2, kNoCap).copies, 2);  // exactly 3 x L2 in one set
  EXPECT_EQ(plan_rotation(1000, 0, kNoCap).copies, 2);       // no L2 reported
}

TEST(RotationPlan, TheMemoryCapLimitsTheCopiesAndSaysSo) {
  const std::size_t set = 16u << 20;  // 16 MiB: 12 copies wanted
  EXPECT_EQ(plan_rotation(set, kL2, kNoCap).copies, 12);
  const RotationPlan p = plan_rotation(set, kL2, 100u << 20);  // room for 6
  EXPECT_EQ(p.copies, 6);
  EXPECT_TRUE(p.capped);
  EXPECT_LE(p.total_bytes, std::size_t(100) << 20);
  // A cap that still allows the full footprint is not "capped".
  EXPECT_FALSE(plan_rotation(set, kL2, 12 * set).capped);
}

TEST(RotationPlan, NotEvenTwoSetsUnderTheCapMeansNoRotation) {
  const RotationPlan p = plan_rotation(std::size_t(1) << 30, kL2, std::size_t(3) << 29);
  EXPECT_EQ(p.copies, 0);
  EXPECT_EQ(p.total_bytes, 0u);
  EXPECT_TRUE(p.capped);
  EXPECT_EQ(plan_rotation(0, kL2, kNoCap).copies, 0);  // nothing to rotate
}

TEST(CacheSetting, DefaultIsColdFlushAndRotateParses) {
  EXPECT_EQ(MeasureSettings{}.cache, CacheMode::cold_flush);
  const TuningSettings s = parse_tuning_settings("cache: rotate\nrotate_max_mib: 512\n", "m.yaml");
  EXPECT_EQ(s.measure.cache, CacheMode::rotate);
  EXPECT_DOUBLE_EQ(s.measure.rotate_max_mib, 512);
  EXPECT_EQ(parse_tuning_settings("cache: cold-flush\n", "m.yaml").measure.cache,
            CacheMode::cold_flush);
}

TEST(CacheSetting, UnknownModeIsAnErrorWithFileAndLine) {
  try {
    parse_tuning_settings("min_samples: 10\ncache: warm\n", "m.yaml");
    FAIL() << "cache: warm must be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_value);
    EXPECT_NE(std::string(e.what()).find("m.yaml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rotate"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_tuning_settings("rotate_max_mib: -1\n", "m.yaml"), Error);
}

}  // namespace
}  // namespace sgt
