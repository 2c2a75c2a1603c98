// What a call may overwrite on the GPU besides C, kept per stream. Calls on one stream run in
// stream order, so a stream's scratch (split-K partial sums and tile counters, packed operands,
// cuBLASLt's and cuBLAS's workspace) is reused by its next call without any wait; calls on two
// streams never share scratch, so they may run at the same time. A lane also serializes the host
// side of the calls on its stream: the kernels of one call stay adjacent on the stream even when
// several threads enqueue on it at once.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cuda/cublas_handle.hpp"
#include "dispatch/published_table.hpp"
#include "sgemm_args.h"

namespace sgt {

// Every scratch block starts with the tile counters of in-kernel split-K (zero between calls);
// our kernels take the whole block as their workspace, whose layout puts the counters first,
// and the libraries get the part after them, so they never write on the counters.
constexpr std::size_t kTileCounterBytes = SGEMM_TILE_COUNTERS * sizeof(unsigned);

struct Scratch {
  void* base = nullptr;
  std::size_t bytes = 0;
  float* kernel_workspace() const { return static_cast<float*>(base); }
  void* library_workspace() const { return static_cast<char*>(base) + kTileCounterBytes; }
  std::size_t library_bytes() const {
    return bytes > kTileCounterBytes ? bytes - kTileCounterBytes : 0;
  }
};

// The workspace cuBLAS recommends (cublasSetWorkspace): 32 MiB on Hopper and later, 4 MiB before.
std::size_t cublas_workspace_bytes(int compute_major);

class StreamLane {
 public:
  // shared: the lane of every stream beyond StreamLanes::kMaxLanes; its calls are chained on the
  // GPU with an event, so they never overlap whatever their streams.
  StreamLane(std::uint64_t stream_id, bool shared, int compute_major);
  ~StreamLane();  // the device must have finished the lane's work (StreamLanes sees to it)
  StreamLane(const StreamLane&) = delete;
  StreamLane& operator=(const StreamLane&) = delete;

  std::uint64_t stream_id() const noexcept { return stream_id_; }
  bool holds_scratch() const noexcept { return scratch_.base != nullptr; }

  // One call's hold on the lane, from before its first enqueue to after its last.
  class Hold {
   public:
    Hold(StreamLane& lane, cudaStream_t stream);
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

    // At least `bytes` of scratch with zero tile counters, grown in stream order (the old block
    // is freed after the work already enqueued); nullopt when the device has no memory for it.
    std::optional<Scratch> scratch(std::size_t bytes);
    // The lane's cuBLAS handle on this stream, with the lane's scratch as its workspace (none
    // when that cannot be allocated: cuBLAS then picks algorithms that need none).
    cublasHandle_t cublas();

   private:
    StreamLane& lane_;
    cudaStream_t stream_;
    std::unique_lock<std::mutex> lock_;
  };

 private:
  std::uint64_t stream_id_;
  bool shared_;
  std::size_t cublas_workspace_bytes_;
  std::mutex mutex_;
  Scratch scratch_;
  std::unique_ptr<CublasHandle> cublas_;
  bool cublas_bound_ = false;  // the handle's stream and workspace are set
  cudaStream_t cublas_stream_ = nullptr;
  void* cublas_workspace_ = nullptr;  // what the handle was last given
  cudaEvent_t last_call_ = nullptr;   // shared lane: the end of its latest call
  bool last_call_recorded_ = false;
};

// The lanes of one device, found by the stream's unique id (cudaStreamGetId: also tells the
// per-thread default streams apart, and a new stream at a destroyed one's address from it).
class StreamLanes {
 public:
  static constexpr std::size_t kMaxLanes = 64;

  explicit StreamLanes(int compute_major) : compute_major_(compute_major) {}
  ~StreamLanes();  // waits for the device once if any lane holds scratch, then frees it all
  StreamLanes(const StreamLanes&) = delete;
  StreamLanes& operator=(const StreamLanes&) = delete;

  // Lock-free once the stream has its lane; the first call on a stream creates it.
  StreamLane& of(cudaStream_t stream);
  std::size_t size();  // lanes created so far, the shared one included

 private:
  struct IdOf {
    std::uint64_t operator()(const StreamLane& l) const noexcept { return l.stream_id(); }
  };
  struct HashId {
    std::uint64_t operator()(std::uint64_t id) const noexcept { return mix64(id); }
  };

  int compute_major_;
  PublishedTable<StreamLane, std::uint64_t, IdOf, HashId> table_{kMaxLanes};
  std::mutex mutex_;  // guards lanes_, shared_ and inserts into table_
  std::vector<std::unique_ptr<StreamLane>> lanes_;
  std::unique_ptr<StreamLane> shared_;
};

}  // namespace sgt
