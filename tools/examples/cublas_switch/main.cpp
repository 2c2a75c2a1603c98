// Moving from cuBLAS to the tuned dispatcher is one call: cublasSgemm(handle, ...) becomes
// sgemmSgemm(handle, ...) with the same arguments. This program runs both and compares them.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <sgemm_dispatch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call, ok)                                                      \
  do {                                                                       \
    if ((call) != (ok)) {                                                    \
      std::fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call); \
      return 1;                                                              \
    }                                                                        \
  } while (0)

int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 1024, n = argc > 2 ? std::atoi(argv[2]) : 1024,
            k = argc > 3 ? std::atoi(argv[3]) : 1024;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: nothing to run\n");
    return 0;
  }
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n);
  for (auto& x : a) x = static_cast<float>(std::rand()) / RAND_MAX - 0.5f;
  for (auto& x : b) x = static_cast<float>(std::rand()) / RAND_MAX - 0.5f;
  float *da, *db, *dc1, *dc2;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&da), a.size() * 4), cudaSuccess);
  CHECK(cudaMalloc(reinterpret_cast<void**>(&db), b.size() * 4), cudaSuccess);
  CHECK(cudaMalloc(reinterpret_cast<void**>(&dc1), static_cast<size_t>(m) * n * 4), cudaSuccess);
  CHECK(cudaMalloc(reinterpret_cast<void**>(&dc2), static_cast<size_t>(m) * n * 4), cudaSuccess);
  CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  const float alpha = 1.0f, beta = 0.0f;

  // Before: cuBLAS.
  cublasHandle_t cublas;
  CHECK(cublasCreate(&cublas), CUBLAS_STATUS_SUCCESS);
  CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc1, m),
        CUBLAS_STATUS_SUCCESS);

  // After: the dispatcher, same arguments (NULL: $SGEMM_TUNER_DB, then the installed database).
  sgemmHandle_t handle;
  const sgemmStatus_t created = sgemmCreate(&handle, nullptr);
  if (created != SGEMM_STATUS_SUCCESS) {
    std::fprintf(stderr, "sgemmCreate: %s\n", sgemmGetStatusString(created));
    return 1;
  }
  CHECK(sgemmSgemm(handle, SGEMM_OP_N, SGEMM_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc2, m),
        SGEMM_STATUS_SUCCESS);
  char description[512];
  CHECK(sgemmDescribe(handle, SGEMM_OP_N, SGEMM_OP_N, m, n, k, m, k, m, description,
                      sizeof description),
        SGEMM_STATUS_SUCCESS);
  CHECK(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<float> c1(static_cast<size_t>(m) * n), c2(c1.size());
  CHECK(cudaMemcpy(c1.data(), dc1, c1.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  CHECK(cudaMemcpy(c2.data(), dc2, c2.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  double diff = 0, ref = 0;
  for (size_t i = 0; i < c1.size(); ++i) {
    diff += (c1[i] - c2[i]) * static_cast<double>(c1[i] - c2[i]);
    ref += c1[i] * static_cast<double>(c1[i]);
  }
  const double relative = std::sqrt(diff / ref);
  std::printf("%s\nrelative difference to cuBLAS: %.3g\n", description, relative);
  sgemmDestroy(handle);
  cublasDestroy(cublas);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc1);
  cudaFree(dc2);
  return relative < 1e-6 ? 0 : 1;
}
