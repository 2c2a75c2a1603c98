// Programmatic dependent launch (sm_90): the host enqueues a call's second kernel (sgemm_main
// after sgemm_pack, sgemm_reduce after sgemm_main) with the programmatic stream serialization
// attribute, so that its blocks are resident and waiting when the first kernel's last block
// ends, instead of being launched only then. Both are no-ops below sm_90 and for a kernel
// launched without the attribute.
#pragma once

// Lets the kernel enqueued behind this one start once every block of this one has called it.
// The dependent still waits for this kernel's end in wait_for_prior_grid before it reads.
__device__ __forceinline__ void allow_dependent_launch() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Returns when the kernel this one was enqueued behind has ended and its writes are visible.
__device__ __forceinline__ void wait_for_prior_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
