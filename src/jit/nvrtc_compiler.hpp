// NVRTC compilation of a kernel template to a cubin, with the ptxas resource report parsed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sgt {

struct ResourceUsage {
  int registers = 0;
  int spill_store_bytes = 0, spill_load_bytes = 0;
  int stack_bytes = 0;
  int static_smem_bytes = 0;
};

struct CompileResult {
  bool ok = false;
  std::string cubin;        // machine code for the requested architecture
  std::string log;          // NVRTC and ptxas output (errors on failure, the -v report on success)
  ResourceUsage resources;  // of sgemm_main (the largest user when a module has several kernels)
  double compile_ms = 0;
};

// Options every template is compiled with for an architecture such as "sm_90".
std::vector<std::string> base_compile_options(const std::string& arch);

// Compiles kernel_templates/<file_name> with base options plus `defines` (e.g. "-DBM=128").
// A compile error is a result (ok == false, log set), not an exception.
CompileResult compile_template(std::string_view file_name, const std::vector<std::string>& defines,
                               const std::string& arch);

// The same for CUDA source text of the caller's (`name` names it in the log), with the templates'
// headers available.
CompileResult compile_source(std::string_view source, std::string_view name,
                             const std::vector<std::string>& defines, const std::string& arch);

// Parses the ptxas -v report for one entry function ("sgemm_main").
ResourceUsage parse_ptxas_report(std::string_view log, std::string_view function);

}  // namespace sgt
