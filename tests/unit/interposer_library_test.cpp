// libsgemm_cublas as a file, without a GPU: it loads into a process without pulling in any CUDA
// library, exports exactly cuBLAS's three FP32 GEMM entry points under cuBLAS's symbol version, and
// passes a call it cannot serve to the process's own cuBLAS unchanged.
#include <cublas_v2.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <string>
#include <vector>

namespace {

// Never unloaded, as in a process that preloads it: what it keeps for the process's lifetime
// (the cuBLAS it found) stays reachable.
struct Library {
  void* handle = dlopen(SGEMM_CUBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  ~Library() {
    if (handle) dlclose(handle);
  }
};

std::vector<std::string> needed(void* handle) {
  link_map* map = nullptr;
  std::vector<std::string> names;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return names;
  const char* strtab = nullptr;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_NEEDED && strtab) names.emplace_back(strtab + d->d_un.d_val);
  return names;
}

TEST(InterposerLibrary, LinksNoCudaLibrary) {
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  const std::vector<std::string> deps = needed(lib.handle);
  EXPECT_FALSE(deps.empty());
  for (const std::string& d : deps)
    for (const char* cuda : {"libcublas", "libcudart", "libcuda.", "libnvrtc", "libsgemm"})
      EXPECT_EQ(d.find(cuda), std::string::npos) << d;
}

TEST(InterposerLibrary, ExportsTheEntryPointsUnderCublasVersion) {
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  for (const char* name : {"cublasSgemm_v2", "cublasGemmEx", "cublasSgemmEx"})
    EXPECT_NE(dlvsym(lib.handle, name, SGEMM_CUBLAS_VERSION_NODE), nullptr) << name;
  for (const char* name : {"cublasSgemm", "cublasCreate_v2", "sgemmSgemm", "sgemmCreate"})
    EXPECT_EQ(dlsym(lib.handle, name), nullptr) << name;
}

// This process links cuBLAS, which the interposer (opened privately here) must find by itself.
TEST(InterposerLibrary, PassesACallItCannotServeToTheProcessCublas) {
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  const auto interposed = reinterpret_cast<decltype(&cublasSgemm_v2)>(
      dlvsym(lib.handle, "cublasSgemm_v2", SGEMM_CUBLAS_VERSION_NODE));
  ASSERT_NE(interposed, nullptr);
  const float alpha = 1, beta = 0;
  const cublasStatus_t real = cublasSgemm_v2(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha,
                                             nullptr, 4, nullptr, 4, &beta, nullptr, 4);
  EXPECT_NE(real, CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(interposed(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, nullptr, 4, nullptr, 4,
                       &beta, nullptr, 4),
            real);
}

}  // namespace
