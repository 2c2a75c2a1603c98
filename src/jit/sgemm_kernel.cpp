// Launching through the driver: arguments are passed as the one SgemmArgs block, followed by
// the operands' tensor maps for TMA-fed kernels. Packed operands are copied into the workspace
// first, by the module's sgemm_pack (or sgemm_pack_transposed) on the same stream; with PACK = 1
// only those TMA cannot address in place at this call's pointers. A call's second kernel is a
// programmatic dependent of its first (kernel_templates/grid_dependency.cuh).
#include "jit/sgemm_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "common/error.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/tensor_map.hpp"

namespace sgt {
namespace {

// sgemm_pack's and sgemm_pack_transposed's parameter, member for member
// (kernel_templates/f2_tma.cu). An operand not copied has no columns: its blocks do nothing.
struct PackedCopy {
  const float* src;
  float* dst;
  int ld, dst_ld, rows, cols;
};

PackedCopy packed_copy(const PackedOperand& packed, float* workspace, const float* src, int ld) {
  if (!copy_needed(packed, src)) return {src, nullptr, ld, 0, 0, 0};
  return {src, workspace + packed.offset_floats, ld, packed.ld, packed.rows, packed.cols};
}

constexpr unsigned kPackThreads = 256;
constexpr std::size_t kPackMaxBlocks = 1024;  // per operand; the loops stride over the rest

// Blocks for one operand's copy: sgemm_pack takes a float4 per thread, sgemm_pack_transposed a
// 32 x 32 tile per block.
unsigned pack_blocks(const PackedOperand& p, const PackedCopy& copy) {
  if (copy.cols == 0) return 0;
  const std::size_t units = p.transposed ? static_cast<std::size_t>((p.rows + 31) / 32) *
                                               static_cast<std::size_t>((p.cols + 31) / 32)
                                         : (p.floats / 4 + kPackThreads - 1) / kPackThreads;
  return static_cast<unsigned>(std::clamp<std::size_t>(units, 1, kPackMaxBlocks));
}

// On unless SGEMM_DEPENDENT_LAUNCH=0, and only where the driver has cuLaunchKernelEx. Read once:
// the tuner and the dispatcher of one process launch the same way.
bool dependent_launch_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("SGEMM_DEPENDENT_LAUNCH");
    return !(env && std::string_view(env) == "0") && driver().cuLaunchKernelEx != nullptr;
  }();
  return on;
}

// The largest access-policy window of the current device, in bytes (0: none), read once per
// device.
std::size_t max_l2_window_bytes() {
  constexpr int kDevices = 64;
  static std::array<std::atomic<long long>, kDevices> cached{};  // 0: not read yet
  int device = 0;
  SGT_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kDevices) return 0;
  long long bytes = cached[device].load(std::memory_order_relaxed);
  if (bytes == 0) {
    int value = 0;
    SGT_CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxAccessPolicyWindowSize, device));
    bytes = value > 0 ? value : -1;
    cached[device].store(bytes, std::memory_order_relaxed);
  }
  return bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
}

// A window over [base, base + bytes) whose L2 lines are evicted first, as far as the device's
// largest window reaches from base; none (bytes 0) without a window or without cuLaunchKernelEx.
struct StreamingWindow {
  const void* base = nullptr;
  std::size_t bytes = 0;
};

StreamingWindow streaming_window(const L2StreamedOperand& x, const SgemmArgs& args) {
  if (x.which == L2StreamedOperand::Which::none || driver().cuLaunchKernelEx == nullptr) return {};
  const void* base = x.which == L2StreamedOperand::Which::a ? static_cast<const void*>(args.a)
                                                            : static_cast<const void*>(args.b);
  return {base, std::min(x.bytes, max_l2_window_bytes())};
}

// One kernel on the stream. dependent: it follows another kernel of the same call, which it
// waits for inside (wait_for_prior_grid), so it may be scheduled before that one ends. window:
// an operand read under a streaming L2 policy.
void enqueue(CUfunction f, Dim3 grid, Dim3 block, unsigned smem, cudaStream_t stream, void** params,
             bool dependent, StreamingWindow window = {}) {
  const DriverApi& api = driver();
  const CUstream s = reinterpret_cast<CUstream>(stream);
  const bool serialize = dependent && dependent_launch_enabled();
  if (!serialize && window.bytes == 0) {
    SGT_CU_CHECK(api.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, s,
                                    params, nullptr));
    return;
  }
  std::array<CUlaunchAttribute, 2> attributes{};
  unsigned count = 0;
  if (serialize) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attributes[count++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (window.bytes > 0) {
    CUaccessPolicyWindow& w = attributes[count].value.accessPolicyWindow;
    attributes[count++].id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
    w.base_ptr = const_cast<void*>(window.base);
    w.num_bytes = window.bytes;
    w.hitRatio = 1.0f;
    w.hitProp = CU_ACCESS_PROPERTY_STREAMING;
    w.missProp = CU_ACCESS_PROPERTY_STREAMING;
  }
  CUlaunchConfig config{.gridDimX = grid.x,
                        .gridDimY = grid.y,
                        .gridDimZ = grid.z,
                        .blockDimX = block.x,
                        .blockDimY = block.y,
                        .blockDimZ = block.z,
                        .sharedMemBytes = smem,
                        .hStream = s,
                        .attrs = attributes.data(),
                        .numAttrs = count};
  SGT_CU_CHECK(api.cuLaunchKernelEx(&config, f, params, nullptr));
}

}  // namespace

