// Unprivileged SM clock reading: the first thread to run on SM 0 records %globaltimer (ns) and
// clock64() at a globaltimer tick, spins window_ns, and records both again at a later tick.
// f = d clock64 / d globaltimer, within one launch or between two launches (same SM's counter).

struct ClockProbeSlot {
  unsigned long long claim;    // highest sequence number that claimed this slot
  unsigned long long seq;      // sequence number of the launch that wrote the stamps below
  unsigned long long t_start;  // globaltimer, ns
  unsigned long long c_start;  // clock64 of SM 0, cycles
  unsigned long long t_end;
  unsigned long long c_end;
  unsigned long long pad[2];
};

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Launch with at least one block per SM; only one block on SM 0 does the work.
extern "C" __global__ void clock_probe(ClockProbeSlot* slot, unsigned long long seq,
                                       unsigned long long window_ns) {
  if (threadIdx.x != 0 || sm_id() != 0) return;
  if (atomicMax(&slot->claim, seq) >= seq) return;  // another block on SM 0 got it first
  // Guard against a timer that does not advance: give up after ~2^31 cycles (about 1 s).
  const long long give_up = clock64() + (1LL << 31);
  const unsigned long long t_prev = global_ns();
  unsigned long long t0;
  long long c0;
  do {
    t0 = global_ns();
    c0 = clock64();
  } while (t0 == t_prev && c0 < give_up);
  unsigned long long t1;
  long long c1;
  do {
    t1 = global_ns();
    c1 = clock64();
  } while (t1 - t0 < window_ns && c1 < give_up);
  const bool ok = c1 < give_up;
  slot->t_start = t0;
  slot->c_start = static_cast<unsigned long long>(c0);
  slot->t_end = t1;
  slot->c_end = static_cast<unsigned long long>(c1);
  __threadfence();
  slot->seq = ok ? seq : 0;
}
