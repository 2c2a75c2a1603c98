// A kernel family: one template in kernel_templates/<name>.cu plus the host-side facts about it
// (its knobs, the constraints that prune them, which problems it can run and how to launch it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "space/knobs.hpp"
#include "space/operand_pack.hpp"
#include "space/problem.hpp"

namespace sgt {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// An operand tile a TMA-fed kernel (F2) loads by cp.async.bulk.tensor: the launch encodes a 2-D
// tensor map for it (src/cuda/tensor_map.hpp) and passes it after SgemmArgs. Sizes in floats.
struct TmaTile {
  bool used = false;
  bool k_inner = false;    // the operand is K-contiguous (its inner global dimension is K)
  unsigned box_inner = 0;  // box extent along the inner (contiguous) dimension
  unsigned box_outer = 0;
  unsigned swizzle_bytes = 0;  // 0 (none), 32, 64 or 128: must equal box_inner * 4 when set
};

// An operand a launch reads under a streaming L2 access-policy window (EVICT = 1 of F1 and F4's
// ring): its lines are evicted first, so streaming it once does not push out, and write back, what
// L2 already holds. bytes: its extent from its pointer.
struct L2StreamedOperand {
  enum class Which { none, a, b } which = Which::none;
  std::size_t bytes = 0;

  // Operand A or B of p, over its whole extent.
  static L2StreamedOperand of(bool a, const ProblemKey& p) {
    return {a ? Which::a : Which::b,
            4 * static_cast<std::size_t>(a ? elements_a(p) : elements_b(p))};
  }
};

// How to launch one configuration on one problem. Packed operands are copied first; sgemm_main
// always runs; sgemm_reduce runs after it when has_reduce (split-K); all on the same stream.
struct LaunchGeometry {
  Dim3 grid, block;
  unsigned smem_bytes = 0;  // dynamic shared memory of sgemm_main, bytes
  int k_splits = 1;
  int k_slice = 0;  // K elements per split (0: all of K)
  bool has_reduce = false;
  Dim3 reduce_grid, reduce_block;
  std::size_t workspace_floats = 0;  // device workspace the launch needs, in floats
  int tile_m = 0, tile_n = 0;        // C elements one block computes, rows x columns (cost model)
  bool c_sector_windows = false;     // C stored in sector-aligned windows (F1's CWIN)
  // An operand of stream_floats read stream_passes times by blocks that do not run together
  // (F4: its streamed operand, once per tile of the small dimension; cost model).
  double stream_floats = 0;
  int stream_passes = 1;
  // The streamed operand is copied in vectors narrower than 16 bytes (F4 below alignment class 4
  // without windows; cost model).
  bool narrow_stream = false;
  L2StreamedOperand l2_streamed;
  TmaTile tma_a, tma_b;          // both used, or neither
  PackedOperand pack_a, pack_b;  // copies in the workspace, after the rest (transposed: either)
};

// Device limits the constraints are checked against (from DeviceInfo, or sm_90 defaults).
struct DeviceLimits {
  int cc = 90;
  int sm_count = 132;
  int max_threads_per_block = 1024;
  int smem_optin_bytes = 232448;  // 227 KB
  int regs_per_sm = 65536;
  int max_regs_per_thread = 255;
  static constexpr int kSmemReservedPerBlock =
      1024;  // bytes an SM keeps per resident block (sm_80+)

  // An SM's schedulers, each with a quarter of the register file.
  static constexpr int kSubPartitions = 4;

  // The registers per thread __launch_bounds__(threads, blocks) leaves. A block's warps go round
  // the four sub-partitions, each holding the registers of its own warps, allocated 8 per thread
  // at a time: 2 blocks of 9 warps put 5 on one sub-partition, leaving 96, not 113.
  std::int64_t register_cap(int threads, int blocks) const {
    const int warps = std::max(1, (threads + 31) / 32 * blocks);
    const int per_partition = (warps + kSubPartitions - 1) / kSubPartitions;
    return regs_per_sm / kSubPartitions / (32 * per_partition) / 8 * 8;
  }
  // Whether `blocks` resident blocks of `smem_bytes` each fit one SM's shared memory.
  bool smem_fits_blocks(int blocks, std::int64_t smem_bytes) const {
    return blocks * (smem_bytes + kSmemReservedPerBlock) <=
           smem_optin_bytes + kSmemReservedPerBlock;
  }
};

struct Constraint {
  std::string name;  // "threads_in_range"
  std::function<bool(const Knobs&)> holds;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string name() const = 0;  // "f1_simt": also the template's file stem
  virtual std::vector<std::string> knob_names() const = 0;
  // Named predicates over the knobs; a configuration is valid when every one holds.
  virtual std::vector<Constraint> constraints(const DeviceLimits& limits) const = 0;
  // Empty when this configuration can run the problem; else why not (alignment, transposes...).
  virtual std::string cannot_implement(const Knobs& knobs, const ProblemKey& p) const = 0;
  // NVRTC -D definitions: the knobs plus problem-class macros (TRANS_A, TRANS_B, ALIGN).
  virtual std::vector<std::string> defines(const Knobs& knobs, const ProblemKey& p) const = 0;
  // The launch on `device`: grids sized in waves (F2's stream-K, F4's splits) count its SMs.
  virtual LaunchGeometry geometry(const Knobs& knobs, const ProblemKey& p,
                                  const DeviceLimits& device) const = 0;
  // Smaller is simpler; a timing tie goes to the simpler configuration.
  virtual int complexity(const Knobs& knobs) const = 0;
  // Knobs added after configurations were first stored, each with the value a stored
  // configuration without it reads as.
  virtual Knobs knobs_added_later() const { return {}; }
};

// Every registered family, in a fixed order: the built-in ones, then those a program added with
// register_family before its first call of families() (the tests' deliberately faulty family).
const std::vector<const Family*>& families();
bool register_family(const Family& family);  // returns true, for use in a static initializer
// The family of that name; throws sgt::Error(invalid_value) when there is none.
const Family& find_family(std::string_view name);

// A stored configuration with the knobs added after it was stored filled in as it reads them:
// comparable with the configurations of today's space.
Knobs with_knobs_added_later(const Family& family, Knobs stored);

// The first constraint that fails, or empty when the configuration is valid.
std::string failed_constraint(const Family& family, const Knobs& knobs, const DeviceLimits& limits);

}  // namespace sgt