SgemmKernel::SgemmKernel(std::string_view cubin) : module_(cubin) {
  main_ = module_.function("sgemm_main");
}

int SgemmKernel::attribute(CUfunction_attribute attr) const {
  int value = 0;
  SGT_CU_CHECK(driver().cuFuncGetAttribute(&value, attr, main_));
  return value;
}

void SgemmKernel::launch(const LaunchGeometry& g, SgemmArgs args, cudaStream_t stream) const {
  const DriverApi& api = driver();
  // Opting in above 48 KB is a per-function attribute; raise it once, the first time it is needed.
  const int needed = static_cast<int>(g.smem_bytes);
  if (needed > smem_limit_.load(std::memory_order_acquire)) {
    std::lock_guard lock(smem_mutex_);
    if (needed > smem_limit_.load(std::memory_order_relaxed)) {
      SGT_CU_CHECK(
          api.cuFuncSetAttribute(main_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, needed));
      smem_limit_.store(needed, std::memory_order_release);
    }
  }
  if ((g.pack_a.used || g.pack_b.used) && !args.workspace)
    throw Error(ErrorKind::internal, "packed operands but no workspace");
  PackedCopy a = packed_copy(g.pack_a, args.workspace, args.a, args.lda);
  PackedCopy b = packed_copy(g.pack_b, args.workspace, args.b, args.ldb);
  const bool packed = a.cols > 0 || b.cols > 0;
  if (packed) {
    const bool transposed = g.pack_a.transposed || g.pack_b.transposed;
    const char* const name = transposed ? "sgemm_pack_transposed" : "sgemm_pack";
    CUfunction& pack = transposed ? pack_transposed_ : pack_;
    std::call_once(transposed ? pack_transposed_once_ : pack_once_,
                   [this, name, &pack] { pack = module_.find_function(name); });
    if (!pack)
      throw Error(ErrorKind::internal,
                  fmt::format("packed operands but the module has no {}", name));
    const unsigned blocks = std::max({pack_blocks(g.pack_a, a), pack_blocks(g.pack_b, b), 1u});
    void* pack_params[] = {&a, &b};
    enqueue(pack, {blocks, 1, 2}, {kPackThreads, 1, 1}, 0, stream, pack_params, false);
    if (a.cols > 0) {
      args.a = a.dst;
      args.lda = a.dst_ld;
    }
    if (b.cols > 0) {
      args.b = b.dst;
      args.ldb = b.dst_ld;
    }
  }
  args.k_splits = g.k_splits;
  args.k_slice = g.k_slice > 0 ? g.k_slice : args.k;
  // The caller's workspace is the whole allocation: the tile counters, then the partial sums
  // (sgemm_args.h). Every split launch uses this layout, so partial sums never overwrite counters.
  args.tile_counters = nullptr;
  if (g.k_splits > 1) {
    if (!args.workspace) throw Error(ErrorKind::internal, "split-K geometry but no workspace");
    args.tile_counters = reinterpret_cast<unsigned*>(args.workspace);
    args.workspace += SGEMM_TILE_COUNTERS;
  }
  CUtensorMap map_a, map_b;
  void* params[] = {&args, &map_a, &map_b};  // sgemm_main(SgemmArgs[, map_a, map_b])
  if (g.tma_a.used) {
    map_a = encode_operand_map(args.a, args.m, args.k, args.lda, g.tma_a);
    map_b = encode_operand_map(args.b, args.n, args.k, args.ldb, g.tma_b);
  }
  enqueue(main_, g.grid, g.block, g.smem_bytes, stream, params, packed,
          streaming_window(g.l2_streamed, args));
  if (g.has_reduce) {
    // Looked up on first need: probing a module without it would report an API error to tools
    // such as compute-sanitizer.
    std::call_once(reduce_once_, [this] { reduce_ = module_.find_function("sgemm_reduce"); });
    if (!reduce_)
      throw Error(ErrorKind::internal, "split-K geometry but the module has no sgemm_reduce");
    enqueue(reduce_, g.reduce_grid, g.reduce_block, 0, stream, params, true);
  }
}

SgemmArgs problem_args(const ProblemKey& p, const float* a, const float* b, float* c,
                       float* workspace, float alpha, float beta) {
  return SgemmArgs{a,     b,     c,     workspace, p.m, p.n, p.k,    p.lda,
                   p.ldb, p.ldc, alpha, beta,      1,   0,   nullptr};
}

}  // namespace sgt
