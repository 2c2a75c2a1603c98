// Exceptions used inside sgemm-tune and one throwing check per API family (CUDA runtime, driver,
// NVRTC, cuBLAS, SQLite). Each check reports file:line, the call text and the error name.
#pragma once

#include <stdexcept>
#include <string>

namespace sgt {

// What went wrong, in the categories of the public sgemmStatus_t.
enum class ErrorKind {
  invalid_value,
  not_initialized,
  database,
  cuda,
  compile,
  cublas,
  not_supported,
  internal,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message)
      : std::runtime_error(visible_nuls(message)), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  // what() is a C string: a NUL byte quoted from the input (a YAML key, a CSV cell) would cut
  // the message short, so it is written as \0.
  static std::string visible_nuls(const std::string& message) {
    std::string out;
    out.reserve(message.size());
    for (char c : message) {
      if (c == '\0')
        out += "\\0";
      else
        out += c;
    }
    return out;
  }

  ErrorKind kind_;
};

[[noreturn]] void throw_cuda_error(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_driver_error(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_nvrtc_error(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(int code, const char* call, const char* file, int line);

// Logs nothing and throws nothing: for destructors. Returns true when the call succeeded.
bool cuda_ok_noexcept(int code) noexcept;

}  // namespace sgt

#define SGT_CUDA_CHECK(call)                                                           \
  do {                                                                                 \
    const int sgt_code_ = static_cast<int>(call);                                      \
    if (sgt_code_ != 0) ::sgt::throw_cuda_error(sgt_code_, #call, __FILE__, __LINE__); \
  } while (0)

// Checks the launch just made (launch errors surface through cudaGetLastError).
#define SGT_CUDA_CHECK_LAST() SGT_CUDA_CHECK(cudaGetLastError())

#define SGT_CU_CHECK(call)                                                               \
  do {                                                                                   \
    const int sgt_code_ = static_cast<int>(call);                                        \
    if (sgt_code_ != 0) ::sgt::throw_driver_error(sgt_code_, #call, __FILE__, __LINE__); \
  } while (0)

#define SGT_NVRTC_CHECK(call)                                                           \
  do {                                                                                  \
    const int sgt_code_ = static_cast<int>(call);                                       \
    if (sgt_code_ != 0) ::sgt::throw_nvrtc_error(sgt_code_, #call, __FILE__, __LINE__); \
  } while (0)

#define SGT_CUBLAS_CHECK(call)                                                           \
  do {                                                                                   \
    const int sgt_code_ = static_cast<int>(call);                                        \
    if (sgt_code_ != 0) ::sgt::throw_cublas_error(sgt_code_, #call, __FILE__, __LINE__); \
  } while (0)

#define SGT_CUDA_CHECK_NOEXCEPT(call) ::sgt::cuda_ok_noexcept(static_cast<int>(call))
