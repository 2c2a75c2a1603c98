// NVML readings from the fake NVML (tests/support/fake_nvml.cpp) through NvmlTally, the
// Measurement and the tuner's record conversion into the database, and NULL where a reading is
// missing: no library, a query that fails, or a library without the entry point.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "measure/nvml.hpp"
#include "measure/timer.hpp"
#include "tuner/measurement_record.hpp"

#ifndef SGEMM_FAKE_NVML_PATH
#error "SGEMM_FAKE_NVML_PATH must name libsgemm_fake_nvml.so (tests/extra.cmake sets it)"
#endif
#ifndef SGEMM_FAKE_NVML_NO_SENSORS_PATH
#error "SGEMM_FAKE_NVML_NO_SENSORS_PATH must name libsgemm_fake_nvml_no_sensors.so"
#endif

namespace sgt {
namespace {

constexpr const char* kUuid = "GPU-00000000-1111-2222-3333-444444444444";
const char* const kVariables[] = {
    "SGEMM_NVML_LIBRARY",       "SGEMM_FAKE_NVML_LOG",           "SGEMM_FAKE_NVML_REASONS",
    "SGEMM_FAKE_NVML_POWER_MW", "SGEMM_FAKE_NVML_TEMPERATURE_C", "SGEMM_FAKE_NVML_SET_RESULT"};

class NvmlReadings : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVariables) {
      if (const char* old = std::getenv(v)) saved_.emplace_back(v, old);
      unsetenv(v);
    }
    setenv("SGEMM_NVML_LIBRARY", SGEMM_FAKE_NVML_PATH, 1);
    db_path_ = ::testing::TempDir() + "nvml_readings_" + std::to_string(getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db";
    remove_db();
  }
  void TearDown() override {
    remove_db();
    for (const char* v : kVariables) unsetenv(v);
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }
  void remove_db() const {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db_path_ + suffix).c_str());
  }

  // A final measurement whose NVML part comes from two readings of `nvml`, stored as a
  // candidate (final stage and cuBLAS reference) and read back.
  CandidateRecord measure_and_store(const Nvml& nvml, const char* second_power_mw) {
    NvmlTally tally;
    tally.add(nvml.read());
    if (second_power_mw) setenv("SGEMM_FAKE_NVML_POWER_MW", second_power_mw, 1);
    setenv("SGEMM_FAKE_NVML_TEMPERATURE_C", "66", 1);
    tally.add(nvml.read());
    Measurement m;
    m.samples_us = {10.0, 10.2, 10.1};
    m.median_us = 10.1;
    m.min_us = 10.0;
    m.mean_us = 10.1;
    m.sm_clock_mhz = 1950;
    m.sm_clock_min_mhz = 1935;
    m.sm_clock_max_mhz = 1965;
    m.cache = "rotate:4";
    tally.fill(m);

    CandidateRecord c;
    c.problem = with_minimal_leading_dimensions({Op::N, Op::N, 256, 256, 256, 0, 0, 0, 4});
    c.family = "f1_simt";
    c.config = "BM=64";
    c.template_hash = "abc";
    c.final = timing_record(m);
    c.cublas_us = 11.0;
    c.cublas_conditions = measure_conditions(m);
    Database db = Database::open(db_path_, OpenMode::create);
    TuningStore store(db);
    const GpuRecord gpu{"NVIDIA H200", kUuid, "sm_90", 132, 62914560, 1980};
    const SoftwareRecord software{"580", "13.0", "13.0", "13.1"};
    store.record_candidate(0, gpu, software, c);
    const auto rows = store.candidates(c.problem, gpu, software);
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? CandidateRecord{} : rows[0];
  }

  std::string db_path_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(NvmlReadings, PowerTemperatureClockAndReasonsReachTheRecord) {
  setenv("SGEMM_FAKE_NVML_POWER_MW", "401000", 1);
  setenv("SGEMM_FAKE_NVML_TEMPERATURE_C", "63", 1);
  setenv("SGEMM_FAKE_NVML_REASONS", "0x4", 1);
  const Nvml nvml(kUuid, 0);
  ASSERT_TRUE(nvml.available()) << nvml.message();
  const NvmlReading first = nvml.read();
  EXPECT_DOUBLE_EQ(first.power_w.value_or(0), 401.0);
  EXPECT_EQ(first.temperature_c.value_or(0), 63u);

  const CandidateRecord row = measure_and_store(nvml, "403000");
  ASSERT_TRUE(row.final.has_value());
  const MeasureConditions& c = row.final->conditions;
  EXPECT_DOUBLE_EQ(c.power_mw.value_or(0), 402000.0);   // mean of the two readings, mW
  EXPECT_DOUBLE_EQ(c.temperature_c.value_or(0), 66.0);  // the highest
  EXPECT_DOUBLE_EQ(c.nvml_sm_clock_mhz.value_or(0), 1755.0);
  EXPECT_EQ(c.clock_reasons.value_or(0), 0x4u);
  EXPECT_DOUBLE_EQ(c.sm_clock_min_mhz.value_or(0), 1935.0);
  EXPECT_DOUBLE_EQ(c.sm_clock_max_mhz.value_or(0), 1965.0);
  EXPECT_EQ(c.cache, "rotate:4");
  ASSERT_TRUE(row.cublas_conditions.has_value());
  EXPECT_TRUE(*row.cublas_conditions == c);
}

