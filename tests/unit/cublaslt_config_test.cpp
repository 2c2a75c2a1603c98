// The text a "cublaslt" winner stores: cuBLASLt's opaque algorithm survives the round trip bit for
// bit, and a text without a well-formed algo= field is rejected (the dispatcher then uses cuBLAS).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "cuda/cublaslt_gemm.hpp"

namespace sgt {
namespace {

cublasLtMatmulAlgo_t patterned() {
  cublasLtMatmulAlgo_t algo{};
  for (std::size_t i = 0; i < sizeof algo.data / sizeof algo.data[0]; ++i)
    algo.data[i] = 0x0123456789abcdefull * (i + 1) ^ (0xffull << (8 * i));
  return algo;
}

TEST(CublasLtConfig, AlgorithmRoundTripsBitForBit) {
  const cublasLtMatmulAlgo_t algo = patterned();
  const std::string config = lt_algorithm_config(algo);
  // Readable fields first, the opaque structure last, no spaces (a config is one CSV field).
  EXPECT_EQ(config.rfind("id=", 0), 0u) << config;
  EXPECT_NE(config.find(",algo="), std::string::npos) << config;
  EXPECT_EQ(config.find(' '), std::string::npos) << config;
  EXPECT_EQ(config.size() - config.find(",algo=") - 6, 128u) << config;
  const cublasLtMatmulAlgo_t back = parse_lt_algorithm_config(config);
  EXPECT_EQ(std::memcmp(&algo, &back, sizeof algo), 0);
}

TEST(CublasLtConfig, MalformedAlgorithmFieldsAreRejected) {
  const std::string good = lt_algorithm_config(patterned());
  const std::string hex = good.substr(good.find(",algo=") + 6);
  for (const std::string& bad :
       {std::string(""), std::string("id=21,tile=18"), "algo=" + hex.substr(1),  // 127 digits
        "algo=" + hex + "0",                                                     // 129 digits
        "algo=" + hex.substr(0, 127) + "g",                                      // not hex
        "xalgo=" + hex}) {                                                       // another field
    try {
      parse_lt_algorithm_config(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_value) << bad;
      EXPECT_NE(std::string(e.what()).find("algo="), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(parse_lt_algorithm_config("algo=" + hex));
}

// The split counts worth timing: a grid that fills its last wave to 85% or more and makes at
// least 0.85 of one wave, fewest splits first, at most `count`.
TEST(CublasLtConfig, SplitCountsFillTheirWaves) {
  const std::vector<LtSplitTrial> trials = {{2, 0.30f},  {4, 0.61f},  {8, 1.21f},  {12, 1.82f},
                                            {16, 2.42f}, {24, 3.64f}, {32, 4.85f}, {6, 0.91f},
                                            {48, 7.2f},  {64, 9.70f}};
  // 6 (0.91 of one wave), 12 (1.82 of 2), 24 (3.64 of 4), 32 (4.85 of 5), 48 (7.2 of 8) and 64
  // (9.70 of 10) qualify; 2 and 4 (under one wave), 8 (1.21 of 2) and 16 (2.42 of 3) do not.
  EXPECT_EQ(choose_split_counts(trials, 8), (std::vector<int>{6, 12, 24, 32, 48, 64}));
  EXPECT_EQ(choose_split_counts(trials, 2), (std::vector<int>{6, 12}));
  EXPECT_TRUE(choose_split_counts(trials, 0).empty());
  EXPECT_TRUE(choose_split_counts({{2, 0.5f}, {3, 1.4f}}, 4).empty());
  EXPECT_EQ(choose_split_counts({{3, 1.0f}, {3, 1.0f}}, 4), (std::vector<int>{3}));
}

// Configurations beyond the heuristic's list: unsplit first, then by split count; within a count
// in the heuristic's order of ids, then cuBLASLt's order of tiles and stages; at most `count`.
TEST(CublasLtConfig, ConfigurationsUnsplitFirstInTheHeuristicsOrder) {
  const std::vector<LtConfigTrial> trials = {{4, 0, 1}, {1, 1, 1}, {2, 0, 2},  {1, 0, 2},
                                             {1, 0, 1}, {2, 1, 1}, {64, 0, 1}, {1, 1, 0}};
  EXPECT_EQ(choose_configurations(trials, 8), (std::vector<std::size_t>{4, 3, 7, 1, 2, 5, 0, 6}));
  EXPECT_EQ(choose_configurations(trials, 3), (std::vector<std::size_t>{4, 3, 7}));
  EXPECT_TRUE(choose_configurations(trials, 0).empty());
  EXPECT_TRUE(choose_configurations(trials, -1).empty());
  EXPECT_TRUE(choose_configurations({}, 4).empty());
}

}  // namespace
}  // namespace sgt
