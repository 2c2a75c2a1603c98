// NVRTC programs are RAII-owned; every header template is offered to every compilation.
#include "jit/nvrtc_compiler.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <chrono>
#include <regex>

#include "common/error.hpp"
#include "jit/templates.hpp"

namespace sgt {
namespace {

class Program {
 public:
  Program(std::string_view source, std::string_view name, const std::vector<std::string>& headers) {
    std::vector<const char*> contents, names;
    std::vector<std::string> texts;
    texts.reserve(headers.size());
    for (const std::string& h : headers) texts.emplace_back(template_source(h));
    for (std::size_t i = 0; i < headers.size(); ++i) {
      contents.push_back(texts[i].c_str());
      names.push_back(headers[i].c_str());
    }
    const std::string src(source), file(name);
    SGT_NVRTC_CHECK(nvrtcCreateProgram(&program_, src.c_str(), file.c_str(),
                                       static_cast<int>(headers.size()), contents.data(),
                                       names.data()));
  }
  ~Program() {
    if (program_) nvrtcDestroyProgram(&program_);
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return program_; }

  std::string log() const {
    std::size_t size = 0;
    SGT_NVRTC_CHECK(nvrtcGetProgramLogSize(program_, &size));
    std::string text(size, '\0');
    SGT_NVRTC_CHECK(nvrtcGetProgramLog(program_, text.data()));
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    return text;
  }

  std::string cubin() const {
    std::size_t size = 0;
    SGT_NVRTC_CHECK(nvrtcGetCUBINSize(program_, &size));
    std::string bytes(size, '\0');
    SGT_NVRTC_CHECK(nvrtcGetCUBIN(program_, bytes.data()));
    return bytes;
  }

 private:
  nvrtcProgram program_ = nullptr;
};

int match_int(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  return std::regex_search(text, m, pattern) ? std::stoi(m[1].str()) : 0;
}

}  // namespace

std::vector<std::string> base_compile_options(const std::string& arch) {
  // No fast-math: results must match FP32 cuBLAS; ptxas -v gives the resource report.
  return {fmt::format("--gpu-architecture={}", arch), "-std=c++17", "--ptxas-options=-v",
          "-default-device", "-lineinfo"};
}

CompileResult compile_template(std::string_view file_name, const std::vector<std::string>& defines,
                               const std::string& arch) {
  return compile_source(template_source(file_name), file_name, defines, arch);
}

CompileResult compile_source(std::string_view source, std::string_view name,
                             const std::vector<std::string>& defines, const std::string& arch) {
  const auto start = std::chrono::steady_clock::now();
  Program program(source, name, template_header_names());
  std::vector<std::string> options = base_compile_options(arch);
  options.insert(options.end(), defines.begin(), defines.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());

  CompileResult result;
  const nvrtcResult rc =
      nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  result.log = program.log();
  if (rc == NVRTC_SUCCESS) {
    result.ok = true;
    result.cubin = program.cubin();
    result.resources = parse_ptxas_report(result.log, "sgemm_main");
  } else if (rc != NVRTC_ERROR_COMPILATION) {
    result.log = fmt::format("{}\n{}", nvrtcGetErrorString(rc), result.log);
  }
  result.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

ResourceUsage parse_ptxas_report(std::string_view log, std::string_view function) {
  // The report lists "Compiling entry function 'NAME'" and then its properties until the next one.
  const std::string text(log);
  const std::string marker = fmt::format("Compiling entry function '{}'", function);
  const std::size_t begin = text.find(marker);
  if (begin == std::string::npos) return {};
  std::size_t end = text.find("Compiling entry function", begin + marker.size());
  const std::string section =
      text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  ResourceUsage usage;
  usage.registers = match_int(section, std::regex(R"(Used (\d+) registers)"));
  usage.spill_store_bytes = match_int(section, std::regex(R"((\d+) bytes spill stores)"));
  usage.spill_load_bytes = match_int(section, std::regex(R"((\d+) bytes spill loads)"));
  usage.stack_bytes = match_int(section, std::regex(R"((\d+) bytes stack frame)"));
  usage.static_smem_bytes = match_int(section, std::regex(R"((\d+) bytes smem)"));
  return usage;
}

}  // namespace sgt
