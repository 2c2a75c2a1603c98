// UtilityKernels::write_columns, which sgemm-tune bench times as the stores' ceiling: it writes
// every element of a rows x cols matrix at its leading dimension, and nothing between columns or
// past the last one.
#include "verify/utility_kernels.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "support/gpu_support.hpp"

namespace sgt {
namespace {

TEST(UtilityKernels, WriteColumnsWritesTheMatrixAndNothingElse) {
  SGT_SKIP_WITHOUT_GPU();
  auto& env = testing::gpu_env();
  const cudaStream_t s = env.stream.get();
  // An odd ld, an aligned one, one row, one column, pieces of 1024 rows and their remainders.
  for (const auto& [rows, cols, ld] :
       {std::array<int, 3>{5471, 7, 5473}, std::array<int, 3>{1024, 3, 1024},
        std::array<int, 3>{1, 300, 3}, std::array<int, 3>{2049, 1, 2049},
        std::array<int, 3>{37, 2000, 41}}) {
    SCOPED_TRACE(testing::make_problem(Op::N, Op::N, rows, cols, 1).to_string());
    const std::size_t count = static_cast<std::size_t>(ld) * cols + 16;  // a tail past the end
    DeviceBuffer<float> c(count);
    UtilityKernels::poison(s, c.get(), count);
    env.utility.write_columns(s, c.get(), ld, rows, cols, 2.5f);
    std::vector<float> host(count);
    SGT_CUDA_CHECK(cudaMemcpyAsync(host.data(), c.get(), count * sizeof(float),
                                   cudaMemcpyDeviceToHost, s));
    SGT_CUDA_CHECK(cudaStreamSynchronize(s));
    std::size_t written = 0, wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const bool inside = i < static_cast<std::size_t>(ld) * cols && static_cast<int>(i % ld) < rows;
      std::uint32_t bits = 0;
      std::memcpy(&bits, &host[i], sizeof bits);
      if (inside) {
        written += host[i] == 2.5f;
      } else {
        wrong += bits != 0xFFFFFFFFu;  // poisoned, untouched
      }
    }
    EXPECT_EQ(written, static_cast<std::size_t>(rows) * cols);
    EXPECT_EQ(wrong, 0u);
  }
}

}  // namespace
}  // namespace sgt
