#include "verify/lt_algorithm_check.hpp"

#include "common/error.hpp"

namespace sgt {

std::vector<LtAlgorithmCheck> check_lt_algorithms(const CublasLtGemm& lt, const CublasLtPlan& plan,
                                                  GemmChecker& checker, cudaStream_t stream,
                                                  std::uint64_t seed) {
  std::vector<LtAlgorithmCheck> out;
  for (int i = 0; i < plan.size(); ++i) {
    LtAlgorithmCheck c;
    c.index = i;
    const GemmFn gemm = [&, i](cudaStream_t s, float al, const float* x, const float* y, float be,
                               float* z) { lt.run(plan, i, s, al, x, y, be, z); };
    try {
      const CheckResult check = checker.check(gemm, seed);
      c.correct = check.passed;
      c.message = check.message;
    } catch (const Error& e) {
      c.message = e.what();
      SGT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace sgt
