// Test-only kernels that misbehave on purpose, to prove the tuner's crash isolation: FAULT 1
// writes far out of bounds (a sticky illegal-address error), FAULT 2 never finishes.
// Registered only in the test build sgemm-tune-test-families (test_faults_family.cpp).
#include "sgemm_args.h"

#ifndef FAULT
#define FAULT 1
#endif

extern "C" __global__ void sgemm_main(SgemmArgs args) {
#if FAULT == 1
  args.c[(unsigned long long)1 << 40] = 1.0f;
#else
  volatile int spin = 1;
  while (spin) __nanosleep(1000);
#endif
}
