// Move-only owner of a loaded CUDA module (cubin), through the run-time driver entry points.
#pragma once

#include <cuda.h>

#include <string>
#include <string_view>

namespace sgt {

class Module {
 public:
  Module() = default;
  explicit Module(std::string_view cubin);  // loads into the current context; throws on failure
  ~Module();
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The kernel of that name; throws sgt::Error(cuda) if the module has none.
  CUfunction function(const char* name) const;
  // Null when the module has no kernel of that name.
  CUfunction find_function(const char* name) const;
  bool loaded() const noexcept { return module_ != nullptr; }

 private:
  CUmodule module_ = nullptr;
};

}  // namespace sgt
