// What the interposer did with each call, counted per entry point, action, reason and problem,
// and written as CSV to $SGEMM_CUBLAS_LOG at exit. Off (and free) when the variable is unset.
#pragma once

#include <cstdint>
#include <string>

namespace sgt::interpose {

struct LoggedCall {
  const char* entry;   // cublasSgemm_v2, cublasGemmEx, cublasSgemmEx
  bool served;         // by a tuned route of the dispatcher; else passed to cuBLAS
  const char* reason;  // why it was passed through ("" when served)
  int transa, transb, m, n, k, lda, ldb, ldc;
};

bool call_log_on();
void log_call(const LoggedCall& call);

// "entry,action,reason,m,n,k,transa,transb,lda,ldb,ldc,calls", one row per distinct call, served
// first, then by call count; plus a first row "#" naming the cuBLAS and the note (if any) that
// explains why nothing could be served.
std::string call_log_csv(const std::string& cublas_library, const std::string& note);

// Writes the log to $SGEMM_CUBLAS_LOG (the whole file, replaced). False when it cannot.
bool write_call_log(const std::string& cublas_library, const std::string& note);

}  // namespace sgt::interpose
