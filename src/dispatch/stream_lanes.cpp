// Scratch is allocated with the stream-ordered allocator on the lane's own stream: growing it
// never waits, and the block it replaces is freed behind the calls that may still use it.
#include "dispatch/stream_lanes.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "cuda/capture_mode.hpp"

namespace sgt {
namespace {

constexpr std::size_t kScratchGranule = std::size_t(1) << 20;  // grow in whole MiB

std::size_t round_up(std::size_t bytes, std::size_t granule) {
  return (bytes + granule - 1) / granule * granule;
}

}  // namespace

std::size_t cublas_workspace_bytes(int compute_major) {
  return compute_major >= 9 ? std::size_t(32) << 20 : std::size_t(4) << 20;
}

StreamLane::StreamLane(std::uint64_t stream_id, bool shared, int compute_major)
    : stream_id_(stream_id),
      shared_(shared),
      cublas_workspace_bytes_(cublas_workspace_bytes(compute_major)) {
  if (shared_) SGT_CUDA_CHECK(cudaEventCreateWithFlags(&last_call_, cudaEventDisableTiming));
}

StreamLane::~StreamLane() {
  cublas_.reset();
  if (last_call_) cudaEventDestroy(last_call_);
  if (scratch_.base) {
    // The device is idle (StreamLanes' destructor waited), so any stream may order the free.
    cudaStream_t s = nullptr;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess) {
      cudaFreeAsync(scratch_.base, s);
      cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    }
  }
}

StreamLane::Hold::Hold(StreamLane& lane, cudaStream_t stream)
    : lane_(lane), stream_(stream), lock_(lane.mutex_) {
  if (lane_.shared_ && lane_.last_call_recorded_)
    SGT_CUDA_CHECK(cudaStreamWaitEvent(stream_, lane_.last_call_, 0));
}

StreamLane::Hold::~Hold() {
  // Best effort in a destructor: if the record fails, the next call on the shared lane waits on
  // the previous record, which is still an event of an earlier call of the chain.
  if (lane_.shared_ && cudaEventRecord(lane_.last_call_, stream_) == cudaSuccess)
    lane_.last_call_recorded_ = true;
}

std::optional<Scratch> StreamLane::Hold::scratch(std::size_t bytes) {
  Scratch& s = lane_.scratch_;
  bytes = std::max(bytes, kTileCounterBytes);
  if (bytes <= s.bytes) return s;
  const std::size_t grown = round_up(bytes, kScratchGranule);
  void* block = nullptr;
  if (const cudaError_t e = cudaMallocAsync(&block, grown, stream_); e != cudaSuccess) {
    if (e != cudaErrorMemoryAllocation) SGT_CUDA_CHECK(e);
    cudaGetLastError();  // an allocation refused is not an error of later calls
    return std::nullopt;
  }
  SGT_CUDA_CHECK(cudaMemsetAsync(block, 0, kTileCounterBytes, stream_));
  if (s.base) SGT_CUDA_CHECK(cudaFreeAsync(s.base, stream_));
  s = {block, grown};
  return s;
}

cublasHandle_t StreamLane::Hold::cublas() {
  if (!lane_.cublas_) {
    const RelaxedCaptureMode relaxed;  // cublasCreate allocates
    lane_.cublas_ = std::make_unique<CublasHandle>(false);
    lane_.cublas_bound_ = false;
  }
  const cublasHandle_t h = lane_.cublas_->get();
  const bool rebind = !lane_.cublas_bound_ || lane_.cublas_stream_ != stream_;
  if (rebind) {
    SGT_CUBLAS_CHECK(cublasSetStream(h, stream_));  // also resets the handle's workspace
    lane_.cublas_stream_ = stream_;
  }
  const std::optional<Scratch> s = scratch(kTileCounterBytes + lane_.cublas_workspace_bytes_);
  void* workspace = s ? s->library_workspace() : nullptr;
  if (rebind || workspace != lane_.cublas_workspace_) {
    // The recommended size, not all the scratch that earlier own routes grew: cuBLAS picks its
    // algorithm by the workspace it gets, so the route must not depend on the calls before it
    // (NN 3548x1167x2195 after the sweep's other routes: 510 us; alone: as a default handle).
    SGT_CUBLAS_CHECK(cublasSetWorkspace(h, workspace, s ? lane_.cublas_workspace_bytes_ : 0));
    lane_.cublas_workspace_ = workspace;
    lane_.cublas_bound_ = true;
  }
  return h;
}

StreamLanes::~StreamLanes() {
  const bool any =
      std::any_of(lanes_.begin(), lanes_.end(), [](const auto& l) { return l->holds_scratch(); }) ||
      (shared_ && shared_->holds_scratch());
  if (any) cudaDeviceSynchronize();
}

StreamLane& StreamLanes::of(cudaStream_t stream) {
  unsigned long long id = 0;
  SGT_CUDA_CHECK(cudaStreamGetId(stream, &id));
  if (const StreamLane* lane = table_.find(id)) return const_cast<StreamLane&>(*lane);
  std::lock_guard lock(mutex_);
  if (const StreamLane* lane = table_.find(id)) return const_cast<StreamLane&>(*lane);
  if (table_.size() < table_.max_entries()) {
    lanes_.push_back(std::make_unique<StreamLane>(id, false, compute_major_));
    table_.insert(lanes_.back().get());
    return *lanes_.back();
  }
  if (!shared_) shared_ = std::make_unique<StreamLane>(0, true, compute_major_);
  return *shared_;
}

std::size_t StreamLanes::size() {
  std::lock_guard lock(mutex_);
  return lanes_.size() + (shared_ ? 1 : 0);
}

}  // namespace sgt
