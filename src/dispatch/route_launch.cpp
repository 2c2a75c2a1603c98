// Enqueuing one call of a resolved route. A kernel that needs no scratch is launched straight
// away: it shares nothing with other calls. Everything else goes through the stream's lane, or,
// while the stream is being captured, through a graph allocation of its own, so that replaying
// the graph (on any stream, beside any other call) never shares scratch with a call outside it.
#include <cublas_v2.h>

#include <algorithm>

#include "common/error.hpp"
#include "cuda/capture_mode.hpp"
#include "dispatch/context.hpp"
#include "sgemm_args.h"

namespace sgt {
namespace {

SgemmArgs kernel_args(const GemmCall& call, float* workspace) {
  return problem_args(call.key, call.a, call.b, call.c, workspace, call.alpha, call.beta);
}

cublasOperation_t cublas_op(Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

}  // namespace

void DeviceState::cublas_sgemm(cublasHandle_t handle, const GemmCall& call) {
  const ProblemKey& p = call.key;
  SGT_CUBLAS_CHECK(cublasSgemm(handle, cublas_op(p.transa), cublas_op(p.transb), p.m, p.n, p.k,
                               &call.alpha, call.a, p.lda, call.b, p.ldb, &call.beta, call.c,
                               p.ldc));
}

void DeviceState::run(const Route* route, cudaStream_t stream, const GemmCall& call) {
  if (route && route->trial) {  // tuning on use (on_use_routes.cpp)
    run_trial(*route, stream, call);
    return;
  }
  if (route && route->kernel && route->scratch_bytes == 0) {
    route->kernel->launch(route->geometry, kernel_args(call, nullptr), stream);
    return;
  }
  if (is_capturing(stream))
    run_captured(route, stream, call);
  else
    run_in_lane(route, stream, call);
}

void DeviceState::run_in_lane(const Route* route, cudaStream_t stream, const GemmCall& call) {
  StreamLane::Hold lane(lanes_.of(stream), stream);
  if (route && (route->kernel || route->lt_plan)) {
    // Without memory for the scratch this call goes to cuBLAS; the next one tries again.
    if (const std::optional<Scratch> s = lane.scratch(route->scratch_bytes)) {
      if (route->kernel)
        route->kernel->launch(route->geometry, kernel_args(call, s->kernel_workspace()), stream);
      else
        lt_->run(*route->lt_plan, 0, stream, call.alpha, call.a, call.b, call.beta, call.c,
                 s->library_workspace(), s->library_bytes());
      return;
    }
  }
  cublas_sgemm(lane.cublas(), call);
}

void DeviceState::run_captured(const Route* route, cudaStream_t stream, const GemmCall& call) {
  const bool own = route && (route->kernel || route->lt_plan);
  const std::size_t bytes =
      std::max(kTileCounterBytes, own ? route->scratch_bytes
                                      : kTileCounterBytes + cublas_workspace_bytes(compute_major_));
  // Captured as an allocation node and a free node: the graph owns this memory.
  void* block = nullptr;
  SGT_CUDA_CHECK(cudaMallocAsync(&block, bytes, stream));
  const Scratch s{block, bytes};
  if (route && route->kernel) {
    SGT_CUDA_CHECK(cudaMemsetAsync(block, 0, kTileCounterBytes, stream));
    route->kernel->launch(route->geometry, kernel_args(call, s.kernel_workspace()), stream);
  } else if (own) {
    lt_->run(*route->lt_plan, 0, stream, call.alpha, call.a, call.b, call.beta, call.c,
             s.library_workspace(), s.library_bytes());
  } else {
    std::lock_guard lock(capture_mutex_);
    if (!capture_cublas_) {
      const RelaxedCaptureMode relaxed;  // cublasCreate allocates
      capture_cublas_ = std::make_unique<CublasHandle>(false);
    }
    const cublasHandle_t h = capture_cublas_->get();
    SGT_CUBLAS_CHECK(cublasSetStream(h, stream));
    SGT_CUBLAS_CHECK(cublasSetWorkspace(h, s.library_workspace(), s.library_bytes()));
    cublas_sgemm(h, call);
  }
  SGT_CUDA_CHECK(cudaFreeAsync(block, stream));
}

}  // namespace sgt
