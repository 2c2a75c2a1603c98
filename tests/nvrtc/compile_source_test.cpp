// compile_source: CUDA text of the caller's compiled like a template (with the templates' headers
// available), a compile error returned as a result that names the source.
#include <gtest/gtest.h>

#include "jit/nvrtc_compiler.hpp"

namespace sgt {
namespace {

TEST(CompileSource, BuildsCallerSourceWithTheTemplateHeaders) {
  const char* source = R"(
#include "sgemm_args.h"
extern "C" __global__ void sgemm_main(SgemmArgs args) { if (args.m < 0) args.c[0] = 0; }
)";
  const CompileResult r = compile_source(source, "mine.cu", {}, "sm_90");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(r.cubin.empty());
  EXPECT_GT(r.resources.registers, 0);
}

TEST(CompileSource, ACompileErrorIsAResultNamingTheSource) {
  const CompileResult r = compile_source("this is not CUDA", "broken.cu", {}, "sm_90");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("broken.cu"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace sgt
