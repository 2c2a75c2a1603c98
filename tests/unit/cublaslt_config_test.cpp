// The text a "cublaslt" winner stores: cuBLASLt's opaque algorithm survives the round trip bit for
// bit, and a text without a well-formed algo= field is rejected (the dispatcher then uses cuBLAS).
#include <gtest/gtest.h>

#include <cstring>

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

}  // namespace
}  // namespace sgt