TEST_F(NvmlReadings, AFailingQueryLeavesOnlyItsColumnNull) {
  setenv("SGEMM_FAKE_NVML_POWER_MW", "not_supported", 1);
  const Nvml nvml(kUuid, 0);
  ASSERT_TRUE(nvml.available()) << nvml.message();
  const CandidateRecord row = measure_and_store(nvml, nullptr);
  ASSERT_TRUE(row.final.has_value());
  EXPECT_FALSE(row.final->conditions.power_mw.has_value());
  EXPECT_DOUBLE_EQ(row.final->conditions.temperature_c.value_or(0), 66.0);
  EXPECT_EQ(row.final->conditions.clock_reasons.value_or(99), 0u);  // read, and none set
}

TEST_F(NvmlReadings, MissingEntryPointsTurnThoseReadingsOffWithOneMessage) {
  setenv("SGEMM_NVML_LIBRARY", SGEMM_FAKE_NVML_NO_SENSORS_PATH, 1);
  const Nvml nvml(kUuid, 0);
  ASSERT_TRUE(nvml.available()) << nvml.message();
  EXPECT_NE(nvml.message().find("missing:"), std::string::npos) << nvml.message();
  EXPECT_NE(nvml.message().find("power"), std::string::npos) << nvml.message();
  EXPECT_NE(nvml.message().find("temperature"), std::string::npos) << nvml.message();
  EXPECT_EQ(nvml.message().find('\n'), std::string::npos);
  const NvmlReading r = nvml.read();
  EXPECT_FALSE(r.power_w.has_value());
  EXPECT_FALSE(r.temperature_c.has_value());
  EXPECT_EQ(r.sm_clock_mhz.value_or(0), 1755u);

  const CandidateRecord row = measure_and_store(nvml, "403000");
  ASSERT_TRUE(row.final.has_value());
  EXPECT_FALSE(row.final->conditions.power_mw.has_value());
  EXPECT_FALSE(row.final->conditions.temperature_c.has_value());
  EXPECT_DOUBLE_EQ(row.final->conditions.nvml_sm_clock_mhz.value_or(0), 1755.0);
}

TEST_F(NvmlReadings, WithoutNvmlEveryNvmlColumnIsNull) {
  setenv("SGEMM_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const Nvml nvml(kUuid, 0);
  ASSERT_FALSE(nvml.available());
  const CandidateRecord row = measure_and_store(nvml, "403000");
  ASSERT_TRUE(row.final.has_value());
  const MeasureConditions& c = row.final->conditions;
  EXPECT_FALSE(c.power_mw || c.temperature_c || c.nvml_sm_clock_mhz || c.clock_reasons);
  EXPECT_DOUBLE_EQ(c.sm_clock_min_mhz.value_or(0), 1935.0);  // the probe does not need NVML
  EXPECT_EQ(c.cache, "rotate:4");
}

TEST(NvmlTallyTest, EmptyTallyFillsNothing) {
  NvmlTally tally;
  tally.add(NvmlReading{});
  Measurement m;
  tally.fill(m);
  EXPECT_FALSE(m.nvml);
  EXPECT_FALSE(m.power_mw || m.temperature_c || m.nvml_sm_clock_mhz || m.reasons_seen);
  const MeasureConditions c = measure_conditions(m);
  EXPECT_FALSE(c.sm_clock_min_mhz.has_value());  // 0 in a Measurement: not observed
  EXPECT_EQ(c.cache, "cold-flush");
}

TEST(NvmlTallyTest, ReasonsAreOredAndReturnedPerReading) {
  NvmlTally tally;
  NvmlReading a, b;
  a.reasons = 0x4;
  b.reasons = 0x40;
  b.power_w = 500.0;
  EXPECT_EQ(tally.add(a), 0x4u);
  EXPECT_EQ(tally.add(b), 0x40u);
  Measurement m;
  tally.fill(m);
  EXPECT_TRUE(m.nvml);
  EXPECT_EQ(m.reasons_seen.value_or(0), 0x44u);
  EXPECT_DOUBLE_EQ(m.power_mw.value_or(0), 500000.0);
  EXPECT_FALSE(m.temperature_c.has_value());
}

}  // namespace
}  // namespace sgt
