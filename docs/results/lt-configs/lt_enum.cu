// Experiment: how far cuBLASLt's own configuration space (every algorithm id, tile, stages and
// split-K count cublasLtMatmulAlgoCheck accepts) goes beyond its heuristic's top 8 and cublasSgemm,
// under cold-flush timing. Build: nvcc -O2 -std=c++17 lt_enum.cu -lcublasLt -lcublas -o lt_enum.
// Usage: lt_enum SHAPES.csv [SECONDS_PER_PROBLEM] (rows: transa,transb,m,n,k,lda,ldb,ldc).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define CK(x)                                                                    \
  do {                                                                           \
    auto e_ = (x);                                                               \
    if (e_ != 0) {                                                               \
      std::fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

struct Prob {
  char ta, tb;
  int m, n, k, lda, ldb, ldc;
};

static float* flush_buf;
static const size_t kFlush = 120u << 20;

template <typename F>
float time_once(F&& f, cudaEvent_t e0, cudaEvent_t e1) {
  cudaMemsetAsync(flush_buf, 0, kFlush);
  cudaEventRecord(e0);
  f();
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  return ms * 1000.f;
}
static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Cand {
  cublasLtMatmulAlgo_t algo;
  size_t ws;
  std::string desc;
  float screen = 1e30f, fin = 0;
  bool heuristic = false;
  float waves = 0;
};

static std::string describe(const cublasLtMatmulAlgo_t& a) {
  int32_t id = 0, split = 0;
  uint32_t tile = 0, stages = 0, red = 0, sw = 0;
  size_t w;
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages,
                                       &w);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split, sizeof split,
                                       &w);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red,
                                       &w);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &sw, sizeof sw, &w);
  char buf[128];
  std::snprintf(buf, sizeof buf, "id=%d tile=%u stages=%u split=%d red=%u sw=%u", id, tile, stages,
                split, red, sw);
  return buf;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const double budget = argc > 2 ? std::atof(argv[2]) : 8.0;
  std::vector<Prob> probs;
  std::ifstream in(argv[1]);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || !std::isalpha((unsigned char)line[0])) continue;
    Prob p;
    if (std::sscanf(line.c_str(), "%c,%c,%d,%d,%d,%d,%d,%d", &p.ta, &p.tb, &p.m, &p.n, &p.k, &p.lda,
                    &p.ldb, &p.ldc) == 8)
      probs.push_back(p);
  }
  CK(cudaMalloc(&flush_buf, kFlush));
  cublasHandle_t blas;
  CK(cublasCreate(&blas));
  CK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
  cublasLtHandle_t lt;
  CK(cublasLtCreate(&lt));
  const size_t kWs = 32u << 20;
  void* ws;
  CK(cudaMalloc(&ws, kWs));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::mt19937 rng(7);
  std::printf(
      "problem | cublas_us | lt_top8_us | lt_enum_us | enum/cublas | enum/top8 | valid | screened "
      "| best\n");
  for (const Prob& p : probs) {
    const int ra = p.ta == 'N' ? p.m : p.k, ca = p.ta == 'N' ? p.k : p.m;
    const int rb = p.tb == 'N' ? p.k : p.n, cb = p.tb == 'N' ? p.n : p.k;
    const size_t na = (size_t)p.lda * ca, nb = (size_t)p.ldb * cb, nc = (size_t)p.ldc * p.n;
    std::vector<float> ha(na), hb(nb);
    std::uniform_real_distribution<float> U(-1, 1);
    for (auto& x : ha) x = U(rng);
    for (auto& x : hb) x = U(rng);
    float *a, *b, *c, *cref;
    CK(cudaMalloc(&a, na * 4));
    CK(cudaMalloc(&b, nb * 4));
    CK(cudaMalloc(&c, nc * 4));
    CK(cudaMalloc(&cref, nc * 4));
    CK(cudaMemcpy(a, ha.data(), na * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), nb * 4, cudaMemcpyHostToDevice));
    const float alpha = 1, beta = 0;
    const cublasOperation_t ta = p.ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t tb = p.tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    auto run_blas = [&](float* out) {
      cublasSgemm(blas, ta, tb, p.m, p.n, p.k, &alpha, a, p.lda, b, p.ldb, &beta, out, p.ldc);
    };
    run_blas(cref);
    CK(cudaDeviceSynchronize());

    cublasLtMatmulDesc_t desc;
    CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    cublasLtMatrixLayout_t la, lb, lc;
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, ra, ca, p.lda));
    CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, rb, cb, p.ldb));
    CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, p.m, p.n, p.ldc));
    auto run_lt = [&](const Cand& cd, float* out) {
      return cublasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, out, lc, out, lc, &cd.algo, ws,
                            kWs, 0);
    };

    std::vector<Cand> cands;
    // Heuristic top 8.
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWs,
                                            sizeof kWs));
    cublasLtMatmulHeuristicResult_t hr[8];
    int got = 0;
    cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 8, hr, &got);
    for (int i = 0; i < got; ++i)
      if (hr[i].state == CUBLAS_STATUS_SUCCESS)
        cands.push_back({hr[i].algo, hr[i].workspaceSize, describe(hr[i].algo), 1e30f, 0, true,
                         hr[i].wavesCount});
    const size_t n_heur = cands.size();

    // Enumeration.
    int ids[256], nid = 0;
    cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                             CUDA_R_32F, 256, ids, &nid);
    const int splits[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};
    for (int ii = 0; ii < nid; ++ii) {
      cublasLtMatmulAlgo_t base;
      if (cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                 CUDA_R_32F, CUDA_R_32F, ids[ii], &base) != CUBLAS_STATUS_SUCCESS)
        continue;
      size_t w = 0;
      std::vector<uint32_t> tiles(64), stages(64);
      cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_TILE_IDS, tiles.data(),
                                        tiles.size() * 4, &w);
      tiles.resize(w / 4);
      if (tiles.empty()) tiles.push_back(0);
      cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_STAGES_IDS, stages.data(),
                                        stages.size() * 4, &w);
      stages.resize(w / 4);
      if (stages.empty()) stages.push_back(0);
      int32_t splitk_ok = 0;
      uint32_t red_mask = 0;
      cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splitk_ok,
                                        sizeof splitk_ok, &w);
      cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &red_mask,
                                        sizeof red_mask, &w);
      // Split 1 for every tile and stages; the splits only where split 1 was accepted, with one
      // reduction scheme (partial sums in the compute type first).
      uint32_t red = 0;
      for (uint32_t r : {2u, 1u, 4u})
        if (!red && (red_mask & r)) red = r;
      for (uint32_t t : tiles)
        for (uint32_t s : stages)
          for (int sp : splits) {
            if (sp > 1 && (!splitk_ok || !red || sp > p.k / 8)) continue;
            const uint32_t rs = sp > 1 ? red : 0u;
            cublasLtMatmulAlgo_t al = base;
            int32_t spv = sp;
            cublasLtMatmulAlgoConfigSetAttribute(&al, CUBLASLT_ALGO_CONFIG_TILE_ID, &t, sizeof t);
            cublasLtMatmulAlgoConfigSetAttribute(&al, CUBLASLT_ALGO_CONFIG_STAGES_ID, &s, sizeof s);
            cublasLtMatmulAlgoConfigSetAttribute(&al, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &spv,
                                                 sizeof spv);
            cublasLtMatmulAlgoConfigSetAttribute(&al, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &rs,
                                                 sizeof rs);
            cublasLtMatmulHeuristicResult_t r{};
            if (cublasLtMatmulAlgoCheck(lt, desc, la, lb, lc, lc, &al, &r) !=
                    CUBLAS_STATUS_SUCCESS ||
                r.state != CUBLAS_STATUS_SUCCESS || r.workspaceSize > kWs) {
              if (sp == 1) break;  // this tile and stages are not for this problem
              continue;
            }
            cands.push_back({al, r.workspaceSize, describe(al), 1e30f, 0, false, r.wavesCount});
          }
    }
    // The screening budget samples the enumerated space uniformly.
    std::shuffle(cands.begin() + n_heur, cands.end(), rng);
    const size_t valid = cands.size() - n_heur;
    // Screening: 3 cold samples each, within the budget (heuristic ones first).
    const auto t0 = std::chrono::steady_clock::now();
    size_t screened = 0;
    for (auto& cd : cands) {
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > budget)
        break;
      if (run_lt(cd, c) != CUBLAS_STATUS_SUCCESS || cudaDeviceSynchronize() != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      std::vector<float> v;
      for (int i = 0; i < 3; ++i) v.push_back(time_once([&] { run_lt(cd, c); }, e0, e1));
      cd.screen = median(v);
      ++screened;
    }
    // Finals: the best 6 enumerated and the heuristic's 8, 21 rounds interleaved with cuBLAS.
    std::vector<size_t> order;
    for (size_t i = n_heur; i < cands.size(); ++i)
      if (cands[i].screen < 1e29f) order.push_back(i);
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return cands[x].screen < cands[y].screen; });
    if (order.size() > 6) order.resize(6);
    for (size_t i = 0; i < n_heur; ++i) order.push_back(i);
    std::vector<std::vector<float>> s(order.size());
    std::vector<float> sb;
    for (int round = 0; round < 21; ++round) {
      sb.push_back(time_once([&] { run_blas(c); }, e0, e1));
      for (size_t j = 0; j < order.size(); ++j)
        s[j].push_back(time_once([&] { run_lt(cands[order[j]], c); }, e0, e1));
    }
    const float blas_us = median(sb);
    float best_heur = 1e30f, best_enum = 1e30f;
    size_t best_j = 0;
    for (size_t j = 0; j < order.size(); ++j) {
      const float md = median(s[j]);
      cands[order[j]].fin = md;
      if (cands[order[j]].heuristic)
        best_heur = std::min(best_heur, md);
      else if (md < best_enum) {
        best_enum = md;
        best_j = order[j];
      }
    }
    // Check the enumerated best against cuBLAS's result.
    double err = -1;
    if (best_enum < 1e29f) {
      CK(cudaMemset(c, 0xff, nc * 4));
      run_lt(cands[best_j], c);
      CK(cudaDeviceSynchronize());
      std::vector<float> h1(nc), h2(nc);
      CK(cudaMemcpy(h1.data(), c, nc * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h2.data(), cref, nc * 4, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      for (int j = 0; j < p.n; ++j)
        for (int i = 0; i < p.m; ++i) {
          const double d = (double)h1[(size_t)j * p.ldc + i] - h2[(size_t)j * p.ldc + i];
          num += std::isfinite(d) ? d * d : 1e30;
          den += (double)h2[(size_t)j * p.ldc + i] * h2[(size_t)j * p.ldc + i];
        }
      err = std::sqrt(num / std::max(den, 1e-30));
    }
    std::printf(
        "%c%c %dx%dx%d ld=%d,%d,%d | %.2f | %.2f | %.2f | %.3f | %.3f | %zu | %zu | %s err=%.1e\n",
        p.ta, p.tb, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, blas_us, best_heur, best_enum,
        blas_us / best_enum, best_heur / best_enum, valid, screened,
        best_enum < 1e29f ? cands[best_j].desc.c_str() : "-", err);
    std::printf("  heuristic:");
    for (size_t i = 0; i < n_heur; ++i)
      std::printf(" [%s w=%.2f %.2fus]", cands[i].desc.c_str(), cands[i].waves, cands[i].fin);
    std::printf("\n  enumerated:");
    for (size_t j = 0; j < order.size(); ++j)
      if (!cands[order[j]].heuristic)
        std::printf(" [%s w=%.2f s=%.2f f=%.2f]", cands[order[j]].desc.c_str(),
                    cands[order[j]].waves, cands[order[j]].screen, cands[order[j]].fin);
    std::printf("\n");
    std::fflush(stdout);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(cref);
  }
  return 0;
}
